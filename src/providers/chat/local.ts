/**
 * The local chat provider: offline and deterministic, used when the organization has no chat
 * connection and the Worker runs with local providers (`LOCAL_PROVIDERS=true`: `npm start` and
 * the tests), or for a connection whose provider is `local`. Its channels are a fixed set (a post
 * to another Slack channel fails as Slack's channel_not_found does, so a wrong id shows locally); what
 * it posts is a chat_local_messages row holding the message as Slack or the Teams workflow would
 * have received it, read back through GET /api/chat/local-messages. Nothing leaves the machine.
 */
import type { Queryable } from '../../db/client';
import { chatLocalMessages, type ChatProviderName } from '../../db/schema';
import { adaptiveCardMessage } from './teams';
import { slackFailure, slackMessageBody } from './slack';
import { type ChatChannel, type ChatProvider, plainText } from './interface';

export const LOCAL_TEAM_ID = 'local-team';

const SLACK_CHANNELS: ChatChannel[] = [
  { id: 'CLOCAL0001', name: 'general', team_id: null, is_private: false },
  { id: 'CLOCAL0002', name: 'sales', team_id: null, is_private: false },
  { id: 'CLOCAL0003', name: 'deal-desk', team_id: null, is_private: true },
];

const TEAMS_CHANNELS: ChatChannel[] = [
  { id: '19:local-general@thread.tacv2', name: 'General', team_id: LOCAL_TEAM_ID, is_private: false },
  { id: '19:local-sales@thread.tacv2', name: 'Sales', team_id: LOCAL_TEAM_ID, is_private: false },
];

export function localChannels(provider: ChatProviderName): ChatChannel[] {
  return provider === 'chat_a' ? SLACK_CHANNELS : TEAMS_CHANNELS;
}

export function localChat(db: Queryable, orgId: number, provider: ChatProviderName): ChatProvider {
  return {
    provider,
    local: true,
    async listChannels(query) {
      const channels = localChannels(provider);
      // Another team has no channels here, as Graph answers for a team the account cannot see.
      if (provider === 'chat_b' && query.teamId && query.teamId !== LOCAL_TEAM_ID) return [];
      return channels;
    },
    async post(target, message) {
      // A Slack channel it does not have is Slack's channel_not_found (a Teams post goes to its workflow's channel).
      if (provider === 'chat_a' && !SLACK_CHANNELS.some((channel) => channel.id === target.channelId)) {
        throw slackFailure('channel_not_found', 'message');
      }
      const wire = provider === 'chat_a' ? slackMessageBody(target.channelId, message) : adaptiveCardMessage(message);
      const [row] = await db
        .insert(chatLocalMessages)
        .values({
          organizationId: orgId,
          provider,
          channelId: target.channelId,
          eventType: message.eventType,
          text: plainText(message),
          message: wire as Record<string, unknown>,
          isTest: message.test,
        })
        .returning({ id: chatLocalMessages.id });
      return { messageId: `local-${row.id}` };
    },
  };
}
