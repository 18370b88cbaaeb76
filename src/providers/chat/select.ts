/**
 * The chat provider of an organization for chat_a or chat_b: its live chat connection's provider
 * (Slack with the sealed bot token, Teams with the Graph OAuth token, refreshed when it expired),
 * the local provider for a `local` connection, or, with no connection at all, the local provider
 * when the Worker runs with local providers (LOCAL_PROVIDERS=true: `npm start`, the tests). A
 * production Worker without a connection answers 409 `chat_not_connected`. A connection that needs
 * reconnecting is refused (409) where its token is needed: every Slack call, Teams' Graph calls
 * (channel lists), never a Teams post, which goes through the channel's own Workflows URL.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { ApiError } from '../../core/errors';
import type { Queryable } from '../../db/client';
import { connections, type ChatProviderName } from '../../db/schema';
import type { Bindings } from '../../env';
import { openCredentials, requireUsable, type ConnectionRow, type IndependentWriter } from '../connections';
import { ConnectionNeedsReconnect } from '../failures';
import { accessToken } from '../oauth';
import type { ChatProvider, SlackCredentials } from './interface';
import { localChat } from './local';
import { slackWorkspace } from './slack';
import { teamsWorkspace } from './teams';

export interface ChatDeps {
  env: Bindings;
  db: Queryable;
  writer: IndependentWriter;
}

export const CHAT_PROVIDER_NAMES: Record<ChatProviderName, string> = { chat_a: 'Slack', chat_b: 'Microsoft Teams' };

/** Whether the Worker may fall back to local providers (development and tests only). */
export function localProvidersAllowed(env: Pick<Bindings, 'LOCAL_PROVIDERS'>): boolean {
  return env.LOCAL_PROVIDERS === 'true';
}

/** 409: the organization has no chat connection for this provider, and this Worker uses no local stand-in. */
export class ChatNotConnected extends ApiError {
  constructor(provider: ChatProviderName) {
    super(
      409,
      'conflict',
      `No ${CHAT_PROVIDER_NAMES[provider]} connection: connect ${provider} under connected apps first`,
      'chat_not_connected',
      { provider },
    );
  }
}

/**
 * The organization's live chat connection for the provider (kind `chat`): one of that provider,
 * newest first, else a `local` one (the offline provider stands in for either); null when none.
 */
export async function findChatConnection(
  db: Queryable,
  orgId: number,
  provider: ChatProviderName,
): Promise<ConnectionRow | null> {
  const rows = await db
    .select()
    .from(connections)
    .where(and(eq(connections.organizationId, orgId), eq(connections.kind, 'chat'), isNull(connections.deletedAt)))
    .orderBy(desc(connections.id));
  return rows.find((row) => row.provider === provider) ?? rows.find((row) => row.provider === 'local') ?? null;
}

/** One token per provider instance: a list's many calls open (or refresh) it once. */
function memo(get: () => Promise<string>): () => Promise<string> {
  let token: Promise<string> | undefined;
  return () => {
    token ??= get().catch((error: unknown) => {
      token = undefined;
      throw error;
    });
    return token;
  };
}

/** The provider for a connection (null: none, the local provider when allowed). */
export function chatProviderFor(
  deps: ChatDeps,
  orgId: number,
  provider: ChatProviderName,
  connection: ConnectionRow | null,
): ChatProvider {
  if (!connection) {
    if (localProvidersAllowed(deps.env)) return localChat(deps.db, orgId, provider);
    throw new ChatNotConnected(provider);
  }
  if (connection.provider === 'local') {
    requireUsable(connection);
    return localChat(deps.db, orgId, provider);
  }
  // The connection's state is about its token, so it is checked where the token is used: Teams
  // posts through each channel's Workflows URL, which works whatever became of the Graph token.
  if (connection.provider === 'chat_a') {
    return slackWorkspace(
      memo(async () => {
        requireUsable(connection);
        const credentials = await openCredentials<SlackCredentials>(deps.env, connection);
        const token = credentials?.access_token;
        if (!token) throw new ConnectionNeedsReconnect(connection);
        return token;
      }),
    );
  }
  return teamsWorkspace(memo(async () => accessToken(deps, requireUsable(connection), 'microsoft')));
}
