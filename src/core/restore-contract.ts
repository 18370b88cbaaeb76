/**
 * The wire shapes the restore routes share (`POST /api/lead/restore`, `/api/contact/restore`,
 * `/api/company/restore`, and their `GET …/deleted` lists): the ids body, the answer, the 409 that
 * names every clash, and a deleted record (the record's fields and `deleted_at`). Each module
 * gives its nouns, its key fields and its example; the statements are in core/restore.ts.
 */
import { z } from '@hono/zod-openapi';
import { conflictResponse, envelope } from './routes';
import { idsBody, timestamp } from './schemas';

interface Nouns {
  /** The record, singular and plural, lower case: `lead`, `leads`. */
  one: string;
  many: string;
  /** The component-name stem: `Leads` makes `RestoreLeadsRequest`, `RestoreLeadsConflict`. */
  name: string;
}

/** `{ ids }`: the deleted records to restore. */
export function restoreIdsBody(nouns: Nouns, example: number[]) {
  return z
    .object({
      ids: idsBody.openapi({
        description: `Ids of the deleted ${nouns.many} to restore (1 to 10 000); live, unknown and other organizations’ ids are ignored`,
      }),
    })
    .openapi(`Restore${nouns.name}Request`, {
      description: `The deleted ${nouns.many} to restore`,
      example: { ids: example },
    });
}

/** The 200 of a restore: `{ restored: n }`. */
export function restoredAnswer(nouns: Nouns) {
  return envelope(
    z
      .object({
        restored: z
          .number()
          .int()
          .openapi({ description: `How many ${nouns.many} this request restored` }),
      })
      .openapi({ description: 'The outcome' }),
    `${nouns.name} restored`,
  );
}

/**
 * The 409 of a restore: nothing was restored, because a record to restore would share a unique
 * key with a live record (`holder` names it: `lead_id`) or with another record to restore.
 */
export function restoreConflict<F extends [string, ...string[]]>(
  nouns: Nouns,
  spec: { code: string; holder: string; fields: F; keys: string; example: Record<string, unknown> },
) {
  const field = z.enum(spec.fields).openapi({ description: 'The key they share' });
  const clash = {
    id: z
      .number()
      .int()
      .openapi({ description: `The deleted ${nouns.one} that cannot be restored` }),
    [spec.holder]: z
      .number()
      .int()
      .openapi({ description: `The ${nouns.one} holding the key: live, or restored in the same request` }),
    field,
  };
  return conflictResponse(
    `Restore${nouns.name}Conflict`,
    `A ${nouns.one} to restore would share its ${spec.keys} with a live ${nouns.one}, or with another ${nouns.one} to restore: nothing was restored`,
    [
      {
        code: spec.code,
        details: z.object({
          ...clash,
          clashes: z
            .array(z.object(clash))
            .openapi({ description: `Every clash, by the id of the ${nouns.one} to restore` }),
        }),
        example: { ...spec.example, clashes: [spec.example] },
      },
    ],
  );
}

/** A deleted record: the record's fields (`shape`) and `deleted_at`. */
export function deletedRecordSchema<S extends z.ZodRawShape>(
  shape: S,
  nouns: Pick<Nouns, 'one'> & { component: string },
  example: Record<string, unknown>,
) {
  return z
    .object({ ...shape, deleted_at: timestamp().openapi({ description: `When the ${nouns.one} was deleted` }) })
    .openapi(nouns.component, {
      description: `A deleted ${nouns.one} of the organization, as it was when deleted`,
      example: { ...example, deleted_at: '2026-11-30T10:00:00.000Z' },
    });
}
