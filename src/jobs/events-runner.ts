/**
 * The events queue (tracking hits from the pixel and the click redirect) and its dead-letter
 * queue. A batch is grouped by organization; each group is recorded in one transaction scoped
 * to it (modules/tracking/hits.ts) and acknowledged, or retried as a whole when it fails (the
 * records are idempotent, so a partly seen group is harmless). After wrangler.toml's
 * max_retries a message goes to the dead-letter queue, whose consumer logs it and acknowledges:
 * a lost open or click costs a few points of intent score, not worth more machinery.
 */
import { errorText, log } from '../core/log';
import { withTenantEffects } from '../core/transaction-effects';
import { withOwnDatabase } from '../db/client';
import { readConfig, type Bindings } from '../env';
import { isUnsubscribeRequest, recordUnsubscribes } from '../modules/mail';
import { isTrackingHit, recordHits } from '../modules/tracking';
import type { TrackingHit, UnsubscribeRequest } from './messages';

export const EVENTS_QUEUE = 'lead-management-events';
export const EVENTS_DEAD_LETTER_QUEUE = 'lead-management-events-dlq';

export function isEventsQueue(queue: string): boolean {
  return queue === EVENTS_QUEUE || queue === EVENTS_DEAD_LETTER_QUEUE;
}

export async function runEventsBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const groups = new Map<
    number,
    { hits: TrackingHit[]; unsubscribes: UnsubscribeRequest[]; messages: Message<unknown>[] }
  >();
  for (const message of batch.messages) {
    const body = message.body;
    if (!isTrackingHit(body) && !isUnsubscribeRequest(body)) {
      log.warn('events queue: dropped a message that is not a tracking hit', { message_id: message.id });
      message.ack();
      continue;
    }
    const group = groups.get(body.orgId) ?? { hits: [], unsubscribes: [], messages: [] };
    if (isUnsubscribeRequest(body)) group.unsubscribes.push(body);
    else group.hits.push(body);
    group.messages.push(message);
    groups.set(body.orgId, group);
  }
  if (groups.size === 0) return;
  return withOwnDatabase(readConfig(env), async (db) => {
    for (const [orgId, group] of groups) {
      try {
        await withTenantEffects(db, env, orgId, async (tx, effects) => {
          if (group.hits.length > 0) await recordHits(tx, orgId, group.hits, effects);
          await recordUnsubscribes(tx, orgId, group.unsubscribes);
        });
        for (const message of group.messages) message.ack();
      } catch (error) {
        log.error('events queue: recording hits failed, retrying', {
          org_id: orgId,
          hits: group.hits.length,
          error: errorText(error),
        });
        for (const message of group.messages) {
          message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
        }
      }
    }
  });
}

/** Hits the events queue gave up on: logged (kind, organization, lead; never the token) and acknowledged. */
export async function runEventsDeadLetterBatch(batch: MessageBatch<unknown>): Promise<void> {
  for (const message of batch.messages) {
    const hit = isTrackingHit(message.body) ? message.body : null;
    log.error('events queue: tracking hit dead-lettered, not recorded', {
      message_id: message.id,
      attempts: message.attempts,
      kind: hit?.kind ?? null,
      org_id: hit?.orgId ?? null,
      lead_id: hit?.leadId ?? null,
    });
    message.ack();
  }
}

export function consumeEvents(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  return batch.queue === EVENTS_DEAD_LETTER_QUEUE ? runEventsDeadLetterBatch(batch) : runEventsBatch(batch, env);
}
