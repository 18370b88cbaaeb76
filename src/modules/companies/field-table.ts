/**
 * The field-table pattern of the leads module (leads/fields.ts), for the smaller records of the
 * accounts modules (companies, contacts): one table per resource names each wire field's column
 * (or derived `select`), its description, its response schema, its create/update schemas and its
 * presenter; the zod shapes, the selection, the presenter and the update's column list all derive
 * from it, so a field is added in its table alone.
 */
import type { z } from '@hono/zod-openapi';
import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

type Source<K extends string> = { column: K; select?: never } | { column?: never; select: SQL };

export type FieldSpec<K extends string> = Source<K> & {
  description: string;
  read: z.ZodType;
  /** Selected value → wire value; identity when absent. */
  present?: (value: never) => unknown;
  /** Absent: read-only. `create` absent: cannot be given on create. */
  write?: { create?: z.ZodType; update: z.ZodType };
};

type CreateSchema<F> = F extends { write: { create: infer S extends z.ZodType } } ? S : never;
type UpdateSchema<F> = F extends { write: { update: infer S extends z.ZodType } } ? S : never;
type ReadSchema<F> = F extends { read: infer S extends z.ZodType } ? S : never;

export type CreateShape<T> = {
  [W in keyof T as [CreateSchema<T[W]>] extends [never] ? never : W]: CreateSchema<T[W]>;
};
export type UpdateShape<T> = {
  [W in keyof T as [UpdateSchema<T[W]>] extends [never] ? never : W]: UpdateSchema<T[W]>;
};
export type ReadShape<T> = { [W in keyof T]: ReadSchema<T[W]> };

type Columns = Record<string, PgColumn>;
type ColumnsOf<TB extends PgTable> = TB['_']['columns'];

export type Selection<T, C extends Columns> = {
  [W in keyof T]: T[W] extends { column: infer K extends keyof C }
    ? C[K]
    : T[W] extends { select: infer S }
      ? S
      : never;
};

/** What a field table gives its module. */
export function deriveFields<
  TB extends PgTable,
  const T extends Record<string, FieldSpec<keyof ColumnsOf<TB> & string>>,
>(table: TB, fields: T) {
  type Key = keyof ColumnsOf<TB> & string;
  const columns = table as unknown as Columns;
  const entries = Object.entries(fields) as [keyof T & string, FieldSpec<Key>][];
  const shapeOf = <Shape>(pick: (field: FieldSpec<Key>) => z.ZodType | undefined): Shape => {
    const shape: Record<string, z.ZodType> = {};
    for (const [wire, field] of entries) {
      const schema = pick(field);
      if (schema) shape[wire] = schema.openapi({ description: field.description });
    }
    return shape as Shape;
  };
  const selection = Object.fromEntries(
    entries.map(([wire, field]) => [wire, field.column ? columns[field.column] : (field.select as SQL)]),
  ) as Selection<T, ColumnsOf<TB>>;

  return {
    createShape: shapeOf<CreateShape<T>>((field) => field.write?.create),
    updateShape: shapeOf<UpdateShape<T>>((field) => field.write?.update),
    readShape: shapeOf<ReadShape<T>>((field) => field.read),
    /** Every field, for `db.select(selection)`. */
    selection,
    /** A selected row in its wire form. */
    present(row: Record<string, unknown>): { [W in keyof T]: z.output<ReadSchema<T[W]>> } {
      const view: Record<string, unknown> = {};
      for (const [wire, field] of entries) {
        const present = field.present as ((value: unknown) => unknown) | undefined;
        view[wire] = present ? present(row[wire]) : row[wire];
      }
      return view as { [W in keyof T]: z.output<ReadSchema<T[W]>> };
    },
    /** [wire name, column key] of every stored writable field: what an insert or update may set. */
    writableColumns: entries.flatMap(([wire, field]) =>
      field.column && field.write ? [[wire, field.column] as [string, Key]] : [],
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
