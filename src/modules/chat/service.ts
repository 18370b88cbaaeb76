/**
 * Team chat for the organization: the channels of its Slack (chat_a) or Teams (chat_b)
 * workspace, test notifications, and channel subscriptions to events. Which provider answers is
 * decided once (providers/chat/select.ts): the organization's chat connection, else the local
 * provider under `npm start` and the tests, else 409 `chat_not_connected`. Provider calls a client
 * waits on go through providers/calls.ts (503 with Retry-After when throttled, 409 when the
 * token stopped working).
 */
import { eq, ilike, sql } from 'drizzle-orm';
import { Conflict, NotFound, ValidationFailed } from '../../core/errors';
import type { EventType } from '../../core/event-types';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp, isoTimestampSql } from '../../core/schemas';
import { type ChatProviderName, chatLocalMessages, chatSubscriptions, webhookDeliveries } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { callProvider } from '../../providers/calls';
import { ProviderFailure, routeErrorOf } from '../../providers/failures';
import type { ChatProvider } from '../../providers/chat/interface';
import { chatProviderFor, findChatConnection } from '../../providers/chat/select';
import { workflowUrlProblem } from '../../providers/chat/teams';
import { type ConnectionRow, requestWriter, requireUsable } from '../../providers/connections';
import { keyringOf, openSecret, sealSecret } from '../../providers/secrets';
import { testMessage } from './messages';
import type { AddChatSubscriptionInput, SlackTestInput, TeamsTestInput, UpdateChatSubscriptionInput } from './schemas';

/** The provider answering for the organization, and how to call it while the client waits. */
async function chatFor(ctx: TenantContext, env: Bindings, provider: ChatProviderName) {
  const connection = await findChatConnection(ctx.db, ctx.orgId, provider);
  const writer = requestWriter(env);
  const chat = chatProviderFor({ env, db: ctx.db, writer }, ctx.orgId, provider, connection);
  // The local provider (no connection) fails as the real one would: the same answers (404, 422, 503).
  const call = <T>(what: string, work: (chat: ChatProvider) => Promise<T>) =>
    connection
      ? callProvider(writer, connection, what, () => work(chat))
      : work(chat).catch((error: unknown) => {
          throw error instanceof ProviderFailure ? routeErrorOf(error, what) : error;
        });
  return { connection, chat, call };
}

export async function listChatChannels(
  ctx: TenantContext,
  env: Bindings,
  provider: ChatProviderName,
  teamId?: string | null,
) {
  const { call } = await chatFor(ctx, env, provider);
  return call('channel list', (chat) => chat.listChannels({ teamId: teamId || undefined }));
}

function checkWorkflowUrl(url: string): void {
  const problem = workflowUrlProblem(url);
  if (problem) throw ValidationFailed.field('workflow_url', problem);
}

async function sealWorkflowUrl(env: Bindings, orgId: number, url: string) {
  checkWorkflowUrl(url);
  const { sealed, keyId } = await sealSecret(await keyringOf(env), orgId, url);
  return { workflowUrlSealed: sealed, workflowUrlKeyId: keyId };
}

/** The stored Workflows URL of a Teams channel's subscription, opened; null when there is none. */
async function subscribedWorkflowUrl(ctx: TenantContext, env: Bindings, channel: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ sealed: chatSubscriptions.workflowUrlSealed })
    .from(chatSubscriptions)
    .where(
      tenantWhere(
        ctx,
        chatSubscriptions,
        eq(chatSubscriptions.provider, 'chat_b'),
        eq(chatSubscriptions.channelId, channel),
      ),
    );
  return row?.sealed ? openSecret<string>(await keyringOf(env), ctx.orgId, row.sealed) : null;
}

/**
 * Posts a test notification of the event (lead.created when none is named) to the channel, at
 * once (not through the queue: the caller wants to see it work or fail).
 */
export async function sendTestNotification(
  ctx: TenantContext,
  env: Bindings,
  provider: ChatProviderName,
  input: SlackTestInput | TeamsTestInput,
) {
  const eventType: EventType = input.event_type ?? 'lead.created';
  const { chat, call } = await chatFor(ctx, env, provider);
  let workflowUrl: string | null = null;
  if (provider === 'chat_b' && !chat.local) {
    const given = 'workflow_url' in input ? input.workflow_url : undefined;
    if (given) checkWorkflowUrl(given);
    workflowUrl = given ?? (await subscribedWorkflowUrl(ctx, env, input.channel));
    if (!workflowUrl) {
      throw ValidationFailed.field(
        'workflow_url',
        'is required: Teams posts through the channel’s Workflows webhook URL, and the channel has no subscription holding one',
      );
    }
  }
  const message = testMessage(eventType);
  const posted = await call('message', (chat) => chat.post({ channelId: input.channel, workflowUrl }, message));
  return {
    provider,
    local: chat.local,
    channel: input.channel,
    event_type: eventType,
    message_id: posted.messageId,
    text: [message.title, ...message.facts.map((fact) => `${fact.label}: ${fact.value}`)].join('\n'),
  };
}

/** How the subscription's last delivery ended (status, reason, when); null before any has. */
interface LastDelivery {
  status: 'completed' | 'failed';
  error: string | null;
  finished_at: string;
}

/**
 * The subscription's latest finished delivery, so an admin can see a channel that refuses every
 * event (the bot not invited, the channel archived, a workflow deleted): chat deliveries have no
 * attempt log of their own. It reads the subscription's deliveries newest first on
 * webhook_deliveries_chat_subscription_idx (migration 0096), to the first that ended. The columns
 * are qualified by the table's name: an insert's or update's RETURNING names them bare, which
 * inside this subquery would be the delivery's own.
 */
const lastDelivery = sql<LastDelivery | null>`(
  select jsonb_build_object('status', d.status, 'error', d.error,
    'finished_at', ${isoTimestampSql(sql`d.finished_at`)})
  from ${webhookDeliveries} d
  where d.chat_subscription_id = ${chatSubscriptions}.id and d.organization_id = ${chatSubscriptions}.organization_id
    and d.status in ('completed', 'failed')
  order by d.id desc limit 1)`;

const subscriptionFields = {
  id: chatSubscriptions.id,
  provider: chatSubscriptions.provider,
  channelId: chatSubscriptions.channelId,
  channelName: chatSubscriptions.channelName,
  teamId: chatSubscriptions.teamId,
  events: chatSubscriptions.events,
  enabled: chatSubscriptions.enabled,
  hasWorkflowUrl: sql<boolean>`${chatSubscriptions.workflowUrlSealed} is not null`,
  connectionId: chatSubscriptions.connectionId,
  lastDelivery,
  createdAt: chatSubscriptions.createdAt,
  updatedAt: chatSubscriptions.updatedAt,
};

interface SubscriptionRow {
  id: number;
  provider: ChatProviderName;
  channelId: string;
  channelName: string | null;
  teamId: string | null;
  events: string[];
  enabled: boolean;
  hasWorkflowUrl: boolean;
  connectionId: number | null;
  lastDelivery: LastDelivery | null;
  createdAt: Date;
  updatedAt: Date;
}

function presentSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    provider: row.provider,
    channel: row.channelId,
    channel_name: row.channelName,
    team_id: row.teamId,
    events: row.events,
    enabled: row.enabled,
    has_workflow_url: row.hasWorkflowUrl,
    connection_id: row.connectionId,
    last_delivery: row.lastDelivery,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

/**
 * Subscribes a channel to events. It posts through the organization's chat connection of the
 * provider (the local provider without one, where allowed; 409 otherwise); a Teams channel needs
 * its Workflows URL unless the local provider posts. One subscription per channel: 409 otherwise.
 */
export async function createChatSubscription(ctx: TenantContext, env: Bindings, input: AddChatSubscriptionInput) {
  const connection: ConnectionRow | null = await findChatConnection(ctx.db, ctx.orgId, input.provider);
  // Slack posts with the connection's token: one that stopped working is 409 here, not failed deliveries later.
  if (connection && input.provider === 'chat_a') requireUsable(connection);
  const chat = chatProviderFor({ env, db: ctx.db, writer: requestWriter(env) }, ctx.orgId, input.provider, connection);
  if (input.provider === 'chat_b' && !chat.local && !input.workflow_url)
    throw ValidationFailed.field('workflow_url', 'is required for a Teams channel: events are posted through it');
  if (input.provider === 'chat_a' && input.workflow_url)
    throw ValidationFailed.field('workflow_url', 'is for Teams channels only: Slack posts with the bot token');
  const sealed = input.workflow_url ? await sealWorkflowUrl(env, ctx.orgId, input.workflow_url) : {};
  const [row] = await ctx.db
    .insert(chatSubscriptions)
    .values({
      organizationId: ctx.orgId,
      provider: input.provider,
      connectionId: connection?.id ?? null,
      channelId: input.channel,
      channelName: input.channel_name ?? null,
      teamId: input.team_id ?? null,
      events: [...new Set(input.events)],
      enabled: input.enabled ?? true,
      ...sealed,
      createdBy: ctx.userId,
    })
    .onConflictDoNothing()
    .returning(subscriptionFields);
  if (!row) {
    throw new Conflict(
      `The ${input.provider} channel ${input.channel} already has a subscription`,
      'duplicate_subscription',
      {
        provider: input.provider,
        channel: input.channel,
      },
    );
  }
  return presentSubscription(row);
}

export const chatSubscriptionList = defineList({
  sort: {
    id: chatSubscriptions.id,
    channel_name: chatSubscriptions.channelName,
    created_at: chatSubscriptions.createdAt,
  },
  search: (term) =>
    ilike(sql`coalesce(${chatSubscriptions.channelName}, ${chatSubscriptions.channelId})`, containsPattern(term)),
  createdAt: chatSubscriptions.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...subscriptionFields, ...columns })
        .from(chatSubscriptions)
        .$dynamic(),
    where: tenantWhere(ctx, chatSubscriptions),
  }),
  present: (row) => presentSubscription(row),
});
export const ChatSubscriptionListQuery = chatSubscriptionList.query;
export const listChatSubscriptions = chatSubscriptionList.run;

export async function getChatSubscription(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select(subscriptionFields)
    .from(chatSubscriptions)
    .where(tenantWhere(ctx, chatSubscriptions, eq(chatSubscriptions.id, id)));
  if (!row) throw new NotFound('Chat subscription', id);
  return presentSubscription(row);
}

export async function updateChatSubscription(
  ctx: TenantContext,
  env: Bindings,
  id: number,
  input: UpdateChatSubscriptionInput,
) {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  if (input.channel_name !== undefined) set.channelName = input.channel_name;
  if (input.events !== undefined) set.events = [...new Set(input.events)];
  if (input.enabled !== undefined) set.enabled = input.enabled;
  if (input.workflow_url !== undefined) Object.assign(set, await sealWorkflowUrl(env, ctx.orgId, input.workflow_url));
  const [row] = await ctx.db
    .update(chatSubscriptions)
    .set(set)
    .where(
      tenantWhere(
        ctx,
        chatSubscriptions,
        eq(chatSubscriptions.id, id),
        // A Workflows URL only for a Teams channel: on a Slack one the update finds nothing to change.
        input.workflow_url !== undefined ? eq(chatSubscriptions.provider, 'chat_b') : undefined,
      ),
    )
    .returning(subscriptionFields);
  if (!row) {
    if (input.workflow_url !== undefined) await getChatSubscription(ctx, id);
    if (input.workflow_url !== undefined)
      throw ValidationFailed.field('workflow_url', 'is for Teams channels only: Slack posts with the bot token');
    throw new NotFound('Chat subscription', id);
  }
  return presentSubscription(row);
}

/** Deletes the subscription with its queued deliveries. */
export async function deleteChatSubscription(ctx: TenantContext, id: number): Promise<void> {
  const deleted = await ctx.db
    .delete(chatSubscriptions)
    .where(tenantWhere(ctx, chatSubscriptions, eq(chatSubscriptions.id, id)))
    .returning({ id: chatSubscriptions.id });
  if (deleted.length === 0) throw new NotFound('Chat subscription', id);
}

export const chatLocalMessageList = defineList({
  sort: { id: chatLocalMessages.id, created_at: chatLocalMessages.createdAt },
  search: (term) => ilike(chatLocalMessages.text, containsPattern(term)),
  createdAt: chatLocalMessages.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({
          id: chatLocalMessages.id,
          provider: chatLocalMessages.provider,
          channelId: chatLocalMessages.channelId,
          eventType: chatLocalMessages.eventType,
          isTest: chatLocalMessages.isTest,
          text: chatLocalMessages.text,
          message: chatLocalMessages.message,
          createdAt: chatLocalMessages.createdAt,
          ...columns,
        })
        .from(chatLocalMessages)
        .$dynamic(),
    where: tenantWhere(ctx, chatLocalMessages),
  }),
  present: (row) => ({
    id: row.id,
    provider: row.provider,
    channel: row.channelId,
    event_type: row.eventType,
    is_test: row.isTest,
    text: row.text,
    message: row.message,
    created_at: isoTimestamp(row.createdAt) as string,
  }),
});
export const ChatLocalMessageListQuery = chatLocalMessageList.query;
export const listChatLocalMessages = chatLocalMessageList.run;
