/**
 * Recognising Postgres failures through drizzle's wrapped errors: constraint violations, and a
 * database that is gone for a moment (a dropped or refused connection).
 */
interface PgErrorShape {
  code?: string;
  constraint?: string;
  message?: string;
  cause?: PgErrorShape;
}

export function pgError(error: unknown): PgErrorShape | null {
  const shape = error as PgErrorShape | null;
  if (!shape || typeof shape !== 'object') return null;
  if (shape.code && /^[0-9A-Z]{5}$/.test(shape.code)) return shape;
  return shape.cause ? pgError(shape.cause) : null;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = pgError(error);
  return pg?.code === '23505' && (!constraint || pg.constraint === constraint);
}

export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  const pg = pgError(error);
  return pg?.code === '23503' && (!constraint || pg.constraint === constraint);
}

/**
 * SQLSTATEs of a connection that is gone or not yet there: class 08 (connection exception),
 * 57P01-57P03 (terminated by an administrator, a crash, or a server still starting), 53300 (no
 * connection slot free).
 */
const UNAVAILABLE_STATES = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;

/**
 * How the drivers (node-postgres, the neon WebSocket driver) report a connection lost, refused
 * or closed under a query: no SQLSTATE, only these.
 */
const UNAVAILABLE_MESSAGES =
  /connection terminated|terminating connection|connection (?:error|refused|reset)|not queryable|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|socket hang up|websocket|network connection lost/i;

/**
 * True when the error is the database being unreachable (a dropped or refused connection), a
 * transient fault the client should retry, rather than a fault of the statement or of our code.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current = error as PgErrorShape | null | undefined;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (typeof current.code === 'string' && UNAVAILABLE_STATES.test(current.code)) return true;
    if (typeof current.code === 'string' && /^E[A-Z]+$/.test(current.code) && UNAVAILABLE_MESSAGES.test(current.code))
      return true;
    if (typeof current.message === 'string' && UNAVAILABLE_MESSAGES.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
