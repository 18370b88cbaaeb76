/**
 * Lead enrichment as the routes see it: one enrichment answered at once, a bulk job started
 * through the outbox, a job's progress with its per-item results, and the stored profile leads.
 */
import type { z } from '@hono/zod-openapi';
import { and, asc, eq, ilike, or, type SQL } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { commitWithNextStatement, type Database } from '../../db/client';
import { leadEnrichmentItems, leadEnrichmentJobs, profileLeads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { insertJob } from '../../jobs/outbox';
import { callProvider } from '../../providers/calls';
import { requestWriter, requireUsable } from '../../providers/connections';
import { enrichmentConnection, enrichmentProviderFor } from '../../providers/enrichment/select';
import { creditBalance, insufficientCredits, priceOf, refundCredits, reserveCredits, settleCredits } from '../credits';
import { enrichProfile, readLeadForEnrichment, storeProfile } from './enrich';
import { presentProfileLead } from './present';
import { type EnrichInput, ProfileLeadFilters } from './schemas';

/** POST /api/lead-enrichment/enrich: the profile, stored as a profile lead (merged into the lead, if named). */
export async function enrichOne(ctx: TenantContext, env: Bindings, input: EnrichInput) {
  const { lead_id: leadId, ...query } = input;
  // Read first, call the provider with no transaction open (a refused key is recorded on its own
  // connection meanwhile), then write in one transaction with the lead locked and read again.
  const [lead, connection] = await Promise.all([
    leadId !== undefined ? readLeadForEnrichment(ctx, leadId) : null,
    enrichmentConnection(ctx.db, ctx.orgId),
  ]);
  const chosen = await enrichmentProviderFor(env, connection);
  const call = <T>(work: () => Promise<T>) =>
    connection ? callProvider(requestWriter(env), requireUsable(connection), 'enrichment', work) : work();
  // Paid before the work (402 with nothing done), settled with the writes, refunded if they fail.
  // On a request's transaction (a request with an Idempotency-Key runs in one) a reservation holds
  // the organization's credits lock until the request commits: there the balance is checked first,
  // the provider asked with no lock held, and the reservation written with the profile (a failure
  // rolls it all back).
  const onTransaction = 'rollback' in ctx.db;
  if (onTransaction) {
    const balance = await creditBalance(ctx);
    if (balance < priceOf('enrichment_single')) {
      throw insufficientCredits('enrichment_single', priceOf('enrichment_single'), balance);
    }
  }
  const reserve = (on: TenantContext) =>
    reserveCredits(on, { feature: 'enrichment_single', idempotencyKey: `enrichment_single:${crypto.randomUUID()}` });
  const reservation = onTransaction ? null : await reserve(ctx);
  try {
    const profile = await enrichProfile(ctx, query, lead, chosen.provider, call);
    return await ctx.db.transaction(async (tx) => {
      const inTransaction = { ...ctx, db: tx };
      const locked = leadId !== undefined ? await readLeadForEnrichment(inTransaction, leadId, true) : null;
      const held = reservation ?? (await reserve(inTransaction));
      const stored = await storeProfile(inTransaction, query, profile, { lead: locked });
      // The settlement is the transaction's last statement: one of its own commits with it (on the
      // request's transaction this is a savepoint, and the request goes on).
      if (!onTransaction) commitWithNextStatement(ctx.db as Database);
      await settleCredits(inTransaction, held.id);
      return stored;
    });
  } catch (error) {
    if (reservation) await refundCredits(ctx, reservation.id, 'the enrichment failed');
    throw error;
  }
}

type JobRow = typeof leadEnrichmentJobs.$inferSelect;
type ItemRow = typeof leadEnrichmentItems.$inferSelect;

function presentJob(job: JobRow, items: ItemRow[]) {
  return {
    id: Number(job.id),
    status: job.status as 'queued' | 'running' | 'completed' | 'failed',
    group_id: job.groupId === null ? null : Number(job.groupId),
    total: job.total,
    processed: job.processed,
    succeeded: job.succeeded,
    failed: job.failed,
    percentage: job.status === 'completed' ? 100 : job.total ? Math.floor((100 * job.processed) / job.total) : 0,
    items: items.map((item) => ({
      item: item.item,
      status: item.status as 'completed' | 'failed',
      profile_lead_id: item.profileLeadId === null ? null : Number(item.profileLeadId),
      error: item.error,
    })),
    error: job.error,
    created_by: job.createdBy === null ? null : Number(job.createdBy),
    started_at: isoTimestamp(job.startedAt),
    finished_at: isoTimestamp(job.finishedAt),
    created_at: isoTimestamp(job.createdAt) as string,
  };
}

/** POST /api/lead-enrichment/enrich/bulk: the job and its outbox message, in the request's transaction. */
export async function startBulkEnrichment(
  ctx: TenantContext,
  input: { leads: Record<string, unknown>[]; group_id?: number },
) {
  // Each item is charged when the job reaches it; a balance that cannot cover them all refuses the job now.
  const price = priceOf('enrichment_bulk_item') * input.leads.length;
  const balance = await creditBalance(ctx);
  if (balance < price) throw insufficientCredits('enrichment_bulk_item', price, balance);
  // The job with its outbox message, the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const job = await insertJob(ctx, 'lead-enrichment', leadEnrichmentJobs, {
    organizationId: ctx.orgId,
    groupId: input.group_id ?? null,
    items: input.leads,
    total: input.leads.length,
    createdBy: ctx.userId,
  });
  return presentJob(job, []);
}

/** GET /api/lead-enrichment/job/{jobId}: progress and per-item results; another organization's job is a 404. */
export async function readEnrichmentJob(ctx: TenantContext, jobId: number) {
  const [job] = await ctx.db
    .select()
    .from(leadEnrichmentJobs)
    .where(tenantWhere(ctx, leadEnrichmentJobs, eq(leadEnrichmentJobs.id, jobId)));
  if (!job) throw new NotFound('Enrichment job', jobId);
  const items = await ctx.db
    .select()
    .from(leadEnrichmentItems)
    .where(tenantWhere(ctx, leadEnrichmentItems, eq(leadEnrichmentItems.jobId, jobId)))
    .orderBy(asc(leadEnrichmentItems.item));
  return presentJob(job, items);
}

function searchProfiles(term: string): SQL {
  const pattern = containsPattern(term);
  return or(
    ilike(profileLeads.fullName, pattern),
    ilike(profileLeads.email, pattern),
    ilike(profileLeads.company, pattern),
    ilike(profileLeads.domain, pattern),
  ) as SQL;
}

const profileLeadList = defineList({
  sort: { id: profileLeads.id, created_at: profileLeads.createdAt },
  filters: ProfileLeadFilters,
  search: (term) => searchProfiles(term),
  createdAt: profileLeads.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ row: profileLeads, ...columns })
        .from(profileLeads)
        .$dynamic(),
    where: and(tenantWhere(ctx, profileLeads), params.search ? searchProfiles(params.search) : undefined),
  }),
  present: (row) => presentProfileLead(row.row),
});

export const ProfileLeadListQuery = profileLeadList.query;

/** GET /api/lead-enrichment/profile-leads/recent: newest first by default. */
export function listProfileLeads(ctx: TenantContext, params: z.output<typeof ProfileLeadListQuery>) {
  return profileLeadList.run(ctx, params);
}

/** GET /api/lead-enrichment/profile-leads/{id}; another organization's is a 404. */
export async function readProfileLead(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select()
    .from(profileLeads)
    .where(tenantWhere(ctx, profileLeads, eq(profileLeads.id, id)));
  if (!row) throw new NotFound('Profile lead', id);
  return presentProfileLead(row);
}
