/**
 * PostgreSQL stores no NUL character in `text` or `jsonb` (SQLSTATE 22021 / 22P05), so a NUL that
 * got that far would be a 500. It is refused once, before any route's validation: in a query
 * value (400 naming the parameter), and anywhere in a JSON or form body, nested values and keys
 * of free-form objects included (422 naming the field by its path, e.g. `custom_fields.budget`).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';
import { BadRequest, ValidationFailed } from './errors';

const NUL = '\u0000';
const MESSAGE = 'must not contain a NUL character';

/** The path of the first string or key holding a NUL in a JSON value, walked without recursion. */
export function nulPath(value: unknown): string | null {
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [node, path] = pending.pop() as [unknown, string];
    if (typeof node === 'string') {
      if (node.includes(NUL)) return path || 'body';
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) return childPath.replaceAll(NUL, '\\u0000');
      pending.push([child, childPath]);
    }
  }
  return null;
}

async function bodyOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<unknown> {
  const type = c.req.header('content-type')?.toLowerCase() ?? '';
  try {
    if (type.startsWith('application/json')) return await c.req.json();
    if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
      const form = await c.req.parseBody({ all: true });
      return Object.fromEntries(
        Object.entries(form).map(([key, value]) => [key, typeof value === 'string' ? value : null]),
      );
    }
  } catch {
    // Malformed bodies are the route validator's to refuse, with its own 400.
  }
  return null;
}

export const refuseNulCharacters: MiddlewareHandler<AppEnv> = async (c, next) => {
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (name.includes(NUL) || values.some((value) => value.includes(NUL)))
      throw new BadRequest(`${name}: ${MESSAGE}`, name);
  }
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const path = nulPath(await bodyOf(c));
    if (path) throw ValidationFailed.field(path, MESSAGE);
  }
  await next();
};
