/** Recognising Postgres constraint failures through drizzle's wrapped errors. */
interface PgErrorShape {
  code?: string;
  constraint?: string;
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
