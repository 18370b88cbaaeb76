/**
 * The leads' facts the draft prompts use, read in one statement; a lead that is deleted or of
 * another organization is absent (the caller answers 404).
 */
import { and, inArray, isNull } from 'drizzle-orm';
import { leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import type { LeadFacts } from './prompts/lead-context';

const factColumns = {
  id: leads.id,
  first_name: leads.firstName,
  last_name: leads.lastName,
  email: leads.email,
  company: leads.company,
  job_title: leads.jobTitle,
  industry: leads.industry,
  city: leads.city,
  country: leads.country,
};

export async function leadFacts(
  ctx: Pick<TenantContext, 'db' | 'orgId'>,
  leadIds: number[],
): Promise<Map<number, LeadFacts>> {
  if (leadIds.length === 0) return new Map();
  const rows = await ctx.db
    .select(factColumns)
    .from(leads)
    .where(tenantWhere(ctx, leads, and(inArray(leads.id, leadIds), isNull(leads.deletedAt))));
  return new Map(rows.map((row) => [row.id, row]));
}

export async function oneLeadFacts(ctx: Pick<TenantContext, 'db' | 'orgId'>, leadId: number): Promise<LeadFacts> {
  const lead = (await leadFacts(ctx, [leadId])).get(leadId);
  if (!lead) throw new NotFound('Lead', leadId);
  return lead;
}
