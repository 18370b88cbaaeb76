/**
 * Field schemas shared by many request shapes, each declared once: bounded strings (every
 * string input has a maximum), emails, comma-separated id lists and the like.
 */
import { z } from '@hono/zod-openapi';

export const MAX_TEXT = 5_000;

/** A required string, trimmed, within bounds. */
export function text(min = 1, max = 255) {
  return z.string().trim().min(min, min === 1 ? 'is required' : `must be at least ${min} characters`).max(max, `must be at most ${max} characters`);
}

export function optionalText(max = 255) {
  return z.string().trim().max(max, `must be at most ${max} characters`).nullish();
}

/** Trimmed, domain lower-cased; syntax checked. */
export const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid email address'))
  .transform((value) => {
    const at = value.lastIndexOf('@');
    return `${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`;
  })
  .openapi({ type: 'string', format: 'email', example: 'ada@example.com' });

export const positiveId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** Query parameter "1,2,3" → [1, 2, 3]; a non-numeric member is a 400 naming the parameter. */
export function idList(description: string) {
  return z
    .string()
    .max(2_000)
    .transform((value, ctx) => {
      const ids = value.split(',').map((part) => part.trim()).filter(Boolean);
      const parsed = ids.map(Number);
      if (parsed.length === 0 || parsed.some((id) => !Number.isSafeInteger(id) || id < 0)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of numeric ids' });
        return z.NEVER;
      }
      return parsed;
    })
    .optional()
    .openapi({ description, type: 'string', example: '1,2' });
}

export const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1')
  .optional();

export const idsBody = z.array(positiveId).min(1, 'must contain at least one id').max(10_000, 'at most 10000 ids per request');

export function isoTimestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
