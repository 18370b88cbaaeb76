/**
 * Columns of set-based writes (an insert or update from `jsonb_to_recordset`): each names its key
 * in the JSON records (a wire name, or the column key for internal columns), its SQL name and its
 * Postgres type, so a statement over any number of rows is written once from a field table's
 * column list (field-table.ts) rather than by naming columns.
 */
import { sql, type SQL } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ColumnKey } from './field-checks';

export interface ColumnRef {
  /** Key in JSON records (jsonb_to_recordset) and in the input: the wire name, or the column key for internal columns. */
  key: string;
  /** The drizzle key of the column. */
  column: string;
  /** Name of the column in SQL. */
  sqlName: string;
  /** Its Postgres type, for a jsonb_to_recordset column definition. */
  sqlType: string;
}

/** A table's column by its drizzle key, with the SQL name drizzle's snake_case casing gives it. */
export function tableColumn<T extends PgTable>(table: T, column: ColumnKey<T>, key: string = column): ColumnRef {
  const drizzleColumn = (table as unknown as Record<string, PgColumn>)[column];
  return {
    key,
    column,
    sqlName: drizzleColumn.keyAsName ? toSnakeCase(drizzleColumn.name) : drizzleColumn.name,
    sqlType: drizzleColumn.getSQLType(),
  };
}

/** `"first_name" text, "status" integer, …`: a jsonb_to_recordset column definition list. */
export function recordsetDefinition(columns: readonly ColumnRef[]): SQL {
  return sql.join(
    columns.map((column) => sql`${sql.identifier(column.key)} ${sql.raw(column.sqlType)}`),
    sql`, `,
  );
}

/** `"first_name", "status", …`: the SQL names, e.g. an insert's target list. */
export function columnList(columns: readonly ColumnRef[]): SQL {
  return sql.join(
    columns.map((column) => sql.identifier(column.sqlName)),
    sql`, `,
  );
}
