/**
 * Team chat (spec "Integrations": chat_a is Slack, chat_b is Microsoft Teams): channel lists and
 * test notifications, and beyond the spec a Teams test notification, channel subscriptions to
 * events (posted through the same event deliveries as webhooks), and the local provider's
 * messages. docs/domains/webhooks.md ("Team chat") holds the rules.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { created, list, ok } from '../../core/http';
import { wholeList } from '../../core/http';
import { EVENT_TYPES } from '../../core/event-types';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import type { ChatProviderName } from '../../db/schema';
import { chatConflict, chatSubscriptionConflict, chatUnavailable } from './responses';
import {
  AddChatSubscriptionBody,
  ChatChannelSchema,
  ChatLocalMessageSchema,
  ChatSubscriptionSchema,
  SlackChannelQuery,
  SlackTestBody,
  TeamsChannelQuery,
  TeamsTestBody,
  TestNotificationSchema,
  UpdateChatSubscriptionBody,
} from './schemas';
import {
  ChatLocalMessageListQuery,
  ChatSubscriptionListQuery,
  createChatSubscription,
  deleteChatSubscription,
  getChatSubscription,
  listChatChannels,
  listChatLocalMessages,
  listChatSubscriptions,
  sendTestNotification,
  updateChatSubscription,
} from './service';

export const chatRoutes = createRouter();
const tags = ['Team chat'];
const admin = { auth: 'bearer', roles: ['admin'] } as const;
const failures = { 409: chatConflict, 503: chatUnavailable };
const WHICH =
  'The organization’s chat connection answers (connected apps); without one, the local chat provider under `npm start` and in the tests, else 409 `chat_not_connected`.';
const SEARCH =
  '`search_value` keeps the channels whose name contains it (any letter case); the answer is the whole (filtered) list in one page.';
const EVENTS = `\`event_type\` is one of ${EVENT_TYPES.map((type) => `\`${type}\``).join(', ')} (the webhook events; default \`lead.created\`); another is a 422 listing them.`;

async function channels(
  c: Context<AppEnv>,
  provider: ChatProviderName,
  query: { search_value?: string; team_id?: string | null },
) {
  const rows = await listChatChannels(c.var.tenant, c.env, provider, query.team_id);
  const term = query.search_value?.toLowerCase();
  return list(c, wholeList(term ? rows.filter((channel) => channel.name.toLowerCase().includes(term)) : rows));
}

chatRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/chat_a/channels',
    operationId: 'listSlackChannels',
    tags,
    summary: 'The Slack channels the workspace can post to',
    description: `Lists public and private channels (not archived) through Slack's conversations.list, every page of its cursor, at most 1000. ${SEARCH} ${WHICH} Slack throttling: 503 with Slack's Retry-After; the bot token revoked: 409 \`connection_needs_reconnect\`.`,
    auth: 'bearer',
    request: { query: SlackChannelQuery },
    responses: { 200: listEnvelope(ChatChannelSchema, 'Every channel', { whole: true }), ...failures },
  }),
  (c) => channels(c, 'chat_a', c.req.valid('query')),
);

chatRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/chat_a/test-notification',
    operationId: 'sendSlackTestNotification',
    tags,
    summary: 'Post a test notification to a Slack channel',
    description: `Posts the sample message of an event, marked [Test], to \`channel\` at once (chat.postMessage: text and Block Kit). ${EVENTS} ${WHICH} A channel Slack does not know: 404; the bot not in the channel or another refusal: 422 \`provider_rejected\` naming Slack's error code.`,
    auth: 'bearer',
    // Reads, the provider's call, and for the local provider one insert: no transaction, so a
    // refused token's needs_reconnect mark (its own connection) never waits on this request's.
    transaction: false,
    request: { body: jsonBody(SlackTestBody) },
    responses: { 200: envelope(TestNotificationSchema, 'Posted'), ...failures },
  }),
  async (c) => ok(c, await sendTestNotification(c.var.tenant, c.env, 'chat_a', c.req.valid('json')), 'Posted'),
);

chatRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/chat_b/channels',
    operationId: 'listTeamsChannels',
    tags,
    summary: 'The Microsoft Teams channels of a team, or of every team joined',
    description: `Lists the channels of \`team_id\` (Graph GET /teams/{team_id}/channels), or without it of every team the connected account joined (GET /me/joinedTeams first, at most 25 teams), at most 1000. ${SEARCH} ${WHICH} Graph throttling: 503 with its Retry-After; the token refused: 409 \`connection_needs_reconnect\`; an unknown team: 404.`,
    auth: 'bearer',
    request: { query: TeamsChannelQuery },
    responses: { 200: listEnvelope(ChatChannelSchema, 'Every channel', { whole: true }), ...failures },
  }),
  (c) => channels(c, 'chat_b', c.req.valid('query')),
);

chatRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/chat_b/test-notification',
    operationId: 'sendTeamsTestNotification',
    tags,
    summary: 'Post a test notification to a Teams channel (beyond the spec)',
    description: `Posts the sample message of an event, marked [Test], as an Adaptive Card through the channel's Teams Workflows webhook URL: \`workflow_url\`, else the one stored with the channel's subscription (422 when neither; the local provider needs none). Graph cannot post to a channel as an app and Office 365 connectors are retired, hence the workflow. ${EVENTS} ${WHICH}`,
    auth: 'bearer',
    // Reads, the provider's call, and for the local provider one insert: no transaction, so a
    // refused token's needs_reconnect mark (its own connection) never waits on this request's.
    transaction: false,
    request: { body: jsonBody(TeamsTestBody) },
    responses: { 200: envelope(TestNotificationSchema, 'Posted'), ...failures },
  }),
  async (c) => ok(c, await sendTestNotification(c.var.tenant, c.env, 'chat_b', c.req.valid('json')), 'Posted'),
);

chatRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/chat/subscriptions',
    operationId: 'createChatSubscription',
    tags,
    summary: 'Subscribe a chat channel to events (admins only; beyond the spec)',
    description: `Each event listed is then posted to the channel when it happens, through the same event deliveries as webhooks (written in the change's transaction, retried on the same schedule). ${WHICH} A Teams channel needs its \`workflow_url\` (stored encrypted, never shown again). One subscription per channel: 409 \`duplicate_subscription\`.`,
    ...admin,
    // The connection's read, then one insert that settles the duplicate itself: no transaction.
    transaction: false,
    request: { body: jsonBody(AddChatSubscriptionBody) },
    responses: {
      201: envelope(ChatSubscriptionSchema, 'Subscribed'),
      409: chatSubscriptionConflict,
    },
  }),
  async (c) => created(c, await createChatSubscription(c.var.tenant, c.env, c.req.valid('json')), 'Subscribed'),
);

chatRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/chat/subscriptions',
    operationId: 'listChatSubscriptions',
    tags,
    summary: 'Chat channel subscriptions (admins only; beyond the spec)',
    description: 'The organization’s channel subscriptions to events; never a Workflows URL.',
    ...admin,
    request: { query: ChatSubscriptionListQuery },
    responses: { 200: listEnvelope(ChatSubscriptionSchema) },
  }),
  async (c) => list(c, await listChatSubscriptions(c.var.tenant, c.req.valid('query'))),
);

chatRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/chat/subscriptions/{id}',
    operationId: 'getChatSubscription',
    tags,
    summary: 'One chat channel subscription (admins only)',
    description: 'The subscription and its events. Another organization’s is a 404.',
    ...admin,
    request: { params: idParam() },
    responses: { 200: envelope(ChatSubscriptionSchema, 'The subscription') },
  }),
  async (c) => ok(c, await getChatSubscription(c.var.tenant, c.req.valid('param').id)),
);

chatRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/api/chat/subscriptions/{id}',
    operationId: 'updateChatSubscription',
    tags,
    summary: 'Change a chat channel subscription (admins only)',
    description: 'Changes the events, the name, the enabled flag, or a Teams channel’s Workflows URL.',
    ...admin,
    // One update; a miss only reads to say why: no transaction.
    transaction: false,
    request: { params: idParam(), body: jsonBody(UpdateChatSubscriptionBody) },
    responses: { 200: envelope(ChatSubscriptionSchema, 'Subscription updated') },
  }),
  async (c) =>
    ok(
      c,
      await updateChatSubscription(c.var.tenant, c.env, c.req.valid('param').id, c.req.valid('json')),
      'Subscription updated',
    ),
);

chatRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/chat/subscriptions/{id}',
    operationId: 'deleteChatSubscription',
    tags,
    summary: 'Delete a chat channel subscription (admins only)',
    description: 'Stops posting to the channel; its queued deliveries are not sent.',
    ...admin,
    // One delete (its deliveries go with it by the foreign key): no transaction.
    transaction: false,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Subscription deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteChatSubscription(c.var.tenant, id);
    return ok(c, { id }, 'Subscription deleted');
  },
);

chatRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/chat/local-messages',
    operationId: 'listChatLocalMessages',
    tags,
    summary: 'What the local chat provider posted (beyond the spec)',
    description:
      'The messages the offline chat provider took in place of Slack or Teams (development and tests), newest first by default, each with the request body the real provider would have received.',
    auth: 'bearer',
    request: { query: ChatLocalMessageListQuery },
    responses: { 200: listEnvelope(ChatLocalMessageSchema) },
  }),
  async (c) => list(c, await listChatLocalMessages(c.var.tenant, c.req.valid('query'))),
);
