/**
 * One attempt at posting an event to a subscribed channel, through the organization's current
 * chat connection of the provider (as the routes choose it, providers/chat/select.ts), for the event delivery job
 * (modules/webhooks/delivery-job.ts, which fans events out to webhook endpoints and chat channels
 * alike and keeps the retry schedule). It never throws for the provider's sake: the outcome says
 * whether to retry. A temporary failure (429 with Retry-After, 5xx, no answer) is retried on the
 * schedule; a token that stopped working marks the connection needs_reconnect (its owner is told
 * once) and ends the delivery, as does any other refusal (a channel gone, the bot not in it).
 */
import { and, eq } from 'drizzle-orm';
import type { EventType } from '../../core/event-types';
import { type Database, withTenant } from '../../db/client';
import { chatSubscriptions } from '../../db/schema';
import type { Bindings } from '../../env';
import { localChat } from '../../providers/chat/local';
import { chatProviderFor, findChatConnection, localProvidersAllowed } from '../../providers/chat/select';
import { markNeedsReconnect, poolWriter } from '../../providers/connections';
import { ProviderFailure } from '../../providers/failures';
import { keyringOf, openSecret } from '../../providers/secrets';
import { eventMessage } from './messages';

export interface ChatDeliveryOutcome {
  ok: boolean;
  /** False: retrying cannot help (the delivery fails now). */
  retry: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** How long the provider asked us to wait before the next try (its Retry-After), when it did. */
  retryAfterSeconds?: number | null;
}

export async function deliverChatEvent(
  db: Database,
  env: Bindings,
  orgId: number,
  subscriptionId: number,
  payload: { type: EventType; data: Record<string, unknown> },
): Promise<ChatDeliveryOutcome> {
  const started = Date.now();
  const done = (outcome: Omit<ChatDeliveryOutcome, 'latencyMs'>) => ({ ...outcome, latencyMs: Date.now() - started });
  const { subscription, connection } = await withTenant(db, orgId, async (tx) => {
    const [row] = await tx
      .select()
      .from(chatSubscriptions)
      .where(and(eq(chatSubscriptions.organizationId, orgId), eq(chatSubscriptions.id, subscriptionId)));
    return { subscription: row, connection: row ? await findChatConnection(tx, orgId, row.provider) : null };
  });
  if (!subscription?.enabled)
    return done({ ok: false, retry: false, statusCode: null, error: 'the subscription is disabled' });
  if (!connection && !localProvidersAllowed(env))
    return done({ ok: false, retry: false, statusCode: null, error: `no ${subscription.provider} connection` });
  const message = eventMessage(payload.type, payload.data ?? {});
  try {
    const workflowUrl = subscription.workflowUrlSealed
      ? await openSecret<string>(await keyringOf(env), orgId, subscription.workflowUrlSealed)
      : null;
    const target = { channelId: subscription.channelId, workflowUrl };
    if (!connection || connection.provider === 'local') {
      // The local provider writes its record: inside the organization's scope.
      await withTenant(db, orgId, (tx) => localChat(tx, orgId, subscription.provider).post(target, message));
    } else {
      const chat = chatProviderFor({ env, db, writer: poolWriter(db) }, orgId, subscription.provider, connection);
      await chat.post(target, message);
    }
    return done({ ok: true, retry: false, statusCode: 200, error: null });
  } catch (error) {
    if (!(error instanceof ProviderFailure)) {
      const reason = error instanceof Error && 'status' in error ? error.message : 'the message could not be posted';
      return done({ ok: false, retry: false, statusCode: null, error: reason });
    }
    if (error.kind === 'auth' && connection) {
      await poolWriter(db).run(orgId, (tx) => markNeedsReconnect(tx, connection, error.reason));
    }
    return done({
      ok: false,
      retry: error.kind === 'unavailable',
      statusCode: error.status,
      error: error.reason,
      retryAfterSeconds: error.retryAfterSeconds,
    });
  }
}
