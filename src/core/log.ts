/**
 * The one logger: a structured JSON line per event, usable anywhere (queue consumers, cron
 * sweeps, the database driver), and the request logger built on it, one line per request
 * (method, route, status, duration, org id, request id). The request id comes from hono's
 * request-id middleware: the caller's `x-request-id` when it is well formed (letters, digits,
 * `_`, `-`, `=`, at most 128 characters), a random UUID otherwise, echoed on the response.
 *
 * Never logs headers, bodies, tokens, passwords or keys. Callers pass ids and counts, not
 * payloads; as a second line of defence a field whose name says it holds a secret is written as
 * "[redacted]", and credentials inside a URL or a bearer header in any text are masked (an error
 * message may quote a connection string).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import type { AppEnv } from './context';

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

const SECRET_FIELD = /pass(word)?|secret|token|authori[sz]ation|cookie|api[_-]?key|jwt|credential|signature/i;

/** Text with URL credentials (`scheme://user:password@`) and bearer tokens masked. */
export function maskSecrets(text: string): string {
  return text
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, '$1:***@')
    .replace(/\b(bearer)\s+[\w.~+/=-]+/gi, '$1 ***');
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (value instanceof Error) return maskSecrets(value.message);
  if (value === null || typeof value !== 'object' || depth > 3) return value;
  if (Array.isArray(value)) return value.map((item) => clean(item, depth + 1));
  const out: LogFields = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) && item !== null && item !== undefined ? '[redacted]' : clean(item, depth + 1);
  }
  return out;
}

function write(level: LogLevel, message: string, fields: LogFields = {}): void {
  const line = JSON.stringify({ level, message: maskSecrets(message), ...(clean(fields, 0) as LogFields) });
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields?: LogFields) => write('info', message, fields),
  warn: (message: string, fields?: LogFields) => write('warn', message, fields),
  error: (message: string, fields?: LogFields) => write('error', message, fields),
};

/** An error's text for a log line: its message, or the thrown value itself. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const REQUEST_ID_HEADER = 'x-request-id';

const assignRequestId = requestId({ headerName: REQUEST_ID_HEADER, limitLength: 128 });

export const requestLogger: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  await assignRequestId(c, next);
  log.info('request', {
    request_id: c.get('requestId'),
    method: c.req.method,
    route: c.req.routePath,
    status: c.res.status,
    duration_ms: Date.now() - started,
    org_id: c.get('logOrgId') ?? null,
  });
};

export function logError(c: Context, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  log.error(err.message, {
    request_id: c.get('requestId') ?? null,
    route: c.req.routePath,
    error: err.name,
    stack: err.stack,
  });
}
