/**
 * The body of the accounts modules' bulk routes (company and contact delete, contact bulk
 * update): explicit ids, or `select_all: true` with the list's filters, plus what to set.
 */
import { z } from '@hono/zod-openapi';
import { integerInput } from '../leads';

/** Which records a bulk route touches: explicit ids (`idsKey`), or `select_all: true` with optional `filters`. */
export function bulkTargetBody<
  F extends z.ZodType,
  S extends z.ZodRawShape = {},
  O extends z.ZodRawShape = {},
>(options: {
  name: string;
  idsKey: string;
  noun: string;
  filters: F;
  example: Record<string, unknown>;
  /** What a bulk update sets; at least one of these keys must be given. */
  changes?: S;
  /** Optional settings of the request itself (e.g. a delete's `force`). */
  options?: O;
}) {
  return z
    .object({
      ...(options.changes as S),
      ...(options.options as O),
      [options.idsKey]: z
        .array(integerInput)
        .min(1, 'must contain at least one id')
        .max(10_000, 'at most 10000 ids per request')
        .optional()
        .openapi({
          description: `The ${options.noun} (at most 10 000); unknown and other organizations’ ids are ignored. Required unless select_all is true`,
        }),
      select_all: z
        .boolean()
        .optional()
        .openapi({
          description: `true: every live ${options.noun.replace(/s$/, '')} matching \`filters\` (all when no filters); wins over ids`,
        }),
      filters: options.filters.optional(),
    })
    .superRefine((body, ctx) => {
      const target = body as Record<string, unknown>;
      if (target.select_all !== true && !Array.isArray(target[options.idsKey])) {
        ctx.addIssue({
          code: 'custom',
          path: [options.idsKey],
          message: `give ${options.idsKey}, or select_all: true with filters`,
        });
      }
      const changes = Object.keys(options.changes ?? {});
      if (changes.length > 0 && changes.every((key) => target[key] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [changes[0]], message: `give at least one of ${changes.join(', ')}` });
      }
    })
    .openapi(options.name, {
      description: `Which ${options.noun}: explicit ${options.idsKey}, or select_all: true with optional filters (the list filters)${options.changes ? `; and what to set on all of them (${Object.keys(options.changes).join(', ')})` : ''}`,
      example: options.example,
    });
}

export const DeletedCount = z
  .object({ deleted: z.number().int().openapi({ description: 'How many records this request deleted' }) })
  .openapi('DeletedCount', { description: 'The outcome of a delete', example: { deleted: 2 } });
