/**
 * The bulk draft job (kind 'ai-email-bulk'): one draft per lead of an ai_email_jobs row, each
 * lead charged `email_draft` on its own. It works in chunks, each ONE transaction scoped to the
 * organization that locks the job, writes the chunk's drafts with their ledger rows, and moves the
 * checkpoint (`processed_items`, with the heartbeat): a delivery that dies mid-chunk leaves
 * nothing of it, and a redelivered message resumes after the last committed chunk. A draft is
 * unique per (job, lead) and a reservation per key `email_draft:job:<job>:lead:<lead>`, so nothing
 * is written or charged twice whatever the queue does.
 *
 * Per item: a deleted lead, too few credits or a model answer that does not fit is that item's
 * error (refunded; the rest complete). A provider that is down or throttling fails the chunk
 * and the queue retries it with backoff.
 */
import { sql } from 'drizzle-orm';
import { withTenant } from '../../db/client';
import { aiEmailDrafts, aiEmailJobs } from '../../db/schema';
import { ApiError } from '../../core/errors';
import { retryUnlessPermanent } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import {
  claimJob,
  finishJob,
  heartbeat,
  type JobClaim,
  type JobSpec,
  jobTenantContext,
  lockRunningJob,
} from '../../jobs/lifecycle';
import { withTenantEffects } from '../../core/transaction-effects';
import { aiProviderFor } from '../../providers/ai/select';
import { ProviderFailure } from '../../providers/failures';
import { creditBalance, priceOf, refundCredits, reserveCredits, settleCredits } from '../credits';
import { writtenColumns } from './drafts';
import { leadFacts } from './lead-facts';
import { emailDraftPrompt } from './prompts/email-draft.v1';

/** Leads per transaction: a slow model (a few seconds a draft) stays well inside the lease. */
export const LEADS_PER_CHUNK = 25;

const spec: JobSpec<typeof aiEmailJobs> = { table: aiEmailJobs, leaseSeconds: 300 };

type ItemError = { lead_id: number; error: string };
/** A lead's text, or why the model's answer could not be kept. */
type Written = ReturnType<typeof writtenColumns> | { refused: string };

export const aiEmailBulkJobHandler: JobHandler<'ai-email-bulk', typeof aiEmailJobs> = {
  ...spec,
  retry: retryUnlessPermanent,
  reasons: {
    deadLettered:
      'The drafts could not be written: every attempt failed (the AI provider stayed unavailable). Drafts written before remain.',
    stalled: 'The drafts job kept stopping before it finished. Drafts written before remain; ask again for the rest.',
  },
  run: async (message, { db, env }) => {
    const claim = await claimJob(db, spec, message);
    if (!claim) return;
    const provider = aiProviderFor(env);
    let done = false;
    while (!done) {
      // The chunk's texts are written first, with no transaction open: a reservation holds the
      // organization's credits lock until its transaction ends, so asking the model inside the
      // chunk's transaction held up every other paid call of the organization for the whole chunk.
      const planned = await withTenant(db, message.orgId, async (tx) => {
        const job = await lockRunningJob(tx, spec, message);
        const chunk = job.leadIds.slice(job.processedItems, job.processedItems + LEADS_PER_CHUNK);
        const ctx = jobTenantContext(claim as JobClaim<typeof aiEmailJobs>, tx);
        const facts = await leadFacts(ctx, chunk);
        const balance = await creditBalance(ctx);
        return {
          from: job.processedItems,
          chunk,
          facts,
          persona: job.persona,
          affordable: Math.floor(balance / priceOf('email_draft')),
        };
      });
      const written = new Map<number, Written>();
      for (const leadId of planned.chunk) {
        const lead = planned.facts.get(leadId);
        // A lead the balance cannot pay for is not written (the reservation below refuses it).
        if (!lead || written.size >= planned.affordable) continue;
        try {
          written.set(
            leadId,
            writtenColumns(await provider.generate(emailDraftPrompt, { lead, persona: planned.persona ?? '' })),
          );
        } catch (error) {
          if (!(error instanceof ProviderFailure) || error.kind === 'unavailable') throw error;
          written.set(leadId, { refused: error.reason });
        }
      }
      done = await withTenantEffects(db, env, message.orgId, async (tx, effects) => {
        const job = await lockRunningJob(tx, spec, message);
        // Another delivery moved the checkpoint meanwhile: plan again from where it is.
        if (job.processedItems !== planned.from) return false;
        const ctx = jobTenantContext(claim as JobClaim<typeof aiEmailJobs>, tx, effects);
        const chunk = planned.chunk;
        const facts = await leadFacts(ctx, chunk);
        const errors: ItemError[] = [];
        let created = 0;
        for (const leadId of chunk) {
          if (!facts.get(leadId)) {
            errors.push({ lead_id: leadId, error: `Lead ${leadId} was deleted before its draft was written` });
            continue;
          }
          let reservation: Awaited<ReturnType<typeof reserveCredits>>;
          try {
            reservation = await reserveCredits(ctx, {
              feature: 'email_draft',
              idempotencyKey: `email_draft:job:${job.id}:lead:${leadId}`,
            });
          } catch (error) {
            if (!(error instanceof ApiError && error.status === 402)) throw error;
            errors.push({ lead_id: leadId, error: error.message });
            continue;
          }
          if (reservation.replayed && reservation.state !== 'held') continue;
          const columns = written.get(leadId);
          if (!columns || 'refused' in columns) {
            const reason = columns?.refused ?? 'The draft could not be written; ask again';
            await refundCredits(ctx, reservation.id, reason);
            errors.push({ lead_id: leadId, error: reason });
            continue;
          }
          const inserted = await tx
            .insert(aiEmailDrafts)
            .values({
              organizationId: job.organizationId,
              leadId,
              persona: job.persona,
              ...columns,
              jobId: job.id,
              reservationId: reservation.id,
              createdBy: job.createdBy,
            })
            .onConflictDoNothing()
            .returning({ id: aiEmailDrafts.id });
          await settleCredits(ctx, reservation.id);
          created += inserted.length;
        }
        const processed = job.processedItems + chunk.length;
        const values = {
          processedItems: processed,
          draftsCreated: job.draftsCreated + created,
          itemErrors: sql`${aiEmailJobs.itemErrors} || ${JSON.stringify(errors)}::jsonb`,
        };
        if (processed >= job.totalItems) {
          await finishJob(tx, spec, message, values);
          return true;
        }
        await tx
          .update(aiEmailJobs)
          .set({ ...values, ...heartbeat(spec) })
          .where(sql`${aiEmailJobs.organizationId} = ${message.orgId} and ${aiEmailJobs.id} = ${message.jobId}`);
        return false;
      });
    }
  },
};
