/**
 * One field table per resource: each wire field, in wire order, names its column (or the SQL it
 * is derived from), its description (the OpenAPI document's only one), its response schema, how a
 * selected value is presented, its create/update schemas and how a write applies it, and
 * optionally how it is exported and which spreadsheet headers import into it. From the table come
 * the zod shapes, the selection (one `db.select`) and the presenter, the column lists of inserts,
 * updates and set-based merges, the export columns and the import aliases, so a field is added in
 * the table alone.
 *
 * The table is checked when it compiles (field-checks.ts): a column of the drizzle table that no
 * field reads and that `internal` does not list, a field naming a column the table lacks, a
 * presenter or export cell that does not fit its types, or an export order missing an exported
 * field are type errors at the `defineFields` call.
 */
import type { z } from '@hono/zod-openapi';
import { Column, is, SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type {
  ColumnKey,
  ExportableField,
  ExportCell,
  FieldTableProblems,
  ImportableField,
  SelectedOf,
} from './field-checks';
import { type ColumnRef, tableColumn } from './field-columns';

export type { ColumnKey, ExportCell } from './field-checks';

/**
 * How a write applies a given value (an omitted value never changes anything):
 * - `overwrite` (the default): replaces the stored value (on an import merge, only when the row has one);
 * - `resolved`: overwrite, but the module resolves the value in a step of its own (the lead's
 *   company link: `company_id` wins over `company`), so the generic update column list leaves it out;
 * - `merge_keys`: a JSON object merged key by key into the stored one (null removes a key on update);
 * - `relation`: ids of related records (no column): added on create and on an import merge, replacing them on update.
 */
export type WriteRule = 'overwrite' | 'resolved' | 'merge_keys' | 'relation';

/** A field is read from its column, or from a `select` expression when it is derived. */
type Source<T extends PgTable> = { column: ColumnKey<T>; select?: never } | { column?: never; select: SQL };

export type FieldSpec<T extends PgTable> = Source<T> & {
  description: string;
  /** The response schema. */
  read: z.ZodType;
  /** Selected value → wire value; identity when absent (then the selected type must fit `read`). */
  present?: (value: never) => unknown;
  /** Schema in the create body; absent: not settable on create. */
  create?: z.ZodType;
  /** Schema in the update body; absent: read-only after create. */
  update?: z.ZodType;
  /** How a create or update applies the value; `overwrite` when absent. */
  write?: WriteRule;
  /** Absent: not exported. `true`: the wire value is the cell, under the wire name. */
  export?: true | { header?: string; cell: (value: never) => ExportCell };
  /** Present: an import maps a column of the wire name or one of these (normalized) headers to the field. */
  importAliases?: readonly string[];
};

type Picked<F, K extends 'create' | 'update' | 'read'> = {
  [W in keyof F as F[W] extends { [P in K]: z.ZodType } ? W : never]: F[W] extends { [P in K]: infer S } ? S : never;
};

/** What `db.select(table.selection)` selects: each field's column or expression, under its wire name. */
export type Selection<T extends PgTable, F> = {
  [W in keyof F]: F[W] extends { column: infer K extends keyof T['_']['columns'] }
    ? T['_']['columns'][K]
    : F[W] extends { select: infer S }
      ? S
      : never;
};
/** A selected row, keyed by wire name. */
export type SelectedRow<T extends PgTable, F> = { [W in keyof F]: SelectedOf<T, F[W]> };
/** A row in its wire form. */
export type WireView<F> = { [W in keyof Picked<F, 'read'>]: z.output<Picked<F, 'read'>[W] & z.ZodType> };

export interface ExportColumn<E extends string> {
  field: E;
  header: string;
  /** Wire value → file cell. */
  cell: (value: unknown) => ExportCell;
}

type ExportField<F, O> = O extends readonly (infer E extends string)[] ? E : ExportableField<F>;

export interface FieldTable<T extends PgTable, F, O> {
  /** The table as declared. */
  spec: F;
  createShape: Picked<F, 'create'>;
  updateShape: Picked<F, 'update'>;
  readShape: Picked<F, 'read'>;
  /** Every field, for `db.select(selection)`. */
  selection: Selection<T, F>;
  /** Only these fields, for a narrower select. */
  selectionOf<const N extends keyof F & string>(names: readonly N[]): Pick<Selection<T, F>, N>;
  /** A selected row in its wire form. */
  present(row: Record<string, unknown>): WireView<F>;
  /** The wire value of one field of a selected row. */
  presentField(wire: keyof F & string, value: unknown): unknown;
  /** Update body key → column key of the stored fields an update overwrites as given. */
  updateColumns: [keyof Picked<F, 'update'> & string, ColumnKey<T>][];
  /** Wire name → column key of every stored field a create or an update may set. */
  writableColumns: [keyof F & string, ColumnKey<T>][];
  /** Stored fields a create (or an update) sets, by write rule (all rules when absent), in table order. */
  columns(on: 'create' | 'update', rules?: readonly WriteRule[]): ColumnRef[];
  /** The write rule of every writable field. */
  writeRules: Partial<Record<keyof F & string, WriteRule>>;
  /** The export file's columns: `exportOrder`, or the exported fields in table order. */
  exportColumns: ExportColumn<ExportField<F, O>>[];
  /** Only the exported fields. */
  exportSelection: Pick<Selection<T, F>, ExportField<F, O> & keyof F>;
  /** The fields a spreadsheet column may set, each with its header aliases. */
  importAliases: Record<ImportableField<F>, readonly string[]>;
}

export interface FieldTableOptions<I extends string, O> {
  /** Columns that are no field of the wire (scope, provenance, soft delete, derived flags). */
  internal: readonly I[];
  /** Export column order when it is not the table's; it must list every exported field. */
  exportOrder?: O;
}

export function defineFields<
  T extends PgTable,
  const F extends Record<string, FieldSpec<T>>,
  const I extends ColumnKey<T> = never,
  const O extends readonly ExportableField<F>[] | undefined = undefined,
>(table: T, fields: F & FieldTableProblems<T, F, I, O>, options: FieldTableOptions<I, O>): FieldTable<T, F, O> {
  const entries = Object.entries(fields as F) as [keyof F & string, FieldSpec<T>][];
  const spec = fields as Record<string, FieldSpec<T>>;
  const columns = table as unknown as Record<string, PgColumn>;
  const shape = (pick: (field: FieldSpec<T>) => z.ZodType | undefined) => {
    const result: Record<string, z.ZodType> = {};
    for (const [wire, field] of entries) {
      const schema = pick(field);
      if (schema) result[wire] = schema.openapi({ description: field.description });
    }
    return result;
  };
  const selectionOf = (names: readonly string[]) =>
    Object.fromEntries(names.map((wire) => [wire, spec[wire].column ? columns[spec[wire].column] : spec[wire].select]));
  const presentField = (wire: string, value: unknown) => {
    const present = spec[wire].present as ((selected: unknown) => unknown) | undefined;
    return present ? present(value) : value;
  };
  const ruleOf = (field: FieldSpec<T>): WriteRule => field.write ?? 'overwrite';
  const stored = (on: 'create' | 'update', rules?: readonly WriteRule[]) =>
    entries.filter(([, field]) => field.column && field[on] !== undefined && (!rules || rules.includes(ruleOf(field))));

  const exported = (options.exportOrder ??
    entries.filter(([, field]) => field.export).map(([wire]) => wire)) as string[];
  return {
    spec: fields as F,
    createShape: shape((field) => field.create) as Picked<F, 'create'>,
    updateShape: shape((field) => field.update) as Picked<F, 'update'>,
    readShape: shape((field) => field.read) as Picked<F, 'read'>,
    selection: selectionOf(entries.map(([wire]) => wire)) as Selection<T, F>,
    selectionOf: selectionOf as FieldTable<T, F, O>['selectionOf'],
    present(row) {
      const view: Record<string, unknown> = {};
      for (const [wire] of entries) view[wire] = presentField(wire, row[wire]);
      return view as WireView<F>;
    },
    presentField,
    updateColumns: stored('update', ['overwrite']).map(([wire, field]) => [wire, field.column]) as FieldTable<
      T,
      F,
      O
    >['updateColumns'],
    writableColumns: entries.flatMap(([wire, field]) =>
      (field.create || field.update) && field.column ? [[wire, field.column as ColumnKey<T>]] : [],
    ),
    columns: (on, rules) =>
      stored(on, rules).map(([wire, field]) => tableColumn(table, field.column as ColumnKey<T>, wire)),
    writeRules: Object.fromEntries(
      entries.flatMap(([wire, field]) => (field.create || field.update ? [[wire, ruleOf(field)]] : [])),
    ) as FieldTable<T, F, O>['writeRules'],
    exportColumns: exported.map((wire) => {
      const cell = spec[wire].export;
      return {
        field: wire as ExportField<F, O>,
        header: (cell !== true && cell?.header) || wire,
        cell:
          cell === true || cell === undefined
            ? (value) => value as ExportCell
            : (cell.cell as (value: unknown) => ExportCell),
      };
    }),
    exportSelection: selectionOf(exported) as FieldTable<T, F, O>['exportSelection'],
    importAliases: Object.fromEntries(
      entries.flatMap(([wire, field]) => (field.importAliases ? [[wire, field.importAliases]] : [])),
    ) as Record<ImportableField<F>, readonly string[]>,
  };
}

/**
 * The presenter of a column that holds only values its write schema accepted (a text column of an
 * enum, a jsonb column of a validated shape): the wire value is the stored one, typed as `read`
 * says. It is the one way a table states that narrowing, so the presenter check still holds
 * everywhere else.
 */
export function storedAs<Wire>(): (value: unknown) => Wire {
  return (value) => value as Wire;
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

/**
 * A selection (`db.select`'s fields: columns and SQL expressions) as the select list of a statement
 * written as text, each field `as "<prefix><field>"`: for reading rows back from a data-modifying
 * CTE's RETURNING, which a query builder cannot select from. A column renders qualified by its
 * table's name, so the rows are read from the CTE under that name (`from inserted as "leads"`).
 */
export function selectListSql(selection: Record<string, unknown>, prefix: string): SQL {
  return sql.join(
    Object.entries(selection).map(([key, field]) => sql`${field} as ${sql.identifier(`${prefix}${key}`)}`),
    sql`, `,
  );
}

/**
 * A row read by `selectListSql`, decoded field by field as drizzle decodes a select's rows (a
 * column's `mapFromDriverValue`, an expression's decoder), keyed by the selection's names.
 */
export function selectedRowFrom(
  selection: Record<string, unknown>,
  row: Record<string, unknown>,
  prefix: string,
): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(selection)) {
    const raw = row[`${prefix}${key}`];
    // An expression's decoder (`sql.mapWith`) is private to drizzle's types; its select reads it the same way.
    const decoder = is(field, Column)
      ? field
      : is(field, SQL)
        ? (field as unknown as { decoder: { mapFromDriverValue(value: unknown): unknown } }).decoder
        : null;
    decoded[key] = raw === null || raw === undefined || !decoder ? (raw ?? null) : decoder.mapFromDriverValue(raw);
  }
  return decoded;
}
