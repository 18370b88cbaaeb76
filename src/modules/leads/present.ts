/**
 * Reading leads in their wire form: one select (derived from the field table) resolves
 * status_text, priority_text, lead_source_text (from the organization's lookups, inactive ones
 * included, so old records stay readable) and tags as {id, name, color}, for any number of leads.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { leads } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { diffFields } from '../feed';
import { type LeadRow, leadFields } from './fields';
import { leadFilterWhere } from './filters';
import type { LeadView } from './schemas';

export type { LeadRow } from './fields';
/** Every field of the Lead, for `db.select(leadSelection)`; status/priority/source labels and tags resolved in the same statement. */
export const leadSelection = leadFields.selection;

/** A selected row in its wire form, field by field as the field table says. */
export function presentLead(row: LeadRow): LeadView {
  return leadFields.present(row);
}

/** Live leads of the organization with these ids, in id order. */
export async function readLeads(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>,
  ids: number[],
): Promise<LeadView[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.db
    .select(leadSelection)
    .from(leads)
    .where(and(leadFilterWhere(ctx, {}), inArray(leads.id, ids)))
    .orderBy(leads.id);
  return rows.map(presentLead);
}

export async function readLead(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, id: number): Promise<LeadView> {
  const [row] = await ctx.db
    .select(leadSelection)
    .from(leads)
    .where(and(leadFilterWhere(ctx, {}), eq(leads.id, id)));
  if (!row) throw new NotFound('Lead', id);
  return presentLead(row);
}

/** The same, locking the lead's row until the transaction ends (a writer's read of the lead before its change). */
export async function readLeadForUpdate(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>,
  id: number,
): Promise<LeadView> {
  const [row] = await ctx.db
    .select(leadSelection)
    .from(leads)
    .where(and(leadFilterWhere(ctx, {}), eq(leads.id, id)))
    .for('update', { of: leads });
  if (!row) throw new NotFound('Lead', id);
  return presentLead(row);
}

const derivedFields = new Set(['updated_at', 'status_text', 'priority_text', 'lead_source_text']);

/** Before/after of the fields a write changed, for the activity feed (labels and timestamps left out). */
export function leadChanges(before: LeadView, after: LeadView): Record<string, { from: unknown; to: unknown }> {
  const changes = diffFields(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>);
  for (const key of Object.keys(changes)) if (derivedFields.has(key)) delete changes[key];
  return changes;
}
