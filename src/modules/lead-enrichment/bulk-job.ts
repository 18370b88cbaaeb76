/**
 * The queue consumer's side of a bulk enrichment (job kind 'lead-enrichment'). Items are worked
 * in chunks of CHUNK: the provider is asked for the chunk's profiles first (no credits reserved,
 * so no lock on the organization's credits), then one transaction writes every item's outcome (a
 * row of lead_enrichment_items, unique per job and item) with its charge, moves the job's counters
 * and renews its lease.
 * An item the provider refuses, or whose input it cannot use, is an item error; the others
 * complete. A provider that is down or throttling (429, 5xx) fails the delivery, which the queue
 * retries: the chunk rolled back, earlier chunks stay, and items with an outcome are never
 * enriched again. A refused key marks the connection needs_reconnect and fails the job.
 */
import { and, eq, sql } from 'drizzle-orm';
import { errorText, log } from '../../core/log';
import { type Database, type Transaction, withTenant } from '../../db/client';
import { leadEnrichmentItems, leadEnrichmentJobs } from '../../db/schema';
import type { Bindings } from '../../env';
import { PermanentJobFault, retryUnlessPermanent } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import {
  claimJob,
  finishJob,
  heartbeat,
  type JobRef,
  type JobSpec,
  jobTenantContext,
  lockRunningJob,
} from '../../jobs/lifecycle';
import { withTenantEffects } from '../../core/transaction-effects';
import { type ConnectionRow, markNeedsReconnect, poolWriter } from '../../providers/connections';
import { ProviderFailure } from '../../providers/failures';
import { enrichmentConnection, enrichmentProviderFor } from '../../providers/enrichment/select';
import { ApiError } from '../../core/errors';
import type { TenantContext } from '../../db/tenant';
import type { CompanyMatch, EnrichedProfile, EnrichmentProvider } from '../../providers/enrichment/interface';
import { creditBalance, priceOf, type Reservation, refundCredits, reserveCredits, settleCredits } from '../credits';
import { companyMatcher, enrichProfile, storeProfile } from './enrich';
import type { BulkItemInput } from './schemas';

const CHUNK = 25;

/** The provider refused the organization's key: the job fails once the connection is marked needs_reconnect. */
class KeyRefused extends Error {
  constructor(
    readonly connection: ConnectionRow,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const bulkJobSpec: JobSpec<typeof leadEnrichmentJobs> = {
  table: leadEnrichmentJobs,
  // A chunk makes up to CHUNK provider calls: a lease long enough for a slow provider.
  leaseSeconds: 300,
};

/** A planned item: its profile, why the provider refused it, or that the balance could not pay for it. */
type Planned =
  | { index: number; profile: EnrichedProfile }
  | { index: number; refused: string }
  | { index: number; unpaid: true };

/**
 * One chunk of pending items; true when no item is left. The provider is asked first, with no
 * transaction open (a reservation holds the organization's credits lock until
 * its transaction ends: asked inside the chunk's transaction, every other paid call of the
 * organization waited for up to CHUNK provider calls); then one short transaction reserves,
 * stores and settles the chunk's items.
 */
async function enrichChunk(db: Database, env: Bindings, ref: JobRef, actor: Parameters<typeof jobTenantContext>[0]) {
  // A short read first: the pending items, the provider and what the balance can pay for.
  const start = await withTenant(db, ref.orgId, async (tx) => {
    const job = await lockRunningJob(tx, bulkJobSpec, ref);
    const items = job.items as BulkItemInput[];
    const pending = await pendingItems(tx, ref, items);
    if (pending.length === 0) {
      await finishJob(tx, bulkJobSpec, ref, { processed: items.length });
      return null;
    }
    const connection = await enrichmentConnection(tx, ref.orgId);
    const { provider } = await enrichmentProviderFor(env, connection);
    const balance = await creditBalance(jobTenantContext(actor, tx));
    return { items, pending, connection, provider, affordable: Math.floor(balance / priceOf('enrichment_bulk_item')) };
  });
  if (start === null) return true;
  // The provider, with no transaction open; each company lookup is a short one of its own.
  const matchCompany = (domain: string) =>
    withTenant(db, ref.orgId, (tx) => companyMatcher({ db: tx, orgId: ref.orgId })(domain));
  const ctx = jobTenantContext(actor, db);
  let affordable = start.affordable;
  const plan: Planned[] = [];
  for (const index of start.pending.slice(0, CHUNK)) {
    if (affordable <= 0) {
      plan.push({ index, unpaid: true });
      continue;
    }
    affordable--;
    plan.push(await askProvider(ctx, ref, index, start.items[index], start.provider, start.connection, matchCompany));
  }
  return withTenantEffects(db, env, ref.orgId, async (tx: Transaction, effects) => {
    const job = await lockRunningJob(tx, bulkJobSpec, ref);
    const items = job.items as BulkItemInput[];
    const pending = new Set(await pendingItems(tx, ref, items));
    const ctx = jobTenantContext(actor, tx, effects);
    let succeeded = 0;
    let failed = 0;
    for (const item of plan) {
      // Written by another delivery meanwhile.
      if (!pending.has(item.index)) continue;
      const outcome = await storeItem(ctx, ref, item, items[item.index]);
      if (outcome === 'completed') succeeded++;
      else failed++;
    }
    await tx
      .update(leadEnrichmentJobs)
      .set({
        processed: sql`${leadEnrichmentJobs.processed} + ${succeeded + failed}`,
        succeeded: sql`${leadEnrichmentJobs.succeeded} + ${succeeded}`,
        failed: sql`${leadEnrichmentJobs.failed} + ${failed}`,
        ...heartbeat(bulkJobSpec),
      })
      .where(and(eq(leadEnrichmentJobs.organizationId, ref.orgId), eq(leadEnrichmentJobs.id, ref.jobId)));
    return false;
  });
}

/** The items of the job without an outcome yet, in order. */
async function pendingItems(tx: Transaction, ref: JobRef, items: BulkItemInput[]): Promise<number[]> {
  const done = await tx
    .select({ item: leadEnrichmentItems.item })
    .from(leadEnrichmentItems)
    .where(and(eq(leadEnrichmentItems.organizationId, ref.orgId), eq(leadEnrichmentItems.jobId, ref.jobId)));
  const seen = new Set(done.map((row) => row.item));
  return items.map((_, index) => index).filter((index) => !seen.has(index));
}

/**
 * One item's profile from the provider (no transaction open). A
 * provider that is down throws (the delivery is retried); a refused key fails the job; any other
 * failure is the item's error.
 */
async function askProvider(
  ctx: TenantContext,
  ref: JobRef,
  index: number,
  item: BulkItemInput,
  provider: EnrichmentProvider,
  connection: ConnectionRow | null,
  matchCompany: (domain: string) => Promise<CompanyMatch | null>,
): Promise<Planned> {
  try {
    return { index, profile: await enrichProfile(ctx, item, null, provider, undefined, matchCompany) };
  } catch (error) {
    if (error instanceof ProviderFailure && error.kind === 'unavailable') throw error;
    // Recorded after this delivery stopped (run), so the mark is kept.
    if (error instanceof ProviderFailure && error.kind === 'auth' && connection)
      throw new KeyRefused(connection, error.reason);
    if (!(error instanceof ProviderFailure)) {
      log.warn('lead enrichment item failed', { job_id: ref.jobId, item: index, error: errorText(error) });
    }
    return { index, refused: error instanceof ProviderFailure ? error.reason : 'this item could not be enriched' };
  }
}

/**
 * One item's outcome: its credit reserved under a key of the job and the item (a redelivery never
 * charges it twice), the profile stored in a savepoint, the outcome row written; settled on
 * success, refunded on an item error.
 */
async function storeItem(
  ctx: TenantContext,
  ref: JobRef,
  planned: Planned,
  item: BulkItemInput,
): Promise<'completed' | 'failed'> {
  const tx = ctx.db as Transaction;
  const index = planned.index;
  const outcome = (values: Partial<typeof leadEnrichmentItems.$inferInsert>) =>
    tx
      .insert(leadEnrichmentItems)
      .values({ organizationId: ref.orgId, jobId: ref.jobId, item: index, status: 'failed', ...values });
  let reservation: Reservation;
  try {
    reservation = await reserveCredits(ctx, {
      feature: 'enrichment_bulk_item',
      idempotencyKey: `enrichment_bulk_item:job:${ref.jobId}:item:${index}`,
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'insufficient_credits') throw error;
    await outcome({ error: error.message });
    return 'failed';
  }
  const failure = async (reason: string) => {
    await outcome({ error: reason });
    await refundCredits(ctx, reservation.id, 'the item could not be enriched');
    return 'failed' as const;
  };
  // Paid for meanwhile (a grant after the balance was read): not asked, so not enriched; ask again.
  if ('unpaid' in planned) return failure('the balance could not pay for this item when the job reached it');
  if ('refused' in planned) return failure(planned.refused);
  try {
    // A savepoint per item: a failed item leaves nothing behind but its error row.
    const profile = await tx.transaction((itemTx) =>
      storeProfile({ ...ctx, db: itemTx }, item, planned.profile, { lead: null, job: { id: ref.jobId, item: index } }),
    );
    await outcome({ status: 'completed', profileLeadId: profile.id });
    await settleCredits(ctx, reservation.id);
    return 'completed';
  } catch (error) {
    log.warn('lead enrichment item failed', { job_id: ref.jobId, item: index, error: errorText(error) });
    return failure('this item could not be enriched');
  }
}

export const BULK_ENRICHMENT_DEAD_LETTER_REASON =
  'The enrichment could not finish: the provider kept failing. The items enriched so far are kept.';
export const BULK_ENRICHMENT_STALLED_REASON = 'The enrichment kept stopping before it finished.';

export const leadEnrichmentJobHandler: JobHandler<'lead-enrichment', typeof leadEnrichmentJobs> = {
  ...bulkJobSpec,
  retry: retryUnlessPermanent,
  reasons: { deadLettered: BULK_ENRICHMENT_DEAD_LETTER_REASON, stalled: BULK_ENRICHMENT_STALLED_REASON },
  run: async (message, { db, env }) => {
    const claim = await claimJob(db, bulkJobSpec, message);
    if (!claim) return;
    try {
      while (!(await enrichChunk(db, env, message, claim))) {
        // Each chunk committed its items; the next one picks up after them.
      }
    } catch (error) {
      if (!(error instanceof KeyRefused)) throw error;
      await poolWriter(db).run(message.orgId, (tx) => markNeedsReconnect(tx, error.connection, error.reason));
      throw new PermanentJobFault(`The ${error.connection.provider} key was refused: reconnect it, then ask again.`);
    }
  },
};
