/**
 * A test-only app with the real request chain (database access, the validation hook, the error
 * envelope), for routes built with defineRoute that exist only in a test, and a request to it
 * that waits for its after-response work (effects, the connection's close) before it answers.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../src/core/context';
import { databaseAccess } from '../../src/core/database';
import { handleError } from '../../src/core/http';
import { validationHook } from '../../src/core/routes';

export function probeApp(): OpenAPIHono<AppEnv> {
  const probe = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  probe.use('*', databaseAccess);
  probe.onError(handleError);
  return probe;
}

/** POSTs `body` as JSON to `path` of `probe`; answers once the request's background work is done. */
export async function postToProbe(
  probe: OpenAPIHono<AppEnv>,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string }> {
  const ctx = createExecutionContext();
  const response = await probe.fetch(
    new Request(`http://lead.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: response.status, headers: response.headers, text: await response.text() };
}
