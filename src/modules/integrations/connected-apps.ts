/**
 * Connected apps: the organization's connections of every kind (providers/connections.ts; mail
 * accounts included), and connecting or disconnecting a CRM, team-chat or enrichment account. A credential is
 * checked with one call to its provider before it is stored, then sealed (providers/secrets.ts);
 * a refused one is a 422 naming `access_token`. Connecting an account that is already connected
 * (same kind, provider and identity) reconnects it in place: one live row per account.
 */
import type { z } from '@hono/zod-openapi';
import { desc, eq, getTableColumns, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { ApiError, NotFound, ValidationFailed } from '../../core/errors';
import { defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { connections } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { type ChatConnectionProvider, checkChatCredential } from '../../providers/chat/connect-check';
import {
  disconnectedColumns,
  type ConnectionRow,
  connectionListParts,
  findConnection,
  liveAccountConflict,
  liveConnections,
  lockLiveKind,
  sealCredentials,
} from '../../providers/connections';
import { hubspotCrm } from '../../providers/crm/hubspot';
import { checkEnrichmentCredential, type EnrichmentProviderName } from '../../providers/enrichment/connect-check';
import { localCrm } from '../../providers/crm/local';
import { ProviderFailure, routeErrorOf } from '../../providers/failures';
import { DEFAULT_TOKEN_SECONDS, type OAuthProvider, tokenEndpoint } from '../../providers/oauth';
import { keyringOf } from '../../providers/secrets';
import { CONNECTABLE_KINDS, type ConnectBody, connectedAppFilters, PROVIDERS_OF } from './schemas';

export function presentConnectedApp(row: ConnectionRow) {
  return {
    id: row.id,
    kind: row.kind,
    provider: row.provider,
    identity: row.identity,
    display_name: row.displayName,
    state: row.state,
    last_success_at: isoTimestamp(row.lastSuccessAt),
    last_error: row.lastError,
    scopes: row.scopes,
    owner_id: row.ownerId,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

export const connectedAppList = defineList({
  ...connectionListParts,
  sort: { id: connections.id, created_at: connections.createdAt, kind: connections.kind },
  filters: connectedAppFilters,
  base: (ctx, params) =>
    liveConnections(
      ctx,
      params.kind ? eq(connections.kind, params.kind) : undefined,
      params.provider ? eq(connections.provider, params.provider) : undefined,
      params.state ? eq(connections.state, params.state) : undefined,
    ),
  present: ({ row }) => presentConnectedApp(row),
});

export const listConnectedApps = connectedAppList.run;

type ConnectInput = z.output<typeof ConnectBody>;

/** The provider's check of the credential: the account it opens, or a 422 naming access_token. */
async function checkCredential(input: ConnectInput) {
  const token = input.access_token ?? null;
  try {
    if (input.kind === 'chat') return await checkChatCredential(input.provider as ChatConnectionProvider, token);
    if (input.kind === 'enrichment') {
      return await checkEnrichmentCredential(input.provider as EnrichmentProviderName, token);
    }
    const provider = input.provider === 'local' ? localCrm() : hubspotCrm(async () => token as string);
    return await provider.verify();
  } catch (error) {
    if (!(error instanceof ProviderFailure)) throw error;
    if (error.kind === 'auth' || error.kind === 'not_found' || error.kind === 'rejected') {
      throw ValidationFailed.field('access_token', `${input.provider} refused this credential`);
    }
    throw routeErrorOf(error, 'account');
  }
}

export async function connectApp(ctx: TenantContext, env: Bindings, input: ConnectInput) {
  if (!PROVIDERS_OF[input.kind].includes(input.provider)) {
    throw ValidationFailed.field('provider', `must be one of: ${PROVIDERS_OF[input.kind].join(', ')}`);
  }
  const local = input.provider === 'local';
  if (!local && !input.access_token) throw ValidationFailed.field('access_token', `is required for ${input.provider}`);
  // The OAuth tokens this server renews (providers/oauth.ts): Teams' Graph token and a HubSpot
  // OAuth access token (a private app token has no refresh token and does not expire).
  const oauthProvider: OAuthProvider | null =
    input.kind === 'chat' && input.provider === 'chat_b'
      ? 'microsoft'
      : input.kind === 'crm' && input.provider === 'hubspot'
        ? 'hubspot'
        : null;
  if (!oauthProvider && input.refresh_token !== undefined) {
    throw ValidationFailed.field(
      'refresh_token',
      'is for chat_b (Microsoft Teams) and hubspot (OAuth) only: nothing renews this token',
    );
  }
  if (input.expires_in !== undefined && input.refresh_token === undefined) {
    throw ValidationFailed.field('expires_in', 'is given with refresh_token only');
  }
  if (!local) await keyringOf(env); // No key, no credential: refuse before calling anyone.
  // A token that would stop working once it expires, on a server that cannot renew it: 503 now
  // (naming the missing client) rather than a connection that dies in half an hour.
  if (oauthProvider === 'hubspot' && input.refresh_token !== undefined) tokenEndpoint(env, oauthProvider);
  const account = await checkCredential(input);
  const sealed = local
    ? { secret: null, secretKeyId: null }
    : // An enrichment key is sealed under the name its adapter opens (providers/enrichment/select.ts);
      // a Graph or HubSpot OAuth token with its refresh token, as providers/oauth.ts opens and renews it.
      await sealCredentials(
        env,
        ctx.orgId,
        input.kind === 'enrichment'
          ? { api_key: input.access_token }
          : input.refresh_token
            ? { access_token: input.access_token, refresh_token: input.refresh_token }
            : { access_token: input.access_token },
      );
  const values = {
    // Without a refresh token nothing can renew the token: it is used until the provider refuses it.
    tokenExpiresAt:
      input.refresh_token && oauthProvider
        ? new Date(Date.now() + (input.expires_in ?? DEFAULT_TOKEN_SECONDS[oauthProvider]) * 1000)
        : null,
    displayName: account.displayName,
    scopes: input.scopes ?? [],
    ownerId: ctx.userId,
    state: 'active' as const,
    lastError: null,
    lastSuccessAt: sql`now()`,
    reconnectNotifiedAt: null,
    ...sealed,
    updatedAt: sql`now()`,
  };
  // The organization has one enrichment provider: the others are disconnected first, under the
  // kind's lock, so two different providers connected at once leave one live (the later).
  if (input.kind === 'enrichment') await retireOtherEnrichment(ctx, input.provider, account.identity);
  // One statement: the account's live row is reconnected in place, else a row is added. Connects
  // of one account at once (a double click) meet on the unique index: one inserts, the others
  // wait for it and reconnect that row. It is the request's last: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const [row] = await ctx.db
    .insert(connections)
    .values({
      organizationId: ctx.orgId,
      kind: input.kind,
      provider: input.provider,
      identity: account.identity,
      ...values,
    })
    .onConflictDoUpdate({ ...liveAccountConflict, set: values })
    .returning({ ...getTableColumns(connections), inserted: sql<boolean>`(xmax = 0)` });
  const { inserted, ...connection } = row;
  return { app: presentConnectedApp(connection), reconnected: !inserted };
}

/**
 * An organization has one enrichment provider (lead enrichment uses its live `enrichment`
 * connection; `connections_live_kind_key`): connecting one disconnects the others, in the
 * request's transaction and under the kind's lock (lockLiveKind), so switching between Apollo and
 * local is one call either way, and two connects at once leave the later one.
 */
async function retireOtherEnrichment(ctx: TenantContext, provider: string, identity: string): Promise<void> {
  await lockLiveKind(ctx.db, ctx.orgId, 'enrichment');
  await ctx.db
    .update(connections)
    .set(disconnectedColumns())
    .where(
      tenantWhere(
        ctx,
        connections,
        eq(connections.kind, 'enrichment'),
        isNull(connections.deletedAt),
        or(ne(connections.provider, provider), ne(connections.identity, identity)),
      ),
    );
}

/** Disconnect: credentials wiped at once; the row stays (soft delete) so what came through it keeps its source. */
export async function disconnectApp(ctx: TenantContext, id: number): Promise<void> {
  const [gone] = await ctx.db
    .update(connections)
    .set(disconnectedColumns())
    .where(
      tenantWhere(
        ctx,
        connections,
        eq(connections.id, id),
        inArray(connections.kind, [...CONNECTABLE_KINDS]),
        isNull(connections.deletedAt),
      ),
    )
    .returning({ id: connections.id });
  if (gone) return;
  // Nothing disconnected: a mail account (its own routes), or no live connection of the organization (404).
  const [row] = await ctx.db
    .select({ kind: connections.kind })
    .from(connections)
    .where(tenantWhere(ctx, connections, eq(connections.id, id), isNull(connections.deletedAt)));
  if (row?.kind === 'mail') {
    throw ValidationFailed.field(
      'id',
      'is a mail account: disconnect it with DELETE /api/mail-configurations/delete/{id}',
    );
  }
  throw new NotFound('Connection', id);
}

/** The CRM connection a CRM route uses: the one named, else the most recently connected active one; 409 when none. */
export async function crmConnection(ctx: TenantContext, connectionId: number | undefined): Promise<ConnectionRow> {
  if (connectionId !== undefined) return findConnection(ctx, 'crm', connectionId);
  const [row] = await ctx.db
    .select()
    .from(connections)
    .where(
      tenantWhere(
        ctx,
        connections,
        eq(connections.kind, 'crm'),
        eq(connections.state, 'active'),
        isNull(connections.deletedAt),
      ),
    )
    .orderBy(desc(connections.id))
    .limit(1);
  if (!row) {
    throw new ApiError(
      409,
      'conflict',
      'No CRM is connected: connect one with POST /api/connected-apps/connect (provider local for the offline data set)',
      'crm_not_connected',
    );
  }
  return row;
}
