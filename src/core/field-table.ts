/**
 * One field table per resource, as the lead's (modules/leads/fields.ts) in a smaller form for
 * resources without imports, exports or merge rules: each wire field names its column (or the
 * SQL it is derived from), its description (the OpenAPI document's only one), its response
 * schema, how a selected value is presented, and its create/update schemas. From the table come
 * the zod shapes, the selection (one `db.select`) and the presenter, so a field is added in the
 * table alone.
 */
import type { z } from '@hono/zod-openapi';
import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

export type FieldSpec<T extends PgTable> = (
  | { column: keyof T['_']['columns'] & string; select?: never }
  | { column?: never; select: SQL }
) & {
  description: string;
  read: z.ZodType;
  /** Selected value → wire value; identity when absent. */
  present?: (value: never) => unknown;
  /** Schema in the create body; absent: not settable on create. */
  create?: z.ZodType;
  /** Schema in the update body; absent: read-only after create. */
  update?: z.ZodType;
};

type Picked<F, K extends 'create' | 'update' | 'read'> = {
  [W in keyof F as F[W] extends { [P in K]: z.ZodType } ? W : never]: F[W] extends { [P in K]: infer S } ? S : never;
};

export interface FieldTable<F> {
  createShape: Picked<F, 'create'>;
  updateShape: Picked<F, 'update'>;
  readShape: Picked<F, 'read'>;
  /** Every field, for `db.select(selection)`. */
  selection: Record<string, SQL | PgColumn>;
  /** A selected row in its wire form. */
  present(row: Record<string, unknown>): { [W in keyof Picked<F, 'read'>]: z.output<Picked<F, 'read'>[W] & z.ZodType> };
  /** Update body key (wire name) → column key, for the fields an update sets as given. */
  updateColumns: [string, string][];
  /** Wire name → column key of every stored field a create or an update may set. */
  writableColumns: [string, string][];
}

export function defineFields<T extends PgTable, const F extends Record<string, FieldSpec<T>>>(
  table: T,
  fields: F,
): FieldTable<F> {
  const entries = Object.entries(fields) as [string, FieldSpec<T>][];
  const shape = (pick: (field: FieldSpec<T>) => z.ZodType | undefined) => {
    const result: Record<string, z.ZodType> = {};
    for (const [wire, field] of entries) {
      const schema = pick(field);
      if (schema) result[wire] = schema.openapi({ description: field.description });
    }
    return result;
  };
  const columns = table as unknown as Record<string, PgColumn>;
  const selection = Object.fromEntries(
    entries.map(([wire, field]) => [wire, field.column ? columns[field.column] : (field.select as SQL)]),
  );
  return {
    createShape: shape((field) => field.create) as Picked<F, 'create'>,
    updateShape: shape((field) => field.update) as Picked<F, 'update'>,
    readShape: shape((field) => field.read) as Picked<F, 'read'>,
    selection,
    present(row) {
      const view: Record<string, unknown> = {};
      for (const [wire, field] of entries) {
        const present = field.present as ((value: unknown) => unknown) | undefined;
        view[wire] = present ? present(row[wire]) : row[wire];
      }
      return view as ReturnType<FieldTable<F>['present']>;
    },
    updateColumns: entries.flatMap(([wire, field]) => (field.update && field.column ? [[wire, field.column]] : [])),
    writableColumns: entries.flatMap(([wire, field]) =>
      (field.create || field.update) && field.column ? [[wire, field.column]] : [],
    ),
  };
}

/** The columns to set from a validated body: only the fields it gives (undefined leaves a field as it is). */
export function columnValues(
  writable: readonly [string, string][],
  input: Record<string, unknown>,
  skip: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [wire, column] of writable) {
    if (!skip.has(wire) && input[wire] !== undefined) values[column] = input[wire];
  }
  return values;
}
