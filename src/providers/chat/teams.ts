/**
 * chat_b: Microsoft Teams. Two different doors, because Teams has no single API that both lists
 * channels and lets an app post into them as itself:
 *
 *   - Channels are listed through Microsoft Graph with the connection's delegated OAuth token
 *     (providers/oauth.ts; permissions `Team.ReadBasic.All` and `Channel.ReadBasic.All`):
 *     `GET /teams/{team_id}/channels`, or without a team `GET /me/joinedTeams` first and then each
 *     team's channels, following `@odata.nextLink` when Graph pages.
 *   - Messages are posted through a Teams **Workflows** webhook URL, one per channel (the
 *     "Post to a channel when a webhook request is received" workflow, made in the channel), as a
 *     message with one Adaptive Card attachment. Graph's `POST /teams/{id}/channels/{id}/messages`
 *     posts only as a signed-in user (application permissions are for migration imports), and the
 *     Office 365 connectors ("incoming webhooks") that used to take such posts are retired by
 *     Microsoft; Workflows are their documented replacement. The URL itself carries the right to
 *     post (its `sig` parameter), so it is stored sealed like a credential, and only URLs on
 *     Microsoft's Workflows hosts are accepted (this is server-side request forgery's door too).
 */
import { expectOk, failureOf, ProviderFailure, providerFetch } from '../failures';
import {
  type ChatChannel,
  type ChatMessage,
  type ChatProvider,
  type ChatTarget,
  type ChannelQuery,
  MAX_CHANNELS,
  plainText,
} from './interface';

export const GRAPH = 'https://graph.microsoft.com/v1.0';
const NAME = 'Microsoft Teams';
/** Teams listed without a team_id: at most this many teams' channels are read. */
const MAX_TEAMS = 25;

/** Hosts of Teams Workflows (Power Automate) webhook URLs: the older Logic Apps hosts and the Power Platform ones. */
const WORKFLOW_HOSTS = [/\.logic\.azure\.com$/, /\.api\.powerplatform\.com$/];

/** Why a Workflows URL is refused; null when it is one (https, port 443, a Microsoft Workflows host). */
export function workflowUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol !== 'https:' || url.port !== '' || url.username || url.password)
    return 'must be an https URL on the standard port';
  if (!WORKFLOW_HOSTS.some((host) => host.test(url.hostname)))
    return 'must be a Teams Workflows webhook URL (a host under logic.azure.com or api.powerplatform.com)';
  return null;
}

/**
 * The Workflows request: a message with one Adaptive Card (schema 1.4, which Teams renders).
 * The message's text comes from records (a web form visitor's name, an email), and Teams renders
 * Markdown in a TextBlock and in a FactSet's values: `[Verify](https://evil.example)` in a name
 * became a disguised link and `first_last_name@…` lost its underscores to italics. So that text
 * goes in TextRuns of RichTextBlocks, which Teams shows as written (no Markdown; backslash
 * escapes are not rendered alike by every Teams client), one line per fact, label in bold.
 */
export function adaptiveCardMessage(message: ChatMessage) {
  const run = (text: string, style: Record<string, unknown> = {}) => ({ type: 'TextRun', text, ...style });
  const body: Record<string, unknown>[] = [
    { type: 'RichTextBlock', inlines: [run(message.title, { weight: 'Bolder', size: 'Medium' })] },
  ];
  for (const [index, fact] of message.facts.entries()) {
    body.push({
      type: 'RichTextBlock',
      ...(index === 0 ? {} : { spacing: 'None' }),
      inlines: [run(`${fact.label}: `, { weight: 'Bolder' }), run(fact.value)],
    });
  }
  body.push({ type: 'TextBlock', text: `Event ${message.eventType}`, isSubtle: true, size: 'Small', wrap: true });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          fallbackText: plainText(message),
          body,
        },
      },
    ],
  };
}

interface GraphPage<T> {
  value: T[];
  '@odata.nextLink'?: string;
}

interface GraphChannel {
  id: string;
  displayName: string;
  membershipType?: string;
}

export function teamsWorkspace(graphToken: () => Promise<string>): ChatProvider {
  async function pages<T>(url: string, what: string, limit: number): Promise<T[]> {
    const items: T[] = [];
    let next: string | undefined = url;
    while (next && items.length < limit) {
      // Graph's nextLink is absolute and on Graph's host; anything else is not followed.
      if (!next.startsWith(`${GRAPH}/`)) break;
      const response = await providerFetch(NAME, next, {
        method: 'GET',
        headers: { authorization: `Bearer ${await graphToken()}`, accept: 'application/json' },
      });
      const page = (await (await expectOk(NAME, response, what)).json()) as GraphPage<T>;
      items.push(...(page.value ?? []));
      next = page['@odata.nextLink'];
    }
    return items.slice(0, limit);
  }

  async function channelsOf(teamId: string): Promise<ChatChannel[]> {
    const select = '$select=id,displayName,membershipType';
    const rows = await pages<GraphChannel>(
      `${GRAPH}/teams/${encodeURIComponent(teamId)}/channels?${select}`,
      'channel list',
      MAX_CHANNELS,
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.displayName,
      team_id: teamId,
      is_private: row.membershipType === 'private' || row.membershipType === 'shared',
    }));
  }

  return {
    provider: 'chat_b',
    local: false,
    async listChannels(query: ChannelQuery): Promise<ChatChannel[]> {
      if (query.teamId) return channelsOf(query.teamId);
      const teams = await pages<{ id: string }>(
        `${GRAPH}/me/joinedTeams?$select=id,displayName`,
        'team list',
        MAX_TEAMS,
      );
      const channels: ChatChannel[] = [];
      for (const team of teams) {
        if (channels.length >= MAX_CHANNELS) break;
        channels.push(...(await channelsOf(team.id)));
      }
      return channels.slice(0, MAX_CHANNELS);
    },
    async post(target: ChatTarget, message: ChatMessage) {
      if (!target.workflowUrl || workflowUrlProblem(target.workflowUrl)) {
        throw new ProviderFailure('rejected', NAME, null, 'The channel has no usable Teams Workflows webhook URL');
      }
      const response = await providerFetch(NAME, target.workflowUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(adaptiveCardMessage(message)),
      });
      if (response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return { messageId: null };
      }
      const failure = await failureOf(NAME, response, 'message');
      // The URL is refused, not the Graph connection: the workflow was deleted or turned off.
      if (failure.kind === 'auth' || failure.kind === 'not_found') {
        throw new ProviderFailure(
          'rejected',
          NAME,
          failure.status,
          `Teams refused the channel's Workflows webhook URL (${failure.status}): make the workflow again and update the subscription`,
        );
      }
      throw failure;
    },
  };
}
