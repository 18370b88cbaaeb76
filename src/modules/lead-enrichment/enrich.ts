/**
 * Enriching one person (POST /api/lead-enrichment/enrich, and each bulk item): the organization's
 * provider (providers/enrichment/select.ts; local by default) builds a profile from what is known,
 * the profile is stored as a profile lead, and with a lead it is merged into the lead: into
 * `ai_information.enrichment` (every value with its source and time) and into the lead's EMPTY
 * firmographic fields only, never over a value a person set. A feed entry `enriched` lists the
 * fields filled (from/to), written by the fill's own statement, and the lead is rescored (its fit
 * may have changed).
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { companies, leads, profileLeads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { requestLeadScoring } from '../../jobs/scoring-request';
import type {
  CompanyMatch,
  EnrichedProfile,
  EnrichmentProvider,
  EnrichmentQuery,
} from '../../providers/enrichment/interface';
import { feedEntriesFrom } from '../feed';
import { presentProfileLead, type ProfileLeadView } from './present';

/** Lead columns an enrichment may fill when empty, by profile field. */
const FILLABLE = {
  job_title: 'jobTitle',
  industry: 'industry',
  website: 'website',
  country: 'country',
  city: 'city',
  state: 'state',
} as const;

type LeadRow = typeof leads.$inferSelect;

const isEmpty = (value: unknown) => value === null || value === undefined || value === '';

/** The lead's own data as a query, under what the caller sent (the caller's values win). */
function queryOf(input: EnrichmentQuery, lead: LeadRow | null): EnrichmentQuery {
  if (!lead) return input;
  return {
    email: input.email ?? lead.email,
    profile_url: input.profile_url ?? lead.profileUrl,
    name: input.name ?? `${lead.firstName} ${lead.lastName}`.trim(),
    company: input.company ?? lead.company,
    domain: input.domain ?? lead.website,
    phone_number: input.phone_number ?? lead.phoneNumber,
  };
}

/** The organization's live company at a domain (its website's domain). */
export function companyMatcher(ctx: Pick<TenantContext, 'db' | 'orgId'>) {
  return async (domain: string): Promise<CompanyMatch | null> => {
    const [row] = await ctx.db
      .select({
        id: companies.id,
        name: companies.companyName,
        industry: companies.industryType,
        country: companies.country,
        employeeSize: companies.employeeSize,
      })
      .from(companies)
      .where(tenantWhere(ctx, companies, eq(companies.websiteDomain, domain), isNull(companies.deletedAt)))
      .orderBy(companies.id)
      .limit(1);
    return row ?? null;
  };
}

/** A live lead of the organization (locked for the merge when `lock`); 404 otherwise. */
export async function readLeadForEnrichment(ctx: TenantContext, leadId: number, lock = false): Promise<LeadRow> {
  const query = ctx.db
    .select()
    .from(leads)
    .where(tenantWhere(ctx, leads, eq(leads.id, leadId), isNull(leads.deletedAt)));
  const [lead] = lock ? await query.for('update') : await query;
  if (!lead) throw new NotFound('Lead', leadId);
  return lead;
}

interface MergePlan {
  set: Record<string, unknown>;
  changes: Record<string, { from: unknown; to: unknown }>;
  filled: string[];
}

/** The lead's empty fields the profile can fill (never one a person set). */
function planMerge(lead: LeadRow, profile: EnrichedProfile): MergePlan {
  const set: Record<string, unknown> = {};
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, column] of Object.entries(FILLABLE) as [
    keyof typeof FILLABLE,
    (typeof FILLABLE)[keyof typeof FILLABLE],
  ][]) {
    const found = profile.fields[field];
    if (!found || !isEmpty(lead[column])) continue;
    set[column] = String(found.value);
    changes[field] = { from: lead[column] ?? null, to: found.value };
  }
  const company = profile.fields.company_id;
  if (company && lead.companyId === null && isEmpty(lead.company)) {
    set.companyId = Number(company.value);
    set.company = String(profile.fields.company?.value ?? '');
    changes.company = { from: lead.company ?? null, to: set.company };
  }
  return { set, changes, filled: Object.keys(changes) };
}

/** Writes the plan and the enrichment record on the lead, its feed entry, and asks for a rescoring. */
async function mergeIntoLead(
  ctx: TenantContext,
  lead: LeadRow,
  profile: EnrichedProfile,
  profileLeadId: number,
  plan: MergePlan,
) {
  const record = {
    provider: profile.provider,
    local: profile.local,
    profile_lead_id: profileLeadId,
    fields: profile.fields,
    filled: plan.filled,
    enriched_at: new Date().toISOString(),
  };
  // The fill and its feed entry in one statement (the lead is locked in this transaction, so the
  // plan's `from` values are the lead's as last committed).
  const update = ctx.db
    .update(leads)
    .set({
      ...plan.set,
      aiInformation: sql`jsonb_set(${leads.aiInformation}, '{enrichment}', ${JSON.stringify(record)}::jsonb)`,
      ...(plan.filled.length ? { updatedAt: sql`now()` } : {}),
    })
    .where(and(eq(leads.organizationId, ctx.orgId), eq(leads.id, lead.id)))
    .returning({ id: leads.id });
  const updated = ctx.db.$with('updated').as(update);
  const feed = ctx.db.$with('feed', {}).as(
    feedEntriesFrom(ctx, {
      from: sql`updated`,
      modelType: 'lead',
      modelId: sql`updated.id`,
      action: 'enriched',
      changes: sql`${JSON.stringify(plan.changes)}::jsonb`,
    }),
  );
  await ctx.db.with(updated, feed).select().from(updated);
  if (plan.filled.length) await requestLeadScoring(ctx, [lead.id]);
}

export interface EnrichOptions {
  lead: LeadRow | null;
  provider: EnrichmentProvider;
  /** A bulk item: its job and position (the profile lead's unique key). */
  job?: { id: number; item: number };
}

type ProviderCall = <T>(work: () => Promise<T>) => Promise<T>;

/** Asks the provider for a profile of the person (the lead's own data completing the input). */
export function enrichProfile(
  ctx: TenantContext,
  input: EnrichmentQuery,
  lead: LeadRow | null,
  provider: EnrichmentProvider,
  call: ProviderCall = (work) => work(),
  /** How the organization's companies are looked up (default: on `ctx.db`). */
  matchCompany: (domain: string) => Promise<CompanyMatch | null> = companyMatcher(ctx),
): Promise<EnrichedProfile> {
  const query = queryOf(input, lead);
  return call(() => provider.enrich(query, { matchCompany, now: new Date() }));
}

/** Stores the profile as a profile lead, and merges it into the lead (read locked, in this transaction) if any. */
export async function storeProfile(
  ctx: TenantContext,
  input: EnrichmentQuery,
  profile: EnrichedProfile,
  options: Pick<EnrichOptions, 'lead' | 'job'>,
): Promise<ProfileLeadView> {
  const value = (field: keyof EnrichedProfile['fields']) => {
    const found = profile.fields[field]?.value;
    return found === undefined || found === null ? null : String(found);
  };
  const plan = options.lead ? planMerge(options.lead, profile) : null;
  const fullName = [value('first_name'), value('last_name')].filter(Boolean).join(' ') || null;
  const [row] = await ctx.db
    .insert(profileLeads)
    .values({
      organizationId: ctx.orgId,
      leadId: options.lead?.id ?? null,
      provider: profile.provider,
      fullName,
      email: value('email'),
      company: value('company'),
      domain: value('company_domain'),
      profileUrl: value('profile_url'),
      input: input as Record<string, unknown>,
      profile: { local: profile.local, fields: profile.fields, filled: plan?.filled ?? [] },
      jobId: options.job?.id ?? null,
      jobItem: options.job?.item ?? null,
      createdBy: ctx.userId,
    })
    .returning();
  if (options.lead && plan) await mergeIntoLead(ctx, options.lead, profile, row.id, plan);
  return presentProfileLead(row);
}
