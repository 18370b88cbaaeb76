/**
 * The CRM provider of a connection: nothing to open for the local data set; for HubSpot its sealed
 * token, through the OAuth layer (providers/oauth.ts). A private app token has no expiry and is
 * used as stored; an OAuth access token (30 minutes) is renewed with its refresh token at
 * HubSpot's token endpoint when it expires, the new tokens sealed on the row, and an
 * `invalid_grant` marks the connection needs_reconnect (409 `connection_needs_reconnect`).
 */
import { freshAccessToken, stillFresh, type FreshToken, type TokenDeps } from '../oauth';
import type { ConnectionRow } from '../connections';
import { hubspotCrm } from './hubspot';
import type { CrmProvider } from './interface';
import { localCrm } from './local';

export function crmProviderFor(deps: TokenDeps, connection: ConnectionRow): CrmProvider {
  if (connection.provider === 'local') return localCrm();
  // Opened once per provider (a job's delivery, a request) and kept while it is fresh: an import
  // that outlasts the token renews it between pages, not once per page.
  let token: Promise<FreshToken> | null = null;
  return hubspotCrm(async () => {
    if (token) {
      const kept = await token.catch(() => null);
      if (kept && stillFresh(kept)) return kept.accessToken;
      token = null;
    }
    const opening = freshAccessToken(deps, connection, 'hubspot');
    token = opening;
    return (await opening).accessToken;
  });
}
