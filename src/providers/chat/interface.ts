/**
 * What the rest of the code may ask of a team-chat provider: list the channels it can post to,
 * and post one event notification to one channel. Slack (chat_a, slack.ts) and Microsoft Teams
 * (chat_b, teams.ts) speak their own wire formats behind this; local.ts records what it is given.
 * Failures are ProviderFailure (providers/failures.ts), never the provider's own text.
 */
import type { EventType } from '../../core/event-types';
import type { ChatProviderName } from '../../db/schema';

export interface ChatChannel {
  /** The provider's channel id (Slack `C…`, Teams `19:…@thread.tacv2`). */
  id: string;
  name: string;
  /** Teams: the team holding the channel; null on Slack. */
  team_id: string | null;
  /** Slack: private channel; Teams: membershipType `private` or `shared`. */
  is_private: boolean;
}

/** One notification, provider-neutral: each adapter renders it (Slack text and Block Kit, a Teams Adaptive Card). */
export interface ChatMessage {
  eventType: EventType;
  /** One line, also the notification text of clients that show no blocks or cards. */
  title: string;
  /** Label and value pairs (lead, owner, score…), in order. */
  facts: { label: string; value: string }[];
  /** True for a test notification. */
  test: boolean;
}

/** Where a message goes: the channel, and for Teams the Workflows webhook URL that posts to it. */
export interface ChatTarget {
  channelId: string;
  workflowUrl?: string | null;
}

export interface PostedChatMessage {
  /** The provider's id of the posted message (Slack's `ts`); null when it does not say (Teams Workflows answer 202). */
  messageId: string | null;
}

export interface ChannelQuery {
  /** Teams: the team whose channels to list; absent: every team the account joined (me/joinedTeams). */
  teamId?: string;
}

export interface ChatProvider {
  readonly provider: ChatProviderName;
  /** True for the offline provider (its messages are read back through GET /api/chat/local-messages). */
  readonly local: boolean;
  listChannels(query: ChannelQuery): Promise<ChatChannel[]>;
  post(target: ChatTarget, message: ChatMessage): Promise<PostedChatMessage>;
}

/**
 * What a Slack connection keeps sealed: the bot token (`xoxb-…`) as `access_token`, exactly as the
 * connected-apps connect route stores it (modules/integrations/connected-apps.ts). A Teams
 * connection keeps a Microsoft Graph OAuth token (providers/oauth.ts).
 */
export interface SlackCredentials {
  access_token: string;
}

/** At most this many channels are listed (Slack pages of 200, followed by cursor; Teams teams × channels). */
export const MAX_CHANNELS = 1000;

/** Plain text of a message: its title, then one `label: value` line per fact. */
export function plainText(message: ChatMessage): string {
  return [message.title, ...message.facts.map((fact) => `${fact.label}: ${fact.value}`)].join('\n');
}
