/**
 * Spreadsheet headers → lead fields. Headers are compared case-insensitively after folding
 * spaces and punctuation to "_" ("First Name", "first-name", "FIRST_NAME" are one header), then
 * looked up in a small alias table. `Name`/`Full Name` is split into first and last name when
 * those columns are absent. Columns our own export writes but a lead cannot set (id, score,
 * *_text labels, timestamps) are ignored, so an export re-imports cleanly; a `custom_fields`
 * column holding a JSON object is merged into custom fields; every other column becomes a
 * custom field named by its header.
 */

export const LEAD_IMPORT_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone_number',
  'company',
  'job_title',
  'industry',
  'website',
  'address',
  'city',
  'state',
  'country',
  'pin_code',
  'status',
  'priority',
  'lead_source',
  'estimated_value',
  'assigned_to',
  'profile_url',
  'tags',
  'notes',
] as const;

export type LeadImportField = (typeof LEAD_IMPORT_FIELDS)[number];

const ALIASES: Record<string, LeadImportField> = {
  firstname: 'first_name', first: 'first_name', given_name: 'first_name', forename: 'first_name',
  lastname: 'last_name', last: 'last_name', surname: 'last_name', family_name: 'last_name',
  email_address: 'email', e_mail: 'email', mail: 'email', email_id: 'email', work_email: 'email',
  phone: 'phone_number', phone_no: 'phone_number', telephone: 'phone_number', tel: 'phone_number', mobile: 'phone_number',
  mobile_number: 'phone_number', mobile_phone: 'phone_number', cell: 'phone_number', contact_number: 'phone_number',
  company_name: 'company', organization: 'company', organisation: 'company', account_name: 'company', employer: 'company',
  title: 'job_title', position: 'job_title', designation: 'job_title',
  web_site: 'website', homepage: 'website', url: 'website',
  street: 'address', street_address: 'address', address_line_1: 'address',
  town: 'city', province: 'state', region: 'state', state_province: 'state',
  pincode: 'pin_code', zip: 'pin_code', zip_code: 'pin_code', zipcode: 'pin_code', postal_code: 'pin_code', postcode: 'pin_code',
  lead_status: 'status', source: 'lead_source', value: 'estimated_value', deal_value: 'estimated_value',
  owner_id: 'assigned_to', assigned_user_id: 'assigned_to', profile: 'profile_url', tag: 'tags',
  note: 'notes', comments: 'notes', comment: 'notes', description: 'notes',
};

const FULL_NAME = new Set(['name', 'full_name', 'fullname', 'contact_name', 'lead_name']);
/** Read-only or derived columns (as our export writes them): never stored from a file. */
const IGNORED = new Set([
  'id', 'score', 'status_text', 'priority_text', 'lead_source_text', 'company_id', 'created_at', 'updated_at',
  'last_activity_at', 'ai_information', 'deleted_at', 'organization_id',
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
    const field = (LEAD_IMPORT_FIELDS as readonly string[]).includes(normalized) ? (normalized as LeadImportField) : ALIASES[normalized];
    if (field && !taken.has(field)) {
      taken.add(field);
      return { kind: 'field', field };
    }
    if (FULL_NAME.has(normalized) && !taken.has('full_name')) {
      taken.add('full_name');
      return { kind: 'full_name' };
    }
    if (normalized === 'custom_fields' && !taken.has('custom_fields')) {
      taken.add('custom_fields');
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
