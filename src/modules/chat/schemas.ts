/**
 * Request and response shapes of team chat: channels, test notifications, channel subscriptions
 * and the local provider's messages. chat_a is Slack, chat_b is Microsoft Teams.
 */
import { z } from '@hono/zod-openapi';
import { EVENT_TYPES, eventTypeSchema } from '../../core/event-types';
import { listParamsShape } from '../../core/list';
import { optionalText, text, timestamp, webUrl } from '../../core/schemas';
import { CHAT_PROVIDERS } from '../../db/schema';

const channelId = text(1, 255).regex(/^\S+$/, 'must be a channel id without spaces').openapi({
  description: 'The channel’s id from the channel list (Slack `C…`, Teams `19:…@thread.tacv2`)',
  example: 'C0123ABCD',
});

const eventType = eventTypeSchema.optional().openapi({
  description: `The event to show (default lead.created), one of: ${EVENT_TYPES.join(', ')}`,
  example: 'deal.won',
});

// The one URL rule (core/web-url.ts) first, then the Workflows hosts (providers/chat/teams.ts) in the service.
const workflowUrl = webUrl(2048).openapi({
  description:
    'The Teams Workflows webhook URL that posts to this channel (the workflow “Post to a channel when a webhook request is received”): https on a logic.azure.com or api.powerplatform.com host. It is a credential: stored encrypted and never shown again',
  example:
    'https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=xyz',
});

const events = z
  .array(eventTypeSchema)
  .min(1, 'must list at least one event')
  .max(EVENT_TYPES.length)
  .openapi({ description: `The events posted to the channel, from: ${EVENT_TYPES.join(', ')}`, example: ['deal.won'] });

export const ChatChannelSchema = z
  .object({
    id: z.string().openapi({ description: 'The channel’s id (what `channel` takes)' }),
    name: z.string().openapi({ description: 'The channel’s name' }),
    team_id: z.string().nullable().openapi({ description: 'Teams: the team holding it; null on Slack' }),
    is_private: z.boolean().openapi({ description: 'Whether it is a private (or shared) channel' }),
  })
  .openapi('ChatChannel', {
    description: 'A channel the connected workspace can post to',
    example: { id: 'C0123ABCD', name: 'sales', team_id: null, is_private: false },
  });

const channelSearch = listParamsShape.search_value.openapi({
  description: 'Only the channels whose name contains this text (any letter case)',
  example: 'sales',
});

export const SlackChannelQuery = z.object({ search_value: channelSearch });

export const TeamsChannelQuery = z.object({
  search_value: channelSearch,
  team_id: optionalText(200).openapi({
    description: 'The team whose channels to list; absent: the channels of every team the account joined',
    example: '172b0cce-e65d-44ce-9a49-91d9f2e8493a',
  }),
});

export const SlackTestBody = z
  .object({ channel: channelId, event_type: eventType })
  .openapi('SlackTestNotificationRequest', {
    description: 'A test notification to a Slack channel',
    example: { channel: 'C0123ABCD', event_type: 'deal.won' },
  });
export type SlackTestInput = z.infer<typeof SlackTestBody>;

export const TeamsTestBody = z
  .object({
    channel: channelId,
    event_type: eventType,
    workflow_url: workflowUrl.optional().openapi({
      description:
        'The channel’s Teams Workflows webhook URL; absent: the one of the channel’s subscription. Not needed with the local provider',
    }),
  })
  .openapi('TeamsTestNotificationRequest', {
    description: 'A test notification to a Teams channel (beyond the spec)',
    example: { channel: '19:local-sales@thread.tacv2', event_type: 'intent.hot' },
  });
export type TeamsTestInput = z.infer<typeof TeamsTestBody>;

export const TestNotificationSchema = z
  .object({
    provider: z.enum(CHAT_PROVIDERS).openapi({ description: 'chat_a (Slack) or chat_b (Microsoft Teams)' }),
    local: z.boolean().openapi({ description: 'True when the local chat provider took it (no outside service)' }),
    channel: z.string().openapi({ description: 'The channel posted to' }),
    event_type: z.string().openapi({ description: 'The event shown' }),
    message_id: z.string().nullable().openapi({
      description: 'The provider’s message id (Slack `ts`, `local-<id>`); null for Teams, whose workflows do not say',
    }),
    text: z.string().openapi({ description: 'The message’s plain text' }),
  })
  .openapi('TestNotification', {
    description: 'The test notification that was posted',
    example: {
      provider: 'chat_a',
      local: false,
      channel: 'C0123ABCD',
      event_type: 'deal.won',
      message_id: '1503435956.000247',
      text: '[Test] Deal won: Analytical Engines, 10 seats\nValue: 12000\nDeal: #1',
    },
  });

export const AddChatSubscriptionBody = z
  .object({
    provider: z.enum(CHAT_PROVIDERS).openapi({ description: 'chat_a (Slack) or chat_b (Microsoft Teams)' }),
    channel: channelId,
    channel_name: optionalText(255).openapi({ description: 'The channel’s name, for display' }),
    team_id: optionalText(200).openapi({ description: 'Teams: the team holding the channel' }),
    events,
    workflow_url: workflowUrl.optional().openapi({
      description: 'Teams (chat_b): required unless the local provider posts; see the Teams test notification',
    }),
    enabled: z.boolean().optional().openapi({ description: 'Whether events are posted (default true)' }),
  })
  .openapi('AddChatSubscriptionRequest', {
    description: 'A channel that subscribes to events',
    example: { provider: 'chat_a', channel: 'C0123ABCD', channel_name: 'sales', events: ['deal.won', 'intent.hot'] },
  });
export type AddChatSubscriptionInput = z.infer<typeof AddChatSubscriptionBody>;

export const UpdateChatSubscriptionBody = z
  .object({
    channel_name: optionalText(255).openapi({ description: 'The channel’s name; null clears it' }),
    events: events.optional(),
    workflow_url: workflowUrl.optional().openapi({ description: 'Teams: a new Workflows webhook URL' }),
    enabled: z.boolean().optional().openapi({ description: 'false stops posting; true posts again' }),
  })
  .openapi('UpdateChatSubscriptionRequest', { description: 'The fields to change', example: { enabled: false } });
export type UpdateChatSubscriptionInput = z.infer<typeof UpdateChatSubscriptionBody>;

export const ChatSubscriptionSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The subscription’s id' }),
    provider: z.enum(CHAT_PROVIDERS).openapi({ description: 'chat_a (Slack) or chat_b (Microsoft Teams)' }),
    channel: z.string().openapi({ description: 'The channel’s id' }),
    channel_name: z.string().nullable().openapi({ description: 'The channel’s name, or null' }),
    team_id: z.string().nullable().openapi({ description: 'Teams: the team, or null' }),
    events: z.array(z.string()).openapi({ description: 'The events posted to the channel' }),
    enabled: z.boolean().openapi({ description: 'Whether events are posted' }),
    has_workflow_url: z.boolean().openapi({ description: 'Teams: whether a Workflows URL is stored (never shown)' }),
    connection_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The chat connection it posts through; null: the local provider' }),
    last_delivery: z
      .object({
        status: z.enum(['completed', 'failed']).openapi({ description: 'completed: posted; failed: given up' }),
        error: z.string().nullable().openapi({
          description: 'Why it failed (e.g. Slack’s `not_in_channel`: invite the app to the channel); null when posted',
        }),
        finished_at: timestamp('When it ended'),
      })
      .nullable()
      .openapi({
        description:
          'How the latest finished event delivery to the channel ended; null before any has. A channel that refuses events (the app not invited, the channel archived, a workflow deleted) shows here',
      }),
    created_at: timestamp('When it was created'),
    updated_at: timestamp('When it last changed'),
  })
  .openapi('ChatSubscription', {
    description: 'A channel’s subscription to events',
    example: {
      id: 3,
      provider: 'chat_a',
      channel: 'C0123ABCD',
      channel_name: 'sales',
      team_id: null,
      events: ['deal.won', 'intent.hot'],
      enabled: true,
      has_workflow_url: false,
      connection_id: 12,
      last_delivery: { status: 'completed', error: null, finished_at: '2026-11-21T10:02:11.000Z' },
      created_at: '2026-11-20T09:30:00.000Z',
      updated_at: '2026-11-20T09:30:00.000Z',
    },
  });

export const ChatLocalMessageSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The message’s id' }),
    provider: z.enum(CHAT_PROVIDERS).openapi({ description: 'The provider it stood in for' }),
    channel: z.string().openapi({ description: 'The channel it was posted to' }),
    event_type: z.string().openapi({ description: 'The event it shows' }),
    is_test: z.boolean().openapi({ description: 'Whether it was a test notification' }),
    text: z.string().openapi({ description: 'The plain text' }),
    message: z.record(z.string(), z.unknown()).openapi({
      description:
        'The request body the real provider would have received (Slack chat.postMessage, or the Teams workflow’s Adaptive Card message)',
    }),
    created_at: timestamp('When it was posted'),
  })
  .openapi('ChatLocalMessage', {
    description: 'A message the local chat provider posted',
    example: {
      id: 1,
      provider: 'chat_a',
      channel: 'CLOCAL0002',
      event_type: 'lead.created',
      is_test: true,
      text: '[Test] New lead: Ada Lovelace\nEmail: ada@example.com',
      message: { channel: 'CLOCAL0002', text: '[Test] New lead: Ada Lovelace' },
      created_at: '2026-11-20T09:30:00.000Z',
    },
  });
