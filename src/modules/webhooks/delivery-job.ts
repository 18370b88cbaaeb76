/**
 * One event delivery, one attempt per queue message: to a webhook endpoint (a signed POST), or to
 * a team-chat channel subscription (a post through the chat provider, modules/chat/deliver.ts:
 * a refusal that no retry can mend ends it at once). The schedule is Svix's: the first attempt
 * at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 attempts over about 27 h);
 * a chat provider's Retry-After (Slack's 429) pushes the next attempt later, never sooner.
 * After a failed attempt the delivery goes back to `queued` with `next_attempt_at` set; the
 * message for the next attempt is sent with that delay (Queues' delaySeconds, at most 12 h), and
 * the lease is set just past it, so if that message is lost the lease sweep sends it again.
 *
 * An attempt runs only when it is due and nobody holds the delivery: a redelivered or early
 * message acknowledges without sending, so each attempt sends at most once per message that
 * claims it, and always with the same `webhook-id` (the delivery's message id). The HTTP call is
 * made outside any transaction; its outcome is recorded in the attempt log in the transaction
 * that schedules the next attempt or ends the delivery (finishJob/failJobIn, owned by this attempt).
 *
 * A delivery whose message only waits in the queue is not stalled: the lease sweep re-sends it with
 * a backoff until WEBHOOK_DEADLINE_SECONDS after the event, and then fails it as never picked up.
 *
 * Receivers failing is not a fault of the job: nothing is thrown for it, so the queue's own retry
 * (and its dead-letter queue) only sees our database being unreachable.
 */
import { and, eq, sql } from 'drizzle-orm';
import { log } from '../../core/log';
import { withTenant } from '../../db/client';
import { chatSubscriptions, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { retryTransientOnly, userFacingJobError } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import { claimedLease, failJobIn, finishJob, type JobSpec } from '../../jobs/lifecycle';
import {
  CredentialsKeyMissing,
  hasCredentialsKey,
  keyringOf,
  openSecret,
  SecretUnreadable,
} from '../../providers/secrets';
import { sendWebhook } from '../../providers/webhooks/deliver';
import type { Bindings } from '../../env';
import type { EventType } from '../../core/event-types';
import { deliverChatEvent } from '../chat';
import { recordEndpointFailure, recordEndpointSuccess } from './endpoint-health';

/** Seconds to wait before attempt n+1 after attempt n failed (index n-1); its length + 1 is the number of attempts. */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/**
 * The delivery's retry window: the schedule's waits (about 27.6 h) and an hour for the last attempt. A delivery
 * still waiting for an attempt this long after its event fails (never picked up, or no CREDENTIALS_KEY).
 */
export const WEBHOOK_DEADLINE_SECONDS = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 3600);
/** A delivery is held this long per attempt (the receiver has 15 s); also the slack past a due time before the sweep re-sends. */
export const WEBHOOK_LEASE_SECONDS = 60;
/** Queues' longest delay of a message. */
const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;

const spec: JobSpec<typeof webhookDeliveries> = { table: webhookDeliveries, leaseSeconds: WEBHOOK_LEASE_SECONDS };

/** An attempt taken: at a webhook endpoint (its URL and opened secret) or at a chat channel subscription. */
type Claimed = {
  attempt: number;
  messageId: string;
  payload: unknown;
} & (
  | { endpointId: number; url: string; secret: string; previousSecret: string | null; chatSubscriptionId: null }
  | { endpointId: null; chatSubscriptionId: number }
);

const UNREADABLE_SECRET =
  "the endpoint's secret cannot be opened (CREDENTIALS_KEY changed without keeping the old key in CREDENTIALS_KEYS_PREVIOUS): rotate the secret";

const ABOUT_HOURS = Math.round(WEBHOOK_DEADLINE_SECONDS / 3600);
export const NEVER_PICKED_UP_REASON = `The delivery was never picked up from the queue within its retry window (about ${ABOUT_HOURS} hours after the event); its log lists any attempts made.`;
export const KEY_MISSING_REASON = `The delivery could not be signed: the server's CREDENTIALS_KEY was not set within its retry window (about ${ABOUT_HOURS} hours after the event).`;
const KEY_MISSING_NOTE =
  "waiting for the server's CREDENTIALS_KEY (not set): the delivery is attempted once an operator sets it";
/** The longest wait between two looks for a CREDENTIALS_KEY that is not set. */
const KEY_WAIT_MAX_SECONDS = 3600;

/** No CREDENTIALS_KEY: the secret cannot be opened yet (the delivery waits for an operator). */
const KEY_MISSING = Symbol('CREDENTIALS_KEY missing');

/**
 * The endpoint's signing secret (src/providers/secrets.ts); null when no configured key opens it,
 * KEY_MISSING when the Worker has no CREDENTIALS_KEY (claimAttempt waits for it).
 */
async function openEndpointSecret(
  env: Bindings,
  orgId: number,
  sealed: string,
): Promise<string | null | typeof KEY_MISSING> {
  try {
    return await openSecret<string>(await keyringOf(env), orgId, sealed);
  } catch (error) {
    if (error instanceof CredentialsKeyMissing) return KEY_MISSING;
    if (error instanceof SecretUnreadable) return null;
    throw error;
  }
}

/**
 * Takes the delivery for one attempt when it is due and free; null when this message has nothing
 * to do. Without a CREDENTIALS_KEY the attempt is not made (nor counted): the delivery stays
 * queued, due again after as long as it has waited (1 min to 1 h), and `waitFor` says after how
 * long to send its message; past the retry window it fails with KEY_MISSING_REASON. So an
 * operator who sets the key late loses no delivery, and a key never set loops for no longer than
 * the delivery's own schedule would.
 */
async function claimAttempt(
  env: Bindings,
  tx: Parameters<Parameters<typeof withTenant>[2]>[0],
  orgId: number,
  jobId: number,
) {
  const [row] = await tx
    .select({
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      due: sql<boolean>`${webhookDeliveries.nextAttemptAt} <= now()`,
      free: sql<boolean>`${webhookDeliveries.status} = 'queued' or coalesce(${webhookDeliveries.leaseExpiresAt} < now(), true)`,
      waited: sql<number>`extract(epoch from now() - ${webhookDeliveries.createdAt})::float8`,
      overdue: sql<boolean>`${webhookDeliveries.createdAt} + make_interval(secs => ${WEBHOOK_DEADLINE_SECONDS}) < now()`,
      endpointId: webhookEndpoints.id,
      enabled: webhookEndpoints.enabled,
      url: webhookEndpoints.url,
      secretSealed: webhookEndpoints.secretSealed,
      // A rotation's replaced secret, while it still signs beside the new one.
      previousSecretSealed: sql<
        string | null
      >`case when ${webhookEndpoints.previousSecretExpiresAt} > now() then ${webhookEndpoints.previousSecretSealed} end`,
      chatSubscriptionId: webhookDeliveries.chatSubscriptionId,
      workflowUrlSealed: chatSubscriptions.workflowUrlSealed,
      messageId: webhookDeliveries.messageId,
      payload: webhookDeliveries.payload,
    })
    .from(webhookDeliveries)
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .leftJoin(chatSubscriptions, eq(chatSubscriptions.id, webhookDeliveries.chatSubscriptionId))
    .where(and(eq(webhookDeliveries.organizationId, orgId), eq(webhookDeliveries.id, jobId)))
    .for('update', { of: webhookDeliveries });
  // Gone (the endpoint was deleted with its deliveries) or ended: a late or repeated message.
  if (!row || (row.status !== 'queued' && row.status !== 'running')) return null;
  if (!row.due || !row.free) return null;
  // No CREDENTIALS_KEY to open the secret with: no attempt (none counted) until an operator sets it.
  const waitForKey = async () => {
    if (row.overdue) {
      await failJobIn(tx, spec, { orgId, jobId }, KEY_MISSING_REASON);
      return null;
    }
    const wait = Math.round(Math.min(KEY_WAIT_MAX_SECONDS, Math.max(WEBHOOK_LEASE_SECONDS, row.waited)));
    await tx
      .update(webhookDeliveries)
      .set({
        status: 'queued',
        error: KEY_MISSING_NOTE,
        nextAttemptAt: sql`now() + make_interval(secs => ${wait})`,
        leaseExpiresAt: sql`now() + make_interval(secs => ${wait + WEBHOOK_LEASE_SECONDS})`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(webhookDeliveries.organizationId, orgId), eq(webhookDeliveries.id, jobId)));
    return { waitFor: wait };
  };
  // A chat channel's subscription is checked by deliverChatEvent, outside this lock.
  let target: Claimed | null = null;
  const attempt = row.attempts + 1;
  const common = { attempt, messageId: row.messageId, payload: row.payload };
  if (row.chatSubscriptionId !== null) {
    // A Teams channel's workflow URL is sealed: deliverChatEvent could not open it.
    if (row.workflowUrlSealed !== null && !hasCredentialsKey(env)) return waitForKey();
    target = { ...common, endpointId: null, chatSubscriptionId: row.chatSubscriptionId };
  } else {
    if (row.endpointId === null || row.secretSealed === null || row.url === null) return null;
    if (!row.enabled) {
      await failJobIn(tx, spec, { orgId, jobId }, 'the endpoint is disabled');
      return null;
    }
    const secret = await openEndpointSecret(env, orgId, row.secretSealed);
    if (secret === KEY_MISSING) return waitForKey();
    if (secret === null) {
      await failJobIn(tx, spec, { orgId, jobId }, UNREADABLE_SECRET);
      return null;
    }
    // One the keys no longer open is left out: the new secret still signs.
    const previous = row.previousSecretSealed ? await openEndpointSecret(env, orgId, row.previousSecretSealed) : null;
    const previousSecret = typeof previous === 'string' ? previous : null;
    target = { ...common, endpointId: row.endpointId, url: row.url, secret, previousSecret, chatSubscriptionId: null };
  }
  await tx
    .update(webhookDeliveries)
    .set({
      status: 'running',
      attempts: attempt,
      startedAt: sql`coalesce(${webhookDeliveries.startedAt}, now())`,
      ...claimedLease(spec),
      updatedAt: sql`now()`,
    })
    .where(and(eq(webhookDeliveries.organizationId, orgId), eq(webhookDeliveries.id, jobId)));
  return target;
}

/**
 * Locks what the attempt's record will reference, parent first as a delete cascades (the endpoint
 * or the chat subscription, then the delivery), so a deletion either waits for the record to
 * commit (and removes it with the rest) or has committed, and then this answers false. Key-share
 * locks: they only keep the rows from being deleted or re-keyed.
 */
async function lockTarget(
  tx: Parameters<Parameters<typeof withTenant>[2]>[0],
  ref: { orgId: number; jobId: number },
  claimed: Claimed,
): Promise<boolean> {
  const [parent] =
    claimed.endpointId !== null
      ? await tx
          .select({ id: webhookEndpoints.id })
          .from(webhookEndpoints)
          .where(and(eq(webhookEndpoints.organizationId, ref.orgId), eq(webhookEndpoints.id, claimed.endpointId)))
          .for('key share')
      : await tx
          .select({ id: chatSubscriptions.id })
          .from(chatSubscriptions)
          .where(
            and(eq(chatSubscriptions.organizationId, ref.orgId), eq(chatSubscriptions.id, claimed.chatSubscriptionId)),
          )
          .for('key share');
  if (!parent) return false;
  const [delivery] = await tx
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.organizationId, ref.orgId), eq(webhookDeliveries.id, ref.jobId)))
    .for('key share');
  return delivery !== undefined;
}

export const webhookDeliveryJobHandler: JobHandler<'webhook-delivery', typeof webhookDeliveries> = {
  ...spec,
  // The attempt that held it stopped (its lease expired): the re-sent message finds the delivery
  // free, as claimAttempt requires; otherwise the lease the sweep renews would keep it from running.
  resend: { status: 'queued' },
  // A delivery waiting for its first (or next) attempt is bounded by its retry window, and the
  // sweep's backoff counts from the attempt's due time.
  queuedDeadlineSeconds: WEBHOOK_DEADLINE_SECONDS,
  waitingSince: webhookDeliveries.nextAttemptAt,
  retry: retryTransientOnly((error) => `The delivery could not be attempted: ${userFacingJobError(error)}.`),
  reasons: {
    deadLettered: 'The delivery could not be attempted: every try to reach the database failed.',
    stalled: 'The delivery kept stopping before its attempt was recorded.',
    neverPickedUp: NEVER_PICKED_UP_REASON,
  },
  run: async (message, { db, env }) => {
    const ref = { orgId: message.orgId, jobId: message.jobId };
    const claimed = await withTenant(db, ref.orgId, (tx) => claimAttempt(env, tx, ref.orgId, ref.jobId));
    if (!claimed) return;
    if ('waitFor' in claimed) {
      await env.JOBS.send(message, { delaySeconds: claimed.waitFor }).catch((error) =>
        log.warn('webhook wait for CREDENTIALS_KEY not queued; the lease sweep will send it', {
          job_id: ref.jobId,
          error: String(error),
        }),
      );
      return;
    }
    const outcome =
      claimed.chatSubscriptionId !== null
        ? {
            responseBody: null,
            ...(await deliverChatEvent(
              db,
              env,
              ref.orgId,
              claimed.chatSubscriptionId,
              claimed.payload as { type: EventType; data: Record<string, unknown> },
            )),
          }
        : {
            retry: true,
            ...(await sendWebhook({
              url: claimed.url,
              secret: claimed.secret,
              previousSecret: claimed.previousSecret,
              messageId: claimed.messageId,
              body: JSON.stringify(claimed.payload),
            })),
          };
    const owned = eq(webhookDeliveries.attempts, claimed.attempt);
    const retryIn = await withTenant(db, ref.orgId, async (tx) => {
      // The endpoint (or channel subscription) may have been deleted while the receiver was
      // called, its deliveries with it: the attempt is then dropped, nothing to record.
      if (!(await lockTarget(tx, ref, claimed))) return null;
      await tx.insert(webhookAttempts).values({
        organizationId: ref.orgId,
        endpointId: claimed.endpointId,
        deliveryId: ref.jobId,
        attempt: claimed.attempt,
        statusCode: outcome.statusCode,
        latencyMs: outcome.latencyMs,
        responseBody: outcome.responseBody,
        error: outcome.error,
      });
      if (outcome.ok) {
        await finishJob(tx, spec, ref, { lastStatusCode: outcome.statusCode }, owned);
        if (claimed.endpointId !== null) await recordEndpointSuccess(tx, ref.orgId, claimed.endpointId);
        return null;
      }
      if (claimed.endpointId !== null) await recordEndpointFailure(tx, ref.orgId, claimed.endpointId);
      if (!outcome.retry) {
        await failJobIn(tx, spec, ref, `attempt ${claimed.attempt} failed and cannot succeed: ${outcome.error}`, owned);
        return null;
      }
      if (claimed.attempt >= MAX_ATTEMPTS) {
        await failJobIn(tx, spec, ref, `all ${MAX_ATTEMPTS} attempts failed; the last: ${outcome.error}`, owned);
        return null;
      }
      // A chat provider that throttles (Slack's 429) says how long to wait: never sooner than that.
      const asked = 'retryAfterSeconds' in outcome ? (outcome.retryAfterSeconds ?? 0) : 0;
      const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(RETRY_DELAYS_SECONDS[claimed.attempt - 1], asked));
      await tx
        .update(webhookDeliveries)
        .set({
          status: 'queued',
          lastStatusCode: outcome.statusCode,
          error: `attempt ${claimed.attempt} failed: ${outcome.error}`,
          nextAttemptAt: sql`now() + make_interval(secs => ${delay})`,
          // The sweep's backstop: re-sent only if the delayed message has not claimed it by then.
          leaseExpiresAt: sql`now() + make_interval(secs => ${delay + WEBHOOK_LEASE_SECONDS})`,
          leaseResends: 0,
          updatedAt: sql`now()`,
        })
        .where(and(eq(webhookDeliveries.organizationId, ref.orgId), eq(webhookDeliveries.id, ref.jobId), owned));
      return delay;
    });
    if (retryIn !== null) {
      await env.JOBS.send(message, { delaySeconds: retryIn }).catch((error) =>
        log.warn('webhook retry not queued; the lease sweep will send it', { job_id: ref.jobId, error: String(error) }),
      );
    }
  },
};
