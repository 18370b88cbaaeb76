/**
 * Spreadsheet headers → lead fields. Headers are compared case-insensitively after folding
 * spaces and punctuation to "_" ("First Name", "first-name", "FIRST_NAME" are one header), then
 * looked up among the aliases of the lead field table. `Name`/`Full Name` is split into first and last name when
 * those columns are absent. Columns our own export writes but a lead cannot set (id, score,
 * *_text labels, timestamps) are ignored, so an export re-imports cleanly; a `custom_fields`
 * column holding a JSON object is merged into custom fields; every other column becomes a
 * custom field named by its header.
 */
import { type LeadFieldName, leadFields } from '../leads';

/** The lead fields a spreadsheet column may set, and their header aliases: from the lead field table. */
export type LeadImportField = keyof typeof leadFields.importAliases;
const LEAD_IMPORT_ALIASES = leadFields.importAliases;
export const LEAD_IMPORT_FIELDS = Object.keys(LEAD_IMPORT_ALIASES) as LeadImportField[];

/** A Map, so a header named `constructor` or `__proto__` finds no field (an object would answer its prototype's). */
const ALIASES = new Map<string, LeadImportField>(
  LEAD_IMPORT_FIELDS.flatMap((field) => LEAD_IMPORT_ALIASES[field].map((alias) => [alias, field] as const)),
);

/** The column holding custom fields as one JSON object (our export writes it). */
const CUSTOM_FIELDS_COLUMN = 'custom_fields' satisfies LeadFieldName;
const FULL_NAME = new Set(['name', 'full_name', 'fullname', 'contact_name', 'lead_name']);
/** Read-only or derived fields (as our export writes them) and internal columns: never stored from a file. */
const IGNORED = new Set([
  ...(Object.keys(leadFields.spec) as LeadFieldName[]).filter(
    (field) => !Object.hasOwn(LEAD_IMPORT_ALIASES, field) && field !== CUSTOM_FIELDS_COLUMN,
  ),
  'deleted_at',
  'organization_id',
]);

export const MAX_CUSTOM_COLUMNS = 100;
const MAX_CUSTOM_KEY = 100;

export type ColumnPlan =
  | { kind: 'field'; field: LeadImportField }
  | { kind: 'full_name' }
  | { kind: 'custom_json' }
  | { kind: 'custom'; key: string }
  | { kind: 'ignore' };

export function normalizeHeader(header: string): string {
  return header
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** One plan per column, decided once from the header row. */
export function planColumns(headers: string[]): ColumnPlan[] {
  const taken = new Set<string>();
  let customColumns = 0;
  return headers.map((raw): ColumnPlan => {
    const header = raw.replace(/^\uFEFF/, '').trim();
    const normalized = normalizeHeader(header);
    if (!normalized || IGNORED.has(normalized)) return { kind: 'ignore' };
    const field = (LEAD_IMPORT_FIELDS as readonly string[]).includes(normalized)
      ? (normalized as LeadImportField)
      : ALIASES.get(normalized);
    if (field && !taken.has(field)) {
      taken.add(field);
      return { kind: 'field', field };
    }
    if (FULL_NAME.has(normalized) && !taken.has('full_name')) {
      taken.add('full_name');
      return { kind: 'full_name' };
    }
    if (normalized === CUSTOM_FIELDS_COLUMN && !taken.has(CUSTOM_FIELDS_COLUMN)) {
      taken.add(CUSTOM_FIELDS_COLUMN);
      return { kind: 'custom_json' };
    }
    const key = header.replace(/^custom_fields\./i, '').slice(0, MAX_CUSTOM_KEY);
    if (customColumns >= MAX_CUSTOM_COLUMNS || taken.has(`custom:${key}`)) return { kind: 'ignore' };
    customColumns++;
    taken.add(`custom:${key}`);
    return { kind: 'custom', key };
  });
}

export interface MappedRow {
  fields: Partial<Record<LeadImportField, string>>;
  customFields: Record<string, unknown>;
  /** Problems found while mapping (a custom_fields cell that is not a JSON object). */
  issues: { field: string; message: string }[];
}

/** Our CSV export guards formula-like text with a leading apostrophe; take it off again. */
const GUARDED_FORMULA = /^'[=+\-@\t\r]/;

/** Applies the plan to one row of cell text; empty cells are absent. */
export function mapRow(plan: ColumnPlan[], cells: string[]): MappedRow {
  const fields: MappedRow['fields'] = {};
  const customFields: Record<string, unknown> = {};
  const issues: MappedRow['issues'] = [];
  let fullName: string | undefined;
  plan.forEach((column, index) => {
    const trimmed = (cells[index] ?? '').trim();
    if (trimmed === '') return;
    const value = GUARDED_FORMULA.test(trimmed) ? trimmed.slice(1) : trimmed;
    switch (column.kind) {
      case 'field':
        fields[column.field] = value;
        break;
      case 'full_name':
        fullName = value;
        break;
      case 'custom':
        customFields[column.key] = value;
        break;
      case 'custom_json':
        try {
          const parsed: unknown = JSON.parse(value);
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
          Object.assign(customFields, parsed);
        } catch {
          issues.push({ field: 'custom_fields', message: 'must be a JSON object' });
        }
        break;
      case 'ignore':
        break;
    }
  });
  if (fullName && !fields.first_name && !fields.last_name) {
    const parts = fullName.split(/\s+/);
    fields.first_name = parts.length > 1 ? parts.slice(0, -1).join(' ') : parts[0];
    if (parts.length > 1) fields.last_name = parts[parts.length - 1];
  }
  return { fields, customFields, issues };
}
