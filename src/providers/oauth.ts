/**
 * OAuth access tokens of a connection: the stored one while it is fresh, else a refresh-token
 * grant at the provider's token endpoint (oauth4webapi: Google, Microsoft, and HubSpot's
 * `POST https://api.hubapi.com/oauth/2026-03/token`, form-encoded with the refresh token and the
 * client id and secret in the body, nothing in the URL), once per expiry even under concurrency:
 *   - within an isolate, concurrent callers share one refresh (a promise per connection);
 *   - across isolates, the refresh runs under the connection row's lock (SELECT … FOR UPDATE): a
 *     second refresher waits, then finds the new token and uses it.
 * `invalid_grant` (the user revoked the grant, or it expired) marks the connection needs_reconnect
 * and tells its owner once; the caller gets ConnectionNeedsReconnect (409). A 429/5xx or no
 * answer is a ProviderFailure ('unavailable'). The token endpoint's body is never logged.
 */
import { and, eq, sql } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { ApiError } from '../core/errors';
import type { Transaction } from '../db/client';
import { connections } from '../db/schema';
import type { Bindings } from '../env';
import {
  markNeedsReconnect,
  openCredentials,
  sealCredentials,
  type ConnectionRow,
  type IndependentWriter,
} from './connections';
import { ConnectionNeedsReconnect, failureOf, ProviderFailure } from './failures';

/** What a gmail, outlook, Teams or HubSpot OAuth connection keeps sealed. */
export interface OAuthCredentials {
  access_token: string;
  refresh_token?: string | null;
}

/** Refresh this long before the stored expiry, so a token never expires mid-call. */
const EXPIRY_SKEW_MS = 60_000;

/**
 * HubSpot's token endpoint: the date-versioned OAuth API (2026-03), the successor HubSpot names for
 * the v1 API it turns off on 2027-02-16 (developers.hubspot.com/docs/api-reference/legacy/
 * authentication/oauth-tokens/v1/migration-guide; the reference: docs/api-reference/2026-03/
 * authentication/oauth-tokens/refresh-oauth-token). Not `/oauth/v3/token`, the interim version
 * HubSpot now files under its legacy (semantic-version) APIs. docs/providers.md, "HubSpot (CRM)".
 */
export const HUBSPOT_TOKEN_ENDPOINT = 'https://api.hubapi.com/oauth/2026-03/token';

export type OAuthProvider = 'google' | 'microsoft' | 'hubspot';

/** Each provider's OAuth client settings: the Worker secrets that hold them. */
const CLIENT_SETTINGS: Record<OAuthProvider, string> = {
  google: 'GOOGLE',
  microsoft: 'MICROSOFT',
  hubspot: 'HUBSPOT',
};

/** The access token's lifetime when the provider's answer does not say (HubSpot's are 30 minutes). */
export const DEFAULT_TOKEN_SECONDS: Record<OAuthProvider, number> = { google: 3_600, microsoft: 3_600, hubspot: 1_800 };

interface Endpoint {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  secret: string;
}

/** The token endpoint and client of a provider, from the bindings; 503 when the server has no client for it. */
export function tokenEndpoint(env: Bindings, provider: OAuthProvider): Endpoint {
  const [id, secret] =
    provider === 'google'
      ? [env.GOOGLE_CLIENT_ID, env.GOOGLE_CLIENT_SECRET]
      : provider === 'hubspot'
        ? [env.HUBSPOT_CLIENT_ID, env.HUBSPOT_CLIENT_SECRET]
        : [env.MICROSOFT_CLIENT_ID, env.MICROSOFT_CLIENT_SECRET];
  if (!id || !secret) {
    console.error(
      JSON.stringify({
        level: 'error',
        message: `no OAuth client for ${provider}: set ${CLIENT_SETTINGS[provider]}_CLIENT_ID and _CLIENT_SECRET to refresh tokens`,
      }),
    );
    throw new ApiError(
      503,
      'service_unavailable',
      `The server cannot refresh ${provider} tokens: no OAuth client is configured`,
      'oauth_client_missing',
    );
  }
  const tenant = env.MICROSOFT_TENANT || 'common';
  const as: oauth.AuthorizationServer =
    provider === 'google'
      ? { issuer: 'https://accounts.google.com', token_endpoint: 'https://oauth2.googleapis.com/token' }
      : provider === 'hubspot'
        ? { issuer: 'https://api.hubapi.com', token_endpoint: HUBSPOT_TOKEN_ENDPOINT }
        : {
            issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
            token_endpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
          };
  return { as, client: { client_id: id }, secret };
}

function isFresh(connection: Pick<ConnectionRow, 'tokenExpiresAt'>): boolean {
  return !connection.tokenExpiresAt || connection.tokenExpiresAt.getTime() - EXPIRY_SKEW_MS > Date.now();
}

const inFlight = new Map<string, Promise<FreshToken>>();

export interface TokenDeps {
  env: Bindings;
  writer: IndependentWriter;
}

/** An access token and when it expires (null: it does not, as far as we know). */
export interface FreshToken {
  accessToken: string;
  expiresAt: Date | null;
}

/** Whether a token answered by freshAccessToken may still be used (a minute before its expiry it may not). */
export function stillFresh(token: FreshToken): boolean {
  return isFresh({ tokenExpiresAt: token.expiresAt });
}

/** A usable access token for the connection, refreshed if it has expired (see the module comment). */
export async function accessToken(deps: TokenDeps, connection: ConnectionRow, provider: OAuthProvider) {
  return (await freshAccessToken(deps, connection, provider)).accessToken;
}

/** accessToken with its expiry, for a caller that keeps the token across many calls (a CRM import). */
export async function freshAccessToken(
  deps: TokenDeps,
  connection: ConnectionRow,
  provider: OAuthProvider,
): Promise<FreshToken> {
  if (isFresh(connection)) {
    const credentials = await openCredentials<OAuthCredentials>(deps.env, connection);
    if (!credentials) throw new ConnectionNeedsReconnect(connection);
    return { accessToken: credentials.access_token, expiresAt: connection.tokenExpiresAt };
  }
  const key = `${connection.organizationId}:${connection.id}`;
  let refreshing = inFlight.get(key);
  if (!refreshing) {
    refreshing = deps.writer
      .run(connection.organizationId, (tx) => refreshLocked(deps.env, tx, connection, provider))
      .then((outcome) => {
        // Thrown only now: thrown inside, it would roll back the needs_reconnect mark with the rest.
        if (outcome === NEEDS_RECONNECT) throw new ConnectionNeedsReconnect(connection);
        return outcome;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, refreshing);
  }
  return refreshing;
}

const NEEDS_RECONNECT = Symbol('needs reconnect');

/**
 * Under the row's lock: another refresher may have stored a new token meanwhile, which is then
 * used. NEEDS_RECONNECT: the connection was marked so, in this transaction, which must commit.
 */
async function refreshLocked(
  env: Bindings,
  tx: Transaction,
  stale: ConnectionRow,
  provider: OAuthProvider,
): Promise<FreshToken | typeof NEEDS_RECONNECT> {
  const [current] = await tx
    .select()
    .from(connections)
    .where(and(eq(connections.organizationId, stale.organizationId), eq(connections.id, stale.id)))
    .for('update');
  if (!current || current.deletedAt || current.state !== 'active') throw new ConnectionNeedsReconnect(stale);
  const credentials = await openCredentials<OAuthCredentials>(env, current);
  if (!credentials) throw new ConnectionNeedsReconnect(current);
  if (isFresh(current)) return { accessToken: credentials.access_token, expiresAt: current.tokenExpiresAt };
  if (!credentials.refresh_token) {
    await markNeedsReconnect(tx, current, 'The access token expired and no refresh token was given: reconnect');
    return NEEDS_RECONNECT;
  }
  const endpoint = tokenEndpoint(env, provider);
  const refreshed = await grant(endpoint, credentials.refresh_token, provider);
  if (refreshed === 'invalid_grant') {
    await markNeedsReconnect(tx, current, `${provider} revoked or expired the grant (invalid_grant): reconnect`);
    return NEEDS_RECONNECT;
  }
  const stored: OAuthCredentials = {
    access_token: refreshed.access_token,
    // Google keeps the refresh token; Microsoft may rotate it; HubSpot answers the same one.
    refresh_token: refreshed.refresh_token ?? credentials.refresh_token,
  };
  const expiresAt = new Date(Date.now() + (refreshed.expires_in ?? DEFAULT_TOKEN_SECONDS[provider]) * 1000);
  await tx
    .update(connections)
    .set({
      ...(await sealCredentials(env, current.organizationId, stored)),
      tokenExpiresAt: expiresAt,
      lastError: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(connections.organizationId, current.organizationId), eq(connections.id, current.id)));
  return { accessToken: stored.access_token, expiresAt };
}

async function grant(
  endpoint: Endpoint,
  refreshToken: string,
  provider: OAuthProvider,
): Promise<{ access_token: string; refresh_token?: string; expires_in?: number } | 'invalid_grant'> {
  let response: Response;
  try {
    response = await oauth.refreshTokenGrantRequest(
      endpoint.as,
      endpoint.client,
      oauth.ClientSecretPost(endpoint.secret),
      refreshToken,
    );
  } catch {
    throw new ProviderFailure('unavailable', provider, null, `${provider}'s token endpoint could not be reached`, 30);
  }
  if (response.status === 429 || response.status >= 500) throw await failureOf(provider, response, 'token refresh');
  const copy = response.clone();
  try {
    const body = await oauth.processRefreshTokenResponse(endpoint.as, endpoint.client, response);
    return { access_token: body.access_token, refresh_token: body.refresh_token, expires_in: body.expires_in };
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      if (error.error === 'invalid_grant') return 'invalid_grant';
      throw new ProviderFailure(
        'rejected',
        provider,
        error.status,
        `${provider} refused the token refresh (${error.error})`,
      );
    }
    const body = (await copy.json().catch(() => null)) as Record<string, unknown> | null;
    // HubSpot answers a revoked or unknown refresh token with the OAuth `invalid_grant` (above) and
    // its older fields beside it, `"status": "BAD_REFRESH_TOKEN"`; an answer with the older fields
    // alone is the same refusal.
    if (response.status === 400 && body?.status === 'BAD_REFRESH_TOKEN') return 'invalid_grant';
    // Any other refusal in HubSpot's standard error shape (`category`, `message`, `correlationId`),
    // such as a VALIDATION_ERROR for a client it does not know: its category names it, never its message.
    if (!copy.ok && typeof body?.category === 'string' && /^[A-Z_]{1,64}$/.test(body.category)) {
      throw new ProviderFailure(
        'rejected',
        provider,
        response.status,
        `${provider} refused the token refresh (${body.category})`,
      );
    }
    // A 200 whose extras (an ID token of another issuer) the library will not validate: the access token is all we use.
    if (copy.ok) {
      if (body && typeof body.access_token === 'string') {
        return {
          access_token: body.access_token,
          refresh_token: typeof body.refresh_token === 'string' ? body.refresh_token : undefined,
          expires_in: typeof body.expires_in === 'number' ? body.expires_in : undefined,
        };
      }
    }
    throw new ProviderFailure(
      'rejected',
      provider,
      response.status,
      `${provider} answered the token refresh unreadably`,
    );
  }
}
