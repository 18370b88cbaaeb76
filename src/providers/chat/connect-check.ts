/**
 * The one call that proves a team-chat credential before POST /api/connected-apps/connect stores
 * it (the chat adapters themselves, channels and posting, live beside this file):
 *   - chat_a (Slack): POST https://slack.com/api/auth.test with the bot token; Slack answers 200
 *     with `ok: false` and an error code for a bad token (`invalid_auth`, `not_authed`,
 *     `token_revoked`, `account_inactive`), which is the credential's refusal;
 *   - chat_b (Microsoft Teams): GET https://graph.microsoft.com/v1.0/me with the Graph token;
 *   - local: nothing to check.
 */
import { CHAT_PROVIDERS, type ChatProviderName } from '../../db/schema';
import { expectOk, ProviderFailure, providerFetch } from '../failures';

/** The providers a chat connection may name: Slack, Teams, or the offline stand-in for either. */
export const CHAT_CONNECTION_PROVIDERS = [...CHAT_PROVIDERS, 'local'] as const;
export type ChatConnectionProvider = ChatProviderName | 'local';

const SLACK_AUTH_ERRORS = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

export async function checkChatCredential(
  provider: ChatConnectionProvider,
  token: string | null,
): Promise<{ identity: string; displayName: string | null }> {
  if (provider === 'local') return { identity: 'local chat', displayName: 'Local chat (offline)' };
  if (provider === 'chat_a') {
    const response = await providerFetch('chat_a', 'https://slack.com/api/auth.test', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    await expectOk('chat_a', response, 'token check');
    const body = (await response.json()) as {
      ok?: boolean;
      error?: string;
      team?: string;
      team_id?: string;
      url?: string;
    };
    if (!body.ok) {
      const kind = SLACK_AUTH_ERRORS.has(body.error ?? '') ? 'auth' : 'rejected';
      throw new ProviderFailure(kind, 'chat_a', 200, `chat_a refused the token (${body.error ?? 'no reason'})`);
    }
    return { identity: body.team_id ?? body.url ?? 'workspace', displayName: body.team ?? null };
  }
  const response = await providerFetch('chat_b', 'https://graph.microsoft.com/v1.0/me', {
    method: 'GET',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  await expectOk('chat_b', response, 'account');
  const body = (await response.json()) as { userPrincipalName?: string; mail?: string; displayName?: string };
  return { identity: body.userPrincipalName ?? body.mail ?? 'account', displayName: body.displayName ?? null };
}
