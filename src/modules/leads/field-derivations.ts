/**
 * What the lead field table (fields.ts) gives the rest of the code: zod shapes, the selection
 * and the presenter, the column lists of the set-based writes (insert, import merge, update),
 * the export columns and the import aliases. Nothing here names a field; a field is added in
 * the table alone.
 */
import type { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { leads } from '../../db/schema';
import {
  type ExportCell,
  type LeadColumnKey,
  type LeadFieldName,
  type LeadFields,
  type LeadFieldSpec,
  LEAD_EXPORT_ORDER,
  leadFields,
  type SelectedOf,
  type WriteRule,
} from './fields';

const entries = Object.entries(leadFields) as [LeadFieldName, LeadFieldSpec][];

// ---- zod shapes (schemas.ts wraps them in z.object(...).openapi(name)) ----

type CreateSchema<F> = F extends { write: { create: infer S extends z.ZodType } } ? S : never;
type UpdateSchema<F> = F extends { write: { update: infer S extends z.ZodType } } ? S : never;
type ReadSchema<F> = F extends { read: infer S extends z.ZodType } ? S : never;
export type CreateShape = {
  [W in LeadFieldName as [CreateSchema<LeadFields[W]>] extends [never] ? never : W]: CreateSchema<LeadFields[W]>;
};
export type UpdateShape = {
  [W in LeadFieldName as [UpdateSchema<LeadFields[W]>] extends [never] ? never : W]: UpdateSchema<LeadFields[W]>;
};
export type ReadShape = { [W in LeadFieldName]: ReadSchema<LeadFields[W]> };

/** The fields `pick` gives a schema for, in table order, each carrying the field's description. */
function shapeOf<Shape>(pick: (field: LeadFieldSpec) => z.ZodType | undefined): Shape {
  const shape: Record<string, z.ZodType> = {};
  for (const [wire, field] of entries) {
    const schema = pick(field);
    if (schema) shape[wire] = schema.openapi({ description: field.description });
  }
  return shape as Shape;
}

export const leadCreateShape = shapeOf<CreateShape>((field) => field.write?.create);
export const leadUpdateShape = shapeOf<UpdateShape>((field) => field.write?.update);
export const leadReadShape = shapeOf<ReadShape>((field) => field.read);

// ---- reading: selection and presenter ----

type Selection = {
  [W in LeadFieldName]: LeadFields[W] extends { column: infer K extends LeadColumnKey }
    ? (typeof leads)[K]
    : LeadFields[W] extends { select: infer S }
      ? S
      : never;
};
/** A selected row, keyed by wire name. */
export type LeadRow = { [W in LeadFieldName]: SelectedOf<LeadFields[W]> };

function selectionOf(names: readonly LeadFieldName[]): Record<string, SQL | (typeof leads)[LeadColumnKey]> {
  const spec: Record<string, LeadFieldSpec> = leadFields;
  return Object.fromEntries(
    names.map((wire) => [wire, spec[wire].column ? leads[spec[wire].column] : (spec[wire].select as SQL)]),
  );
}

/** Every field of the Lead, for `db.select(leadSelection)`; status/priority/source labels and tags resolved in the same statement. */
export const leadSelection = selectionOf(entries.map(([wire]) => wire)) as Selection;

/** The wire value of one field of a selected row. */
export function presentField(wire: LeadFieldName, value: unknown): unknown {
  const present = (leadFields[wire] as LeadFieldSpec).present as ((selected: unknown) => unknown) | undefined;
  return present ? present(value) : value;
}

// ---- writing: column lists for set-based statements ----

export interface LeadColumnRef {
  /** Key in JSON records (jsonb_to_recordset) and in the input: the wire name, or the column key for internal columns. */
  key: string;
  /** Name of the column in SQL. */
  sqlName: string;
  /** Its Postgres type, for a jsonb_to_recordset column definition. */
  sqlType: string;
}

/** A leads column by its drizzle key, with the SQL name drizzle's snake_case casing gives it. */
export function leadColumn(column: LeadColumnKey, key: string = column): LeadColumnRef {
  const drizzleColumn = leads[column];
  return {
    key,
    sqlName: drizzleColumn.keyAsName ? toSnakeCase(drizzleColumn.name) : drizzleColumn.name,
    sqlType: drizzleColumn.getSQLType(),
  };
}

const storedWritable = (accept: (field: LeadFieldSpec) => boolean): LeadColumnRef[] =>
  entries.flatMap(([wire, field]) =>
    field.column && field.write && accept(field) ? [leadColumn(field.column, wire)] : [],
  );

const rule = (field: LeadFieldSpec): WriteRule | undefined => field.write?.rule;

/** Stored fields a create sets (tags are a relation, not a column), in table order. */
export const LEAD_CREATE_COLUMNS = storedWritable((field) => field.write?.create !== undefined);
/** Stored fields an import merge overwrites when the row gives a value. */
export const LEAD_MERGE_OVERWRITE_COLUMNS = storedWritable(
  (field) => field.write?.create !== undefined && (rule(field) === 'overwrite' || rule(field) === 'company_link'),
);
/** Stored JSON fields a create sets and an import merge merges key by key. */
export const LEAD_MERGE_KEYS_COLUMNS = storedWritable(
  (field) => field.write?.create !== undefined && rule(field) === 'merge_keys',
);
/** Update: [wire name, drizzle key] of the stored fields a write applies by `rule` (company links and tags have their own steps). */
export function updateColumns(by: 'overwrite' | 'merge_keys'): [keyof UpdateShape, LeadColumnKey][] {
  return entries.flatMap(([wire, field]) =>
    field.column && field.write && rule(field) === by ? [[wire as keyof UpdateShape, field.column]] : [],
  );
}
/** Wire names of the fields folded by rule when several rows merge (`merge_keys`, `tags`; anything else: later wins). */
export const LEAD_FOLD_RULES = Object.fromEntries(
  entries.flatMap(([wire, field]) => (field.write ? [[wire, field.write.rule]] : [])),
) as Partial<Record<LeadFieldName, WriteRule>>;

/** `"first_name" text, "status" integer, …`: a jsonb_to_recordset column definition list. */
export function recordsetDefinition(columns: readonly LeadColumnRef[]): SQL {
  return sql.join(
    columns.map((column) => sql`${sql.identifier(column.key)} ${sql.raw(column.sqlType)}`),
    sql`, `,
  );
}

/** `"first_name", "status", …`: the SQL names, e.g. an insert's target list. */
export function columnList(columns: readonly LeadColumnRef[]): SQL {
  return sql.join(
    columns.map((column) => sql.identifier(column.sqlName)),
    sql`, `,
  );
}

/** `r."first_name", r."status", …`: the record keys of `alias`, e.g. an insert's select list. */
export function recordColumns(alias: string, columns: readonly LeadColumnRef[]): SQL {
  return sql.join(
    columns.map((column) => sql`${sql.identifier(alias)}.${sql.identifier(column.key)}`),
    sql`, `,
  );
}

// ---- export and import ----

export type LeadExportField = (typeof LEAD_EXPORT_ORDER)[number];

export interface LeadExportColumn {
  field: LeadExportField;
  header: string;
  /** Wire value → file cell. */
  cell: (value: unknown) => ExportCell;
}

export const LEAD_EXPORT_COLUMNS: LeadExportColumn[] = LEAD_EXPORT_ORDER.map((wire) => {
  const exported = (leadFields[wire] as LeadFieldSpec).export;
  if (exported === true || exported === undefined)
    return { field: wire, header: wire, cell: (value) => value as ExportCell };
  return { field: wire, header: exported.header ?? wire, cell: exported.cell as (value: unknown) => ExportCell };
});

/** Only the exported fields (ai_information, for one, can be large and is not exported). */
export const leadExportSelection = selectionOf(LEAD_EXPORT_ORDER) as Pick<Selection, LeadExportField>;

export type LeadImportField = {
  [W in LeadFieldName]: LeadFields[W] extends { importAliases: readonly string[] } ? W : never;
}[LeadFieldName];

/** Fields a spreadsheet column may set, each with its header aliases. */
export const LEAD_IMPORT_ALIASES = Object.fromEntries(
  entries.flatMap(([wire, field]) => (field.importAliases ? [[wire, field.importAliases]] : [])),
) as Record<LeadImportField, readonly string[]>;
