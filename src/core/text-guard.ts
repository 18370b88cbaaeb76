/**
 * Text PostgreSQL cannot store is refused once, before any route's validation:
 *
 * - a NUL character: `text` and `jsonb` hold none (SQLSTATE 22021 / 22P05);
 * - an unpaired UTF-16 surrogate (JSON `"\ud83d"` alone): no valid Unicode, so the `jsonb` a
 *   write carries its values in refuses it (22P02), and as a text parameter it would be encoded
 *   as U+FFFD, a silent change.
 *
 * Either would otherwise reach the database as an anonymous 400 or a 500. Refused in a query
 * value (400 naming the parameter), and anywhere in a JSON or form body, nested values and keys of
 * free-form objects included (422 naming the field by its path, e.g. `custom_fields.budget`).
 * A route that answers its own page (the hosted web form) checks its fields with `badCharacter`
 * itself and is left alone here (`leaveBodyToRoute`, declared through defineRoute).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';
import { BadRequest, ValidationFailed } from './errors';

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain a NUL character';
const SURROGATE_MESSAGE = 'must be valid Unicode text (it holds an unpaired surrogate)';
/** Lone surrogates only: with the `u` flag a well-formed pair is one code point, outside the category. */
const LONE_SURROGATES = /\p{Surrogate}/gu;

/** What is wrong with a text PostgreSQL cannot store, or null when it can store it. */
export function badCharacter(text: string): string | null {
  if (text.includes(NUL)) return NUL_MESSAGE;
  if (!text.isWellFormed()) return SURROGATE_MESSAGE;
  return null;
}

/** A key as a field path can show it: a NUL or lone surrogate written as its escape. */
function printable(path: string): string {
  return path
    .replaceAll(NUL, '\\u0000')
    .replace(LONE_SURROGATES, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The first string or key of a JSON value PostgreSQL could not store: its path and why, walked without recursion. */
export function badCharacterPath(value: unknown): { path: string; message: string } | null {
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [node, path] = pending.pop() as [unknown, string];
    if (typeof node === 'string') {
      const message = badCharacter(node);
      if (message) return { path: path || 'body', message };
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      const childPath = path ? `${path}.${key}` : key;
      const message = badCharacter(key);
      if (message) return { path: printable(childPath), message };
      pending.push([child, childPath]);
    }
  }
  return null;
}

/** Routes (method and path pattern) whose handler checks the body's characters itself. */
const routesCheckingTheirBody: { method: string; pattern: RegExp }[] = [];

/** Declared by defineRoute for a route whose handler checks its own body (see the module comment). */
export function leaveBodyToRoute(method: string, pattern: RegExp): void {
  routesCheckingTheirBody.push({ method, pattern });
}

function bodyLeftToRoute(method: string, path: string): boolean {
  return routesCheckingTheirBody.some((route) => route.method === method && route.pattern.test(path));
}

async function bodyOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<unknown> {
  const type = c.req.header('content-type')?.toLowerCase() ?? '';
  try {
    if (type.startsWith('application/json')) return await c.req.json();
    if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
      const form = await c.req.parseBody({ all: true });
      return Object.fromEntries(
        Object.entries(form).map(([key, value]) => [
          key,
          Array.isArray(value)
            ? value.filter((one) => typeof one === 'string')
            : typeof value === 'string'
              ? value
              : null,
        ]),
      );
    }
  } catch {
    // Malformed bodies are the route validator's to refuse, with its own 400.
  }
  return null;
}

export const refuseBadCharacters: MiddlewareHandler<AppEnv> = async (c, next) => {
  for (const [name, values] of Object.entries(c.req.queries())) {
    const message = badCharacter(name) ?? values.map(badCharacter).find((found) => found !== null);
    if (message) throw new BadRequest(`${printable(name)}: ${message}`, printable(name));
  }
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !bodyLeftToRoute(c.req.method, c.req.path)) {
    const found = badCharacterPath(await bodyOf(c));
    if (found) throw ValidationFailed.field(found.path, found.message);
  }
  await next();
};
