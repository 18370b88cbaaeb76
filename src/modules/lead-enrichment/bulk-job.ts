/**
 * The queue consumer's side of a bulk enrichment (job kind 'lead-enrichment'). Items are worked
 * in chunks of CHUNK, each chunk in one transaction that writes every item's outcome (a row of
 * lead_enrichment_items, unique per job and item), moves the job's counters and renews its lease.
 * An item the provider refuses, or whose input it cannot use, is an item error; the others
 * complete. A provider that is down or throttling (429, 5xx) fails the delivery, which the queue
 * retries: the chunk rolled back, earlier chunks stay, and items with an outcome are never
 * enriched again. A refused key marks the connection needs_reconnect and fails the job.
 */
import { and, eq, sql } from 'drizzle-orm';
import { errorText, log } from '../../core/log';
import type { Database, Transaction } from '../../db/client';
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
import type { EnrichmentProvider } from '../../providers/enrichment/interface';
import { type Reservation, refundCredits, reserveCredits, settleCredits } from '../credits';
import { enrichAndStore } from './enrich';
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

/** One chunk of pending items; true when no item is left. */
async function enrichChunk(db: Database, env: Bindings, ref: JobRef, actor: Parameters<typeof jobTenantContext>[0]) {
  return withTenantEffects(db, env, ref.orgId, async (tx: Transaction, effects) => {
    const job = await lockRunningJob(tx, bulkJobSpec, ref);
    const done = await tx
      .select({ item: leadEnrichmentItems.item })
      .from(leadEnrichmentItems)
      .where(and(eq(leadEnrichmentItems.organizationId, ref.orgId), eq(leadEnrichmentItems.jobId, ref.jobId)));
    const seen = new Set(done.map((row) => row.item));
    const items = job.items as BulkItemInput[];
    const pending = items.map((_, index) => index).filter((index) => !seen.has(index));
    if (pending.length === 0) {
      await finishJob(tx, bulkJobSpec, ref, { processed: items.length });
      return true;
    }
    const connection = await enrichmentConnection(tx, ref.orgId);
    const { provider } = await enrichmentProviderFor(env, connection);
    const ctx = jobTenantContext(actor, tx, effects);
    let succeeded = 0;
    let failed = 0;
    for (const index of pending.slice(0, CHUNK)) {
      const outcome = await enrichItem(ctx, ref, index, items[index], provider, connection);
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

/**
 * One item: its credit reserved under a key of the job and the item (a redelivery never charges it
 * twice), the work in a savepoint, the outcome row written; settled on success, refunded on an
 * item error. A provider that is down throws (the chunk rolls back and the delivery is retried).
 */
async function enrichItem(
  ctx: TenantContext,
  ref: JobRef,
  index: number,
  item: BulkItemInput,
  provider: EnrichmentProvider,
  connection: ConnectionRow | null,
): Promise<'completed' | 'failed'> {
  const tx = ctx.db as Transaction;
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
  try {
    // A savepoint per item: a failed item leaves nothing behind but its error row.
    const profile = await tx.transaction((itemTx) =>
      enrichAndStore({ ...ctx, db: itemTx }, item, { lead: null, provider, job: { id: ref.jobId, item: index } }),
    );
    await outcome({ status: 'completed', profileLeadId: profile.id });
    await settleCredits(ctx, reservation.id);
    return 'completed';
  } catch (error) {
    if (error instanceof ProviderFailure && error.kind === 'unavailable') throw error;
    // Recorded after this chunk's transaction rolled back (run), so the mark is kept.
    if (error instanceof ProviderFailure && error.kind === 'auth' && connection)
      throw new KeyRefused(connection, error.reason);
    if (!(error instanceof ProviderFailure)) {
      log.warn('lead enrichment item failed', { job_id: ref.jobId, item: index, error: errorText(error) });
    }
    await outcome({ error: error instanceof ProviderFailure ? error.reason : 'this item could not be enriched' });
    await refundCredits(ctx, reservation.id, 'the item could not be enriched');
    return 'failed';
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
