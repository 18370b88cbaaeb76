/**
 * One spreadsheet row → a validated `AddLeadInput`, by the same rules as POST /api/lead/add
 * (AddLeadBody). Before validation, the cells that a person types as words are turned into
 * what the API stores: a status, priority or source given by its label ("Qualified", "High",
 * "Website") becomes its lookup value, and tags given by name ("VIP, Partner") become the ids
 * of the organization's tag lookups. Numbers pass through unchanged.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { lookups } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { badCharacterPath } from '../../core/text-guard';
import { AddLeadBody, type AddLeadInput } from '../leads';
import { LEAD_LOOKUP_MODULE } from '../lookups';
import { mapRow, type ColumnPlan } from './header-mapping';

/** The organization's lead lookups as (lower-cased label → stored number). */
export interface LookupLabels {
  status: Map<string, number>;
  priority: Map<string, number>;
  lead_source: Map<string, number>;
  /** Tag name → lookup id (tags are referenced by id, the others by value). */
  tags: Map<string, number>;
}

const LABELLED_TYPES = { status: 'status', priority: 'priority', source: 'lead_source' } as const;

export async function loadLookupLabels(ctx: Pick<TenantContext, 'db' | 'orgId'>): Promise<LookupLabels> {
  const rows = await ctx.db
    .select({ id: lookups.id, type: lookups.type, name: lookups.name, value: lookups.value })
    .from(lookups)
    .where(
      tenantWhere(
        ctx,
        lookups,
        and(
          eq(lookups.moduleName, LEAD_LOOKUP_MODULE),
          inArray(lookups.type, [...Object.keys(LABELLED_TYPES), 'tags']),
        ),
      ),
    );
  const labels: LookupLabels = { status: new Map(), priority: new Map(), lead_source: new Map(), tags: new Map() };
  for (const row of rows) {
    const key = row.name.trim().toLowerCase();
    if (row.type === 'tags') {
      if (!labels.tags.has(key)) labels.tags.set(key, row.id);
      continue;
    }
    const target = labels[LABELLED_TYPES[row.type as keyof typeof LABELLED_TYPES]];
    if (target && row.value !== null && !target.has(key)) target.set(key, row.value);
  }
  return labels;
}

export interface RowIssue {
  field: string;
  message: string;
}

export type RowInput = { ok: true; input: AddLeadInput } | { ok: false; issues: RowIssue[] };

const MAX_ISSUES_PER_ROW = 10;

/** A number as is, or a label's value; an unknown label is an issue and leaves the field out. */
function resolveLabel(
  value: string,
  labels: Map<string, number>,
  field: string,
  issues: RowIssue[],
): string | number | undefined {
  if (/^\d+$/.test(value)) return value;
  const resolved = labels.get(value.toLowerCase());
  if (resolved === undefined)
    issues.push({ field, message: `"${value.slice(0, 100)}" is not a ${field.replace('_', ' ')} of the organization` });
  return resolved;
}

function resolveTags(value: string, labels: Map<string, number>, issues: RowIssue[]): number[] {
  const ids: number[] = [];
  for (const part of value.split(/[,;|]/)) {
    const token = part.trim();
    if (!token) continue;
    const id = /^\d+$/.test(token) ? Number(token) : labels.get(token.toLowerCase());
    if (id === undefined) issues.push({ field: 'tags', message: `unknown tag "${token.slice(0, 100)}"` });
    else if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

export function rowToLeadInput(plan: ColumnPlan[], cells: string[], labels: LookupLabels): RowInput {
  const mapped = mapRow(plan, cells);
  const issues: RowIssue[] = [...mapped.issues];
  const { status, priority, lead_source, tags, ...text } = mapped.fields;
  const candidate: Record<string, unknown> = { ...text };
  if (status !== undefined) candidate.status = resolveLabel(status, labels.status, 'status', issues);
  if (priority !== undefined) candidate.priority = resolveLabel(priority, labels.priority, 'priority', issues);
  if (lead_source !== undefined)
    candidate.lead_source = resolveLabel(lead_source, labels.lead_source, 'lead_source', issues);
  if (tags !== undefined) candidate.tags = resolveTags(tags, labels.tags, issues);
  if (Object.keys(mapped.customFields).length > 0) candidate.custom_fields = mapped.customFields;
  // Postgres stores no NUL (nor an unpaired surrogate): such a cell is this row's error, not the batch's failure.
  const bad = badCharacterPath(candidate);
  if (bad) issues.push({ field: bad.path, message: bad.message });
  const parsed = AddLeadBody.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.push({ field: issue.path.length > 0 ? issue.path.map(String).join('.') : 'row', message: issue.message });
    }
  }
  if (issues.length > 0 || !parsed.success) return { ok: false, issues: issues.slice(0, MAX_ISSUES_PER_ROW) };
  return { ok: true, input: parsed.data };
}
