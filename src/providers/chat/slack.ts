/**
 * chat_a: Slack, through the Web API over fetch (https://api.slack.com/web), with the connection's
 * bot token (`xoxb-…`, scopes `channels:read`, `groups:read` for private channels, `chat:write`).
 *
 *   - conversations.list (GET, `types=public_channel,private_channel`, `exclude_archived=true`,
 *     `limit=200`), paged by `response_metadata.next_cursor` until it is empty;
 *   - chat.postMessage (POST JSON: `channel`, `text` as the notification fallback, `blocks`).
 *
 * Slack answers most errors with HTTP 200 and `{ "ok": false, "error": "<code>" }`: the code is
 * mapped here (auth codes → needs_reconnect, channel_not_found → 404, ratelimited and Slack's own
 * faults → temporary, anything else → a refusal naming the code). Rate limits are HTTP 429 with
 * `Retry-After` in seconds, which failures.ts turns into the 503's Retry-After or the retry delay.
 * `@slack/web-api` is not used: it is built for Node (axios, retries that sleep inside the call),
 * and two methods do not need it.
 */
import { expectOk, ProviderFailure, providerFetch } from '../failures';
import {
  type ChatChannel,
  type ChatMessage,
  type ChatProvider,
  type ChatTarget,
  MAX_CHANNELS,
  plainText,
} from './interface';

export const SLACK_API = 'https://slack.com/api';
const NAME = 'Slack';
const PAGE_SIZE = 200;

const AUTH_ERRORS = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'org_login_required',
  'team_access_not_granted',
  'ekm_access_denied',
]);
const TEMPORARY_ERRORS = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

interface SlackAnswer {
  ok: boolean;
  error?: string;
}

/** The failure an `ok: false` answer stands for; only Slack's documented error code is kept, never other text. */
export function slackFailure(error: string | undefined, what: string): ProviderFailure {
  const code = error && /^[a-z_]{1,64}$/.test(error) ? error : 'unknown_error';
  if (AUTH_ERRORS.has(code)) return new ProviderFailure('auth', NAME, 200, `Slack refused the bot token (${code})`);
  if (code === 'channel_not_found') return new ProviderFailure('not_found', NAME, 200, 'Slack has no such channel');
  if (TEMPORARY_ERRORS.has(code))
    return new ProviderFailure(
      'unavailable',
      NAME,
      200,
      `Slack is unavailable (${code} on ${what}); try again later`,
      30,
    );
  return new ProviderFailure('rejected', NAME, 200, `Slack refused the ${what} (${code})`);
}

async function slackJson<T extends SlackAnswer>(response: Response, what: string): Promise<T> {
  await expectOk(NAME, response, what);
  const body = (await response.json()) as T;
  if (!body.ok) throw slackFailure(body.error, what);
  return body;
}

/** Slack's mrkdwn needs only &, < and > escaped (https://api.slack.com/reference/surfaces/formatting#escaping). */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The chat.postMessage body: `text` for notifications and clients without blocks, a section with up to 10 fields. */
export function slackMessageBody(channel: string, message: ChatMessage) {
  const blocks: Record<string, unknown>[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(message.title)}*` } },
  ];
  if (message.facts.length > 0) {
    blocks.push({
      type: 'section',
      fields: message.facts
        .slice(0, 10)
        .map((fact) => ({ type: 'mrkdwn', text: `*${escapeMrkdwn(fact.label)}*\n${escapeMrkdwn(fact.value)}` })),
    });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Event \`${message.eventType}\`` }] });
  return { channel, text: escapeMrkdwn(plainText(message)), blocks, unfurl_links: false };
}

interface ConversationsPage extends SlackAnswer {
  channels: { id: string; name: string; is_private?: boolean }[];
  response_metadata?: { next_cursor?: string };
}

export function slackWorkspace(botToken: () => Promise<string>): ChatProvider {
  const headers = async (json: boolean): Promise<Record<string, string>> => ({
    authorization: `Bearer ${await botToken()}`,
    ...(json ? { 'content-type': 'application/json; charset=utf-8' } : {}),
  });
  return {
    provider: 'chat_a',
    local: false,
    async listChannels(): Promise<ChatChannel[]> {
      const channels: ChatChannel[] = [];
      let cursor = '';
      do {
        const query = new URLSearchParams({
          types: 'public_channel,private_channel',
          exclude_archived: 'true',
          limit: String(PAGE_SIZE),
        });
        if (cursor) query.set('cursor', cursor);
        const response = await providerFetch(NAME, `${SLACK_API}/conversations.list?${query}`, {
          method: 'GET',
          headers: await headers(false),
        });
        const page = await slackJson<ConversationsPage>(response, 'channel list');
        for (const channel of page.channels ?? []) {
          channels.push({ id: channel.id, name: channel.name, team_id: null, is_private: channel.is_private === true });
        }
        cursor = page.response_metadata?.next_cursor ?? '';
      } while (cursor && channels.length < MAX_CHANNELS);
      return channels.slice(0, MAX_CHANNELS);
    },
    async post(target: ChatTarget, message: ChatMessage) {
      const response = await providerFetch(NAME, `${SLACK_API}/chat.postMessage`, {
        method: 'POST',
        headers: await headers(true),
        body: JSON.stringify(slackMessageBody(target.channelId, message)),
      });
      const body = await slackJson<SlackAnswer & { ts?: string }>(response, 'message');
      return { messageId: body.ts ?? null };
    },
  };
}
