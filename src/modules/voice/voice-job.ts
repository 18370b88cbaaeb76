/**
 * The voice job (one `voice_jobs` row, the shared lifecycle of src/jobs), by action:
 *   - purchase_number: buys the paid number from the provider (number-purchase.ts); a refusal
 *     marks it failed and refunds its price (one transaction); a provider down is retried, and a
 *     job given up on (dead letter, stalled) fails and refunds the same way;
 *   - place_call: waits for the call's turn (calls per second), then dials it (a provider's 429
 *     hands the dial claim back and the job is snoozed for its Retry-After). A turn more than a
 *     few seconds away defers the job to it (JobWaits), spending none of the queue's retries, so a
 *     campaign of many calls never gives up on a call that only waited. The simulator
 *     moves it ringing → in-progress → completed here, with its transcript, a WAV recording in R2
 *     and its price; Vapi answers with its call id and its end-of-call report ends the call.
 *     `started_at` is claimed before dialling, so a redelivery never dials twice: a call found
 *     started without a provider id (a 5xx, no answer, a delivery that died) is looked up at
 *     the provider once the claim's lease has passed (Vapi's List Calls: recorded if placed,
 *     dialled again if surely not) and failed as interrupted when the provider cannot tell. On
 *     the queue's last attempt a lost answer is looked up at once (no retry is left to wait for
 *     the lease). Recording the provider's id never fails a placed call (another call holding the
 *     id is a clash the record skips);
 *   - copy_recording: copies a provider's recording into R2, once.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { calls, contacts, leads, voiceJobs } from '../../db/schema';
import type { Bindings } from '../../env';
import { isLastAttempt, isTransientFault, JobSuperseded, JobWaits, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { claimJob, finishJob, jobTenantContext, type JobClaim, type JobSpec } from '../../jobs/lifecycle';
import { log } from '../../core/log';
import { withTenantEffects } from '../../core/transaction-effects';
import { isUniqueViolation } from '../../db/errors';
import { ProviderFailure } from '../../providers/failures';
import type { PlacedCall } from '../../providers/voice/interface';
import { localRecording, localTranscript, LOCAL_TURN_SECONDS } from '../../providers/voice/local';
import { voiceSetupOf } from '../../providers/voice/select';
import { storeFile } from '../files';
import { advanceCall, endCall, failCalls, isEnded, providerCallIdHeldElsewhere } from './call-progress';
import type { CallRow } from './calls';
import { failNumbers, purchaseNumber } from './number-purchase';
import { setupFor, webhookOrigin } from './voice-setup';

type Job = typeof voiceJobs.$inferSelect;
type Claim = JobClaim<typeof voiceJobs>;

export const REASONS = {
  interrupted: 'Dialling was interrupted after the call was handed to the provider; it may have been placed',
  gaveUp: 'The voice provider stayed unavailable through every retry',
  turnNeverCame: 'The call was still waiting for its dialling turn 24 hours after it was queued, so it was not placed',
} as const;

/**
 * A turn further away than this is not waited for in the delivery: the job is deferred to its
 * turn (JobWaits: the runner snoozes it, spending no queue retry).
 */
const MAX_WAIT_MS = 3_000;
/** Pause between the simulator's steps, so a watcher sees each status. */
const LOCAL_STEP_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readCall(db: Database, orgId: number, callId: number): Promise<CallRow | undefined> {
  return withTenant(db, orgId, async (tx) => {
    const [row] = await tx
      .select()
      .from(calls)
      .where(and(eq(calls.organizationId, orgId), eq(calls.id, callId)));
    return row;
  });
}

/** Claims the dialling: only the delivery that sets started_at dials. Answers the claim's instant, or null. */
async function claimDial(db: Database, orgId: number, callId: number): Promise<Date | null> {
  const claimed = await withTenant(db, orgId, (tx) =>
    tx
      .update(calls)
      .set({ startedAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        and(eq(calls.organizationId, orgId), eq(calls.id, callId), isNull(calls.startedAt), eq(calls.status, 'queued')),
      )
      .returning({ startedAt: calls.startedAt }),
  );
  return claimed[0]?.startedAt ?? null;
}

/** Hands back a dial claim whose call the provider did not place (it throttled): a later delivery dials it. */
async function releaseDial(db: Database, orgId: number, callId: number): Promise<void> {
  await withTenant(db, orgId, (tx) =>
    tx
      .update(calls)
      .set({ startedAt: null, updatedAt: sql`now()` })
      .where(
        and(
          eq(calls.organizationId, orgId),
          eq(calls.id, callId),
          eq(calls.status, 'queued'),
          isNull(calls.providerCallId),
        ),
      ),
  );
}

async function simulate(db: Database, env: Bindings, claim: Claim, call: CallRow) {
  const orgId = claim.orgId;
  const placed = await voiceSetupOf(env, null).then((setup) =>
    setup.telephony.placeCall({
      to: call.toNumber,
      from: call.fromNumber,
      statusCallback: '',
      record: true,
    }),
  );
  await withTenant(db, orgId, async (tx) => {
    await tx
      .update(calls)
      .set({ providerCallId: placed.providerCallId })
      .where(and(eq(calls.organizationId, orgId), eq(calls.id, call.id)));
    await advanceCall(tx, orgId, call.id, 'ringing');
  });
  await sleep(LOCAL_STEP_MS);
  await withTenant(db, orgId, (tx) => advanceCall(tx, orgId, call.id, 'in-progress'));
  await sleep(LOCAL_STEP_MS);
  const name = await withTenant(db, orgId, async (tx) => {
    const result = await tx.execute<{ name: string | null }>(sql`
      select coalesce((select first_name from ${leads} where organization_id = ${orgId} and id = ${call.leadId ?? 0}),
        (select split_part(name, ' ', 1) from ${contacts} where organization_id = ${orgId} and id = ${call.contactId ?? 0})) as name`);
    return result.rows[0]?.name ?? null;
  });
  const transcript = localTranscript(call.agent, name);
  const durationSec = transcript.length * LOCAL_TURN_SECONDS;
  await withTenantEffects(db, env, orgId, async (tx, effects) => {
    const ctx = jobTenantContext(claim, tx, effects);
    const file = await storeFile(ctx, env.FILES, {
      category: 'call_recording',
      fileName: `call-${call.id}.wav`,
      contentType: 'audio/wav',
      body: localRecording(),
    });
    await tx
      .update(calls)
      .set({ recordingFileId: file.id })
      .where(and(eq(calls.organizationId, orgId), eq(calls.id, call.id)));
    const answeredAt = new Date(Date.now() - durationSec * 1000);
    await endCall(
      tx,
      { orgId, userId: call.userId, apiKeyId: undefined },
      call.id,
      {
        status: 'completed',
        durationSec,
        answeredAt,
        endedAt: new Date(),
        transcript,
      },
      effects,
    );
    await finishJob(tx, spec, claim);
  });
}

/**
 * The provider placed the call: its id is recorded, then the job finished. A clash on the unique
 * (organization, provider, provider call id) key, another row holding the id already, is no
 * failure of the dial: the call was placed, so it stays placed (open, its hold kept for its
 * report to settle) and the job finishes. The statement skips the clash it can see; a clash
 * committed at the same instant is the unique violation, taken the same way.
 */
async function recordPlaced(db: Database, claim: Claim, call: CallRow, providerCallId: string) {
  const orgId = claim.orgId;
  // On its own first: the call was placed, and its end-of-call report finds it by this id even if
  // the job is no longer this delivery's to finish.
  const recorded = await withTenant(db, orgId, (tx) =>
    tx
      .update(calls)
      .set({ providerCallId, updatedAt: sql`now()` })
      .where(
        and(
          eq(calls.organizationId, orgId),
          eq(calls.id, call.id),
          isNull(calls.providerCallId),
          sql`not ${providerCallIdHeldElsewhere(orgId, call.id, sql`${call.provider}`, providerCallId)}`,
        ),
      )
      .returning({ id: calls.id }),
  ).catch((error: unknown) => {
    if (isUniqueViolation(error, 'calls_provider_call_key')) return [];
    throw error;
  });
  if (recorded.length === 0) {
    const now = await readCall(db, orgId, call.id);
    if (now && now.providerCallId !== providerCallId)
      log.warn('voice job: the provider call id is recorded on another call; the call is kept as placed', {
        org_id: orgId,
        call_id: call.id,
        provider_call_id: providerCallId,
      });
  }
  await withTenant(db, orgId, (tx) => finishJob(tx, spec, claim));
}

/** The call failed with `reason` (its hold released by endCall) and the job finished, in one transaction. */
async function failCall(db: Database, claim: Claim, call: CallRow, reason: string) {
  const orgId = claim.orgId;
  await withTenant(db, orgId, async (tx) => {
    await endCall(tx, { orgId, userId: call.userId }, call.id, {
      status: 'failed',
      durationSec: 0,
      answeredAt: null,
      endedAt: new Date(),
      transcript: null,
      failureReason: reason,
    });
    await finishJob(tx, spec, claim);
  });
}

/** How far before our dial claim the provider's list is searched (clocks differ). */
const LOOKUP_MARGIN_MS = 5 * 60_000;

/**
 * Whether the provider placed a call whose dial answer was lost: its call id, null when it surely
 * did not, 'unknown' when it cannot tell (the simulator and a platform without a lookup cannot).
 * A provider that cannot be asked now throws, and the queue retries the delivery (the claim kept).
 */
async function placedEarlier(db: Database, env: Bindings, orgId: number, call: CallRow) {
  if (call.provider !== 'vapi' || !call.startedAt) return 'unknown';
  const setup = await withTenant(db, orgId, (tx) => setupFor(tx, env, orgId, call.connectionId));
  if (!setup.agent?.findCall) return 'unknown';
  try {
    return await setup.agent.findCall({
      callId: call.id,
      to: call.toNumber,
      since: new Date(call.startedAt.getTime() - LOOKUP_MARGIN_MS),
    });
  } catch (error) {
    if (error instanceof ProviderFailure && error.kind === 'unavailable') throw error;
    return 'unknown';
  }
}

async function placeCall(
  db: Database,
  env: Bindings,
  claim: Claim,
  job: Job,
  attempts: number,
  depth = 0,
): Promise<void> {
  const orgId = claim.orgId;
  const call = await readCall(db, orgId, job.callId as number);
  if (!call || isEnded(call.status)) return void (await withTenant(db, orgId, (tx) => finishJob(tx, spec, claim)));
  // A claim handed back after a lookup and taken again by another delivery at once: that one dials.
  if (depth > 1) throw new JobSuperseded();
  if (call.startedAt && !call.providerCallId) {
    // A delivery claimed the dialling and recorded no answer. While it may still be waiting for
    // the provider's answer (a duplicate message, delivered alongside), this one waits until it
    // surely is not (the claim older than the job's lease: providerFetch gives up on an answer
    // after PROVIDER_TIMEOUT_MS, under half the lease; until 2026-12-02 a dial had no deadline, and
    // one still waiting past the lease could be placed again by this delivery).
    const dialling = call.startedAt.getTime() + spec.leaseSeconds * 1000 - Date.now();
    if (dialling > 0)
      throw new JobWaits(dialling / 1000, 'waiting to learn whether the call was placed', REASONS.interrupted);
    // The answer was lost (a 5xx, no answer, a delivery that died): the provider is asked.
    const found = await placedEarlier(db, env, orgId, call);
    // A dial whose answer was lost, and whose provider cannot tell whether it placed the call: failed, never dialled twice.
    if (found === 'unknown') return failCall(db, claim, call, REASONS.interrupted);
    if (found !== null) return recordPlaced(db, claim, call, found);
    // Surely not placed: the claim is handed back and the call dialled now (its turn has passed).
    await releaseDial(db, orgId, call.id);
    return placeCall(db, env, claim, job, attempts, depth + 1);
  }
  if (call.providerCallId) return void (await withTenant(db, orgId, (tx) => finishJob(tx, spec, claim)));
  const wait = call.dialAfter.getTime() - Date.now();
  if (wait > MAX_WAIT_MS) throw new JobWaits(wait / 1000, 'waiting for its dialling turn', REASONS.turnNeverCame);
  if (wait > 0) await sleep(wait);
  const claimedAt = await claimDial(db, orgId, call.id);
  if (!claimedAt) {
    // Ended meanwhile (cancelled): the job is done. Otherwise another delivery of this job (a
    // duplicate message) claimed the dial and is placing the call: it finishes the job, and
    // this one stops without touching it (finishing it here would roll back the winner's record).
    const now = await readCall(db, orgId, call.id);
    if (now && !isEnded(now.status)) throw new JobSuperseded();
    return void (await withTenant(db, orgId, (tx) => finishJob(tx, spec, claim)));
  }
  if (call.provider === 'local') return simulate(db, env, claim, call);
  const setup = await withTenant(db, orgId, (tx) => setupFor(tx, env, orgId, call.connectionId));
  let placed: PlacedCall;
  try {
    if (!setup.agent || !call.agent)
      throw new ProviderFailure('rejected', 'vapi', null, 'the agent platform is no longer connected');
    placed = await setup.agent.startCall({
      to: call.toNumber,
      agent: call.agent,
      serverUrl: `${webhookOrigin(setup)}/api/v1/voice/vapi/${orgId}`,
      callId: call.id,
    });
  } catch (error) {
    if (error instanceof ProviderFailure && error.kind === 'unavailable' && error.status === 429) {
      // Throttled (Vapi's 429): certainly not placed. The dial claim is handed back and the runner
      // snoozes the job for the provider's Retry-After (no queue retry spent: jobs/runner.ts); a
      // job throttled for 24 h fails the call and releases its hold (onFailed).
      await releaseDial(db, orgId, call.id);
      throw error;
    }
    if (error instanceof ProviderFailure && error.kind === 'unavailable' && setup.agent?.findCall) {
      // A 5xx or no answer: the call may have been placed. The claim stays and the queue retries
      // the delivery, which (once the claim's lease has passed) asks Vapi whether it placed the
      // call, and dials again only if it surely did not (above). On the queue's last attempt
      // there is no retry: the throw would give the call up (dead letter, REASONS.gaveUp) though
      // Vapi may have placed it, so Vapi is asked now, and a call it lists is kept.
      if (isLastAttempt(attempts)) {
        const found = await placedEarlier(db, env, orgId, { ...call, startedAt: claimedAt }).catch(() => null);
        if (found && found !== 'unknown') return recordPlaced(db, claim, call, found);
      }
      throw error;
    }
    const reason = error instanceof ProviderFailure ? error.reason : 'the call could not be placed';
    // Nothing was placed (a refusal, or no answer at all): the call fails and its hold is released.
    return failCall(db, claim, call, reason);
  }
  // Outside the try: the call was placed, so a fault while recording it is never its failure.
  await recordPlaced(db, claim, call, placed.providerCallId);
}

async function copyRecording(db: Database, env: Bindings, claim: Claim, job: Job) {
  const orgId = claim.orgId;
  const call = await readCall(db, orgId, job.callId as number);
  if (call && !call.recordingFileId && job.sourceUrl) {
    const setup = await withTenant(db, orgId, (tx) => setupFor(tx, env, orgId, call.connectionId));
    // The adapter decides where a credential may go and refuses anything that is not WAV audio.
    const media =
      call.provider === 'vapi' && setup.agent
        ? await setup.agent.fetchRecording(job.sourceUrl)
        : await setup.telephony.fetchRecording(job.sourceUrl);
    await withTenantEffects(db, env, orgId, async (tx, effects) => {
      const file = await storeFile(jobTenantContext(claim, tx, effects), env.FILES, {
        category: 'call_recording',
        fileName: `call-${call.id}.wav`,
        contentType: media.contentType,
        body: media.body,
      });
      await tx
        .update(calls)
        .set({ recordingFileId: file.id, updatedAt: sql`now()` })
        .where(and(eq(calls.organizationId, orgId), eq(calls.id, call.id), isNull(calls.recordingFileId)));
      await finishJob(tx, spec, claim);
    });
    return;
  }
  await withTenant(db, orgId, (tx) => finishJob(tx, spec, claim));
}

const spec: JobSpec<typeof voiceJobs> = {
  table: voiceJobs,
  // Longer than the slowest provider answer plus the simulator's few seconds.
  leaseSeconds: 120,
  // Set-based over every job failed together (the lease sweep fails many): each purchase's number
  // failed and refunded, each call failed and its hold released, as endCall does for one.
  onFailed: async (tx, failed) => {
    await failNumbers(
      tx,
      failed.flatMap(({ job, reason }) =>
        job.action === 'purchase_number' && job.phoneNumberId
          ? [{ orgId: job.organizationId, numberId: job.phoneNumberId, reason }]
          : [],
      ),
    );
    await failCalls(
      tx,
      failed.flatMap(({ job, reason }) =>
        job.action === 'place_call' && job.callId ? [{ orgId: job.organizationId, callId: job.callId, reason }] : [],
      ),
    );
  },
};

export const voiceJobHandler: JobHandler<'voice', typeof voiceJobs> = {
  ...spec,
  retry: {
    // A database fault that passes (a dropped connection) is retried too: after a placed call it
    // would otherwise fail the call (onFailed) that the retry finds placed.
    permanentReason: (error) =>
      isTransientFault(error) || (error instanceof ProviderFailure && error.kind === 'unavailable')
        ? null
        : `The voice job failed: ${error instanceof ProviderFailure ? error.reason : userFacingJobError(error)}.`,
  },
  reasons: { deadLettered: REASONS.gaveUp, stalled: REASONS.gaveUp },
  run: async (message, { db, env, attempts }) => {
    const claim = await claimJob(db, spec, message);
    if (!claim) return;
    const job = claim.job;
    if (job.action === 'purchase_number') {
      await purchaseNumber(db, env, claim.orgId, job.phoneNumberId as number);
      await withTenant(db, claim.orgId, (tx) => finishJob(tx, spec, claim));
      return;
    }
    if (job.action === 'place_call') return placeCall(db, env, claim, job, attempts);
    return copyRecording(db, env, claim, job);
  },
};
