/**
 * The value schemas a lead's writable fields are validated with (rules and messages of
 * POST /api/lead/add and /update). They are also the row contract of the spreadsheet import:
 * numeric fields accept numeric strings, and optional text fields accept '' as "no value", so a
 * parsed CSV row validates the same way. Descriptions live in the field table (fields.ts).
 */
import { z } from '@hono/zod-openapi';
import { email, jsonObject, MAX_TEXT } from '../../core/schemas';

export function personName(example: string) {
  return z
    .string()
    .trim()
    .min(2, 'must be at least 2 characters')
    .max(50, 'must be at most 50 characters')
    .openapi({ example });
}

/** A positive integer, also accepted as a numeric string (spreadsheet cells). */
export const integerInput = z
  .union([z.number(), z.string().trim().max(20).regex(/^\d+$/, 'must be a whole number').transform(Number)])
  .pipe(z.number().int('must be a whole number').positive('must be a positive number').max(Number.MAX_SAFE_INTEGER))
  .openapi({ type: 'integer' });

export const amount = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .max(30)
      .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
      .transform(Number),
  ])
  .pipe(z.number().min(0, 'must not be negative').max(999_999_999_999.99, 'is too large'))
  .openapi({ type: 'number' });

export const leadEmail = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .transform((value) => (value === '' ? null : value))
  .pipe(email.nullable())
  .nullish()
  .openapi({ type: ['string', 'null'], format: 'email' });

export const customValue = z.union([
  z.string().max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string().max(500), z.number(), z.boolean()])).max(100),
]);

/** Key/value custom fields; on update a null value removes the key. */
export const customFieldsInput = z
  .record(z.string().trim().min(1).max(100, 'keys must be at most 100 characters'), customValue)
  .refine((value) => Object.keys(value).length <= 200, 'at most 200 keys')
  .openapi({ example: { budget: '10k', newsletter: true } });

/**
 * Keys of `ai_information` the service writes: the scoring model's explanation (modules/lead-scoring,
 * read back as `score_factors`) and the enrichment record (modules/lead-enrichment). A client that
 * set or removed them would make the lead's stated reasons and sources say what no model or
 * provider said, until the next run overwrote them.
 */
export const SERVICE_AI_INFORMATION_KEYS: Readonly<Record<string, string>> = {
  score: 'is the scoring model’s explanation of the score (read-only)',
  enrichment: 'is the enrichment provider’s record (read-only; POST /api/lead-enrichment/enrich writes it)',
};

/** AI enrichment data (any JSON object), merged key by key on update; the service's own keys are refused (422 naming `ai_information.<key>`). */
export const aiInformationInput = jsonObject({ maxKeyLength: 100, maxChars: 100_000 })
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      const reason = Object.hasOwn(SERVICE_AI_INFORMATION_KEYS, key) ? SERVICE_AI_INFORMATION_KEYS[key] : undefined;
      if (reason) ctx.addIssue({ code: 'custom', path: [key], message: reason });
    }
  })
  .openapi({
    example: { summary: 'Series B fintech, hiring sales engineers' },
  });

export const tagIds = z
  .array(integerInput)
  .max(50, 'at most 50 tags')
  .openapi({ example: [1] });

export const TagRef = z
  .object({
    id: z.number().int().openapi({ description: 'The tag lookup’s id' }),
    name: z.string().openapi({ description: 'The tag’s name' }),
    color: z.string().nullable().openapi({ description: 'The tag’s color (hex); null: none' }),
  })
  .openapi('TagRef', { description: 'A tag of the lead', example: { id: 12, name: 'VIP', color: '#A855F7' } });

/** 1/0, true/false, "1"/"0", "true"/"false": JSON clients and form posts send all of them. */
const flag = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.enum(['0', '1', 'true', 'false'])])
  .transform((value) => value === true || value === 1 || value === '1' || value === 'true')
  .optional();

/**
 * What a single create does when a live lead has the email or profile URL (spec Errors rule 2):
 * the same two flags on POST /api/lead/add and POST /api/v1/lead. Both at once: `refuseBothDuplicateModes`.
 */
export const duplicateModeFields = {
  duplicate: flag.openapi({
    type: 'integer',
    enum: [0, 1],
    description: '1: create the lead even when a lead has the same email or profile URL',
  }),
  merge: flag.openapi({
    type: 'integer',
    enum: [0, 1],
    description:
      '1: when a lead has the same email or profile URL, update it instead (given values win, custom_fields merge, tags add up) and answer 200',
  }),
};

/** A superRefine step: `duplicate` and `merge` together are a 422 naming `merge`. */
export function refuseBothDuplicateModes(body: { duplicate?: boolean; merge?: boolean }, ctx: z.RefinementCtx): void {
  if (body.duplicate && body.merge) {
    ctx.addIssue({ code: 'custom', path: ['merge'], message: 'send duplicate or merge, not both' });
  }
}

/** The onDuplicate mode (create-leads.ts) the two flags ask for. */
export function duplicateModeOf(body: { duplicate?: boolean; merge?: boolean }): 'skip' | 'merge' | 'create' {
  return body.merge ? 'merge' : body.duplicate ? 'create' : 'skip';
}
