/**
 * A Worker whose configuration is unsafe serves nothing: a missing, short or once-published
 * JWT_SECRET (anyone could sign admin tokens with it) answers 500 on every route and logs why.
 * A pooled DATABASE_URL is safe (every statement carries its tenant scope, src/db/scoped-statements.ts).
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app';
import { readConfig, type Bindings } from '../src/env';

const app = buildApp();

async function requestWith(
  bindings: Partial<Bindings>,
  path: string,
): Promise<{ status: number; body: { error?: { type: string; message: string } } }> {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`http://lead.test${path}`), { ...env, ...bindings } as Bindings, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: await response.json() };
}

afterEach(() => vi.restoreAllMocks());

describe('unsafe configuration', () => {
  const cases: [string, Partial<Bindings>, RegExp][] = [
    ['a missing JWT_SECRET', { JWT_SECRET: undefined }, /JWT_SECRET is not set/],
    ['a JWT_SECRET shorter than 32 bytes', { JWT_SECRET: 'short-secret' }, /at least 32 bytes/],
    [
      'the development JWT_SECRET once published in scripts/dev.mjs',
      { JWT_SECRET: 'local-development-secret-not-for-production-use' },
      /published/,
    ],
  ];
  for (const [what, bindings, logged] of cases) {
    it(`answers 500 on every route, public ones included, for ${what}, and logs the reason`, async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      for (const path of ['/api/health', '/api/openapi.json', '/api/lead/list', '/api/no-such-route']) {
        const response = await requestWith(bindings, path);
        expect(response.status, path).toBe(500);
        expect(response.body.error?.type).toBe('internal_error');
        expect(response.body.error?.message).not.toMatch(/JWT_SECRET|DATABASE_URL/);
      }
      expect(errors.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(logged);
    });
  }

  it('serves with the configuration the suite runs on', async () => {
    expect((await requestWith({}, '/api/health')).status).toBe(200);
  });

  it('takes a pooled DATABASE_URL (Neon -pooler, pgbouncer=true) as it takes a direct one', () => {
    for (const url of [
      'postgres://app:pw@ep-cool-name-123456-pooler.eu-central-1.aws.neon.tech/neondb',
      'postgres://app:pw@db.example.com:6432/app?pgbouncer=true',
    ]) {
      expect(readConfig({ ...env, DATABASE_URL: url } as Bindings).DATABASE_URL).toBe(url);
    }
  });
});
