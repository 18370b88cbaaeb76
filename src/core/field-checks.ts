/**
 * The compile-time checks of a field table (field-table.ts), as types only. `defineFields` asks
 * its `fields` argument to also be `FieldTableProblems<…>`, which is `unknown` (no demand) when the
 * table is sound and otherwise an object type whose one property names the problem and whose
 * value lists the offending columns or fields, so tsc reports, for example,
 * `Property '"columns without a field (…)"' is missing … 'deletedAt'`.
 */
import type { z } from '@hono/zod-openapi';
import type { SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/** One cell of an export file. */
export type ExportCell = string | number | null;

/** The drizzle keys of a table's columns. */
export type ColumnKey<T extends PgTable> = keyof T['$inferSelect'] & string;

/** The type a field's selection yields: its column's, or its `select` expression's. */
export type SelectedOf<T extends PgTable, F> = F extends { column: infer K extends ColumnKey<T> }
  ? T['$inferSelect'][K]
  : F extends { select: SQL<infer S> }
    ? S
    : never;

/** The wire type of a field: the output of its `read` schema. */
export type WireOf<F> = F extends { read: infer R extends z.ZodType } ? z.output<R> : never;

/** The presenter takes what the selection yields and gives what `read` says (identity: the two agree). */
type PresentFits<T extends PgTable, F> = F extends { present: (value: infer P) => infer O }
  ? [SelectedOf<T, F>] extends [P]
    ? [O] extends [WireOf<F>]
      ? true
      : false
    : false
  : [SelectedOf<T, F>] extends [WireOf<F>]
    ? true
    : false;

/** `export: true` needs a wire value that is a cell; an export `cell` takes the wire value. */
type ExportFits<F> = F extends { export: true }
  ? [WireOf<F>] extends [ExportCell]
    ? true
    : false
  : F extends { export: { cell: (value: infer P) => ExportCell } }
    ? [WireOf<F>] extends [P]
      ? true
      : false
    : true;

/** The columns the fields read. */
export type MappedColumn<F> = { [W in keyof F]: F[W] extends { column: infer K } ? K : never }[keyof F];

/** The fields with an `export` entry. */
export type ExportableField<F> = { [W in keyof F]: F[W] extends { export: unknown } ? W : never }[keyof F] & string;

/** The fields with `importAliases`: those a spreadsheet column may set. */
export type ImportableField<F> = {
  [W in keyof F]: F[W] extends { importAliases: readonly string[] } ? W : never;
}[keyof F] &
  string;

/** `unknown` when nothing is named, else a property the argument lacks, naming what fails. */
type Problem<Label extends string, Names> = [Names] extends [never] ? unknown : { [K in Label]: Names };

type Failing<T extends PgTable, F, Fits extends 'present' | 'export'> = {
  [W in keyof F]: (Fits extends 'present' ? PresentFits<T, F[W]> : ExportFits<F[W]>) extends true ? never : W;
}[keyof F];

export type FieldTableProblems<
  T extends PgTable,
  F,
  Internal extends string,
  Order extends readonly string[] | undefined,
> = Problem<
  'columns without a field (add a field reading it, or list it in `internal`)',
  Exclude<ColumnKey<T>, MappedColumn<F> | Internal>
> &
  Problem<'internal columns that a field reads', Extract<MappedColumn<F>, Internal>> &
  Problem<'fields whose presenter does not take the selected type or give the read type', Failing<T, F, 'present'>> &
  Problem<'fields whose export cell does not fit the read type', Failing<T, F, 'export'>> &
  Problem<
    'exportable fields missing from `exportOrder`',
    Order extends readonly string[] ? Exclude<ExportableField<F>, Order[number]> : never
  >;
