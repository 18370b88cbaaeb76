/**
 * An organization's connections to outside services (db/schema/connections.ts), whatever their
 * kind: finding one for a request (another organization's is a 404), refusing one that cannot be
 * used, sealing and opening its credentials, and recording what happened to it. Writes about a
 * connection's health (needs_reconnect, a refreshed token) must outlive the request that found
 * out, which may roll back, so they go through an `IndependentWriter`: its own transaction on
 * its own connection to the database.
 */
import { and, eq, ilike, isNull, sql, type SQL } from 'drizzle-orm';
import { ApiError, NotFound } from '../core/errors';
import { containsPattern, type ListColumns } from '../core/list';
import { log } from '../core/log';
import { withOwnDatabase, withTenant, type Database, type Queryable, type Transaction } from '../db/client';
import { lockOrganizationKeys } from '../db/key-locks';
import { connections, notifications } from '../db/schema';
import { tenantWhere, type TenantContext } from '../db/tenant';
import { readConfig, type Bindings } from '../env';
import { ConnectionNeedsReconnect } from './failures';
import { keyringOf, openSecret, SecretUnreadable, sealSecret } from './secrets';

export type ConnectionRow = typeof connections.$inferSelect;

/**
 * What every list of connections shares (connected apps, mail configurations): the organization's
 * live connections, searched by account identity, bounded by creation time. Spread into
 * `defineList({ ...connectionListParts, sort, filters, base: (ctx, params) => liveConnections(ctx, …) })`.
 */
export const connectionListParts = {
  search: (term: string) => ilike(connections.identity, containsPattern(term)),
  createdAt: connections.createdAt,
};

/** A list's `base`: the live connections of the caller's organization that also meet `conditions`. */
export function liveConnections(ctx: TenantContext, ...conditions: (SQL | undefined)[]) {
  return {
    rows: (columns: ListColumns) =>
      ctx.db
        .select({ row: connections, ...columns })
        .from(connections)
        .$dynamic(),
    where: tenantWhere(ctx, connections, isNull(connections.deletedAt), ...conditions),
  };
}

/**
 * The arbiter of `insert … on conflict` on a connection's account: the predicate of the unique
 * index of live accounts (`connections_live_account_key`, db/schema/connections.ts), so a connect
 * of an account already connected, or two at once, reconnects its one live row.
 */
export const liveAccountConflict = {
  target: [connections.organizationId, connections.kind, connections.provider, connections.identity],
  targetWhere: sql`${connections.deletedAt} is null and ${connections.kind} in ('crm', 'chat', 'enrichment', 'voice')`,
};

/**
 * What a disconnect writes on a connection's row: gone (soft delete, so what came through it keeps
 * its source), disabled, and its sealed credentials and token lifetime wiped at once.
 */
export function disconnectedColumns() {
  return {
    deletedAt: sql`now()`,
    state: 'disabled',
    secret: null,
    secretKeyId: null,
    tokenExpiresAt: null,
    updatedAt: sql`now()`,
  } as const;
}

/**
 * Kinds an organization has one live connection of (`connections_live_kind_key`): its lead
 * enrichment provider and its voice account. Connecting another replaces it.
 */
export const SINGLE_LIVE_KINDS = ['enrichment', 'voice'] as const;

/**
 * A connect of a single-live kind takes this lock (the organization's, for that kind) before it
 * disconnects the other connections of the kind and writes its own, in its transaction. A second
 * connect at the same moment waits for the first to commit, then disconnects what the first
 * connected: one live connection, the later one, as when they come one after the other. Without
 * it each would disconnect only what was committed before it, and the second insert would meet
 * the unique index. Taken after the provider's check, so no lock waits on the network.
 */
export async function lockLiveKind(
  db: Queryable,
  orgId: number,
  kind: (typeof SINGLE_LIVE_KINDS)[number],
): Promise<void> {
  await lockOrganizationKeys(db, orgId, 'live-connection', [kind]);
}

/** notifications.type_id of "a connection needs reconnecting". */
export const RECONNECT_NOTICE_TYPE = 6;

/** Runs a unit of work in its own transaction, scoped to the organization, committed whatever the caller does next. */
export interface IndependentWriter {
  run<T>(orgId: number, work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** Over a pool (queue consumers): each unit of work takes a connection of the pool. */
export function poolWriter(db: Database): IndependentWriter {
  return { run: (orgId, work) => withTenant(db, orgId, work) };
}

/**
 * For a request, whose own database connection may be inside its transaction: each unit of work
 * opens a short-lived connection (rare: a token refresh, a connection marked needs_reconnect).
 */
export function requestWriter(env: Bindings): IndependentWriter {
  return {
    async run(orgId, work) {
      return withOwnDatabase(readConfig(env), (db) => withTenant(db, orgId, work));
    },
  };
}

/** A live (not disconnected) connection of the organization, of this kind; 404 otherwise. */
export async function findConnection(ctx: Pick<TenantContext, 'db' | 'orgId'>, kind: string, id: number) {
  const [row] = await ctx.db
    .select()
    .from(connections)
    .where(
      tenantWhere(ctx, connections, eq(connections.id, id), eq(connections.kind, kind), isNull(connections.deletedAt)),
    );
  if (!row) throw new NotFound(kind === 'mail' ? 'Mail configuration' : 'Connection', id);
  return row;
}

/** Refuses a connection that cannot be used now: 409 naming it. */
export function requireUsable(connection: ConnectionRow): ConnectionRow {
  if (connection.state === 'needs_reconnect') throw new ConnectionNeedsReconnect(connection);
  if (connection.state === 'disabled') {
    throw new ApiError(
      409,
      'conflict',
      `The ${connection.provider} connection ${connection.id} is disabled; enable it first`,
      'connection_disabled',
      { connection_id: connection.id, provider: connection.provider },
    );
  }
  return connection;
}

/** The sealed form of credentials, for an insert or update of the organization's connection. */
export async function sealCredentials(env: Bindings, orgId: number, credentials: unknown) {
  const { sealed, keyId } = await sealSecret(await keyringOf(env), orgId, credentials);
  return { secret: sealed, secretKeyId: keyId };
}

/**
 * The connection's credentials, opened; null for a provider that has none (local). Credentials no
 * configured key opens (their key was rotated away too soon) are the owner's to reconnect: 409
 * naming the connection, never a 500.
 */
export async function openCredentials<T>(env: Bindings, connection: ConnectionRow): Promise<T | null> {
  if (!connection.secret) return null;
  const keyring = await keyringOf(env);
  try {
    return await openSecret<T>(keyring, connection.organizationId, connection.secret);
  } catch (error) {
    if (!(error instanceof SecretUnreadable)) throw error;
    log.warn(
      'stored credentials unreadable: reconnect the connection, or restore its key in CREDENTIALS_KEYS_PREVIOUS',
      {
        connection_id: connection.id,
        key_id: connection.secretKeyId,
      },
    );
    throw new ConnectionNeedsReconnect(connection);
  }
}

/**
 * Marks the connection needs_reconnect with a reason, and tells its owner, once: the notice is
 * written only by the statement that set reconnect_notified_at, which a reconnection clears.
 */
export async function markNeedsReconnect(tx: Transaction, connection: ConnectionRow, reason: string): Promise<void> {
  const title = `Reconnect ${connection.identity}: its ${connection.provider} connection stopped working`;
  await tx.execute(sql`
    with marked as (
      update ${connections} set state = 'needs_reconnect', last_error = ${reason}, updated_at = now(),
        reconnect_notified_at = coalesce(${connections.reconnectNotifiedAt}, now())
      where ${connections.organizationId} = ${connection.organizationId} and ${connections.id} = ${connection.id}
        and ${connections.deletedAt} is null
      returning ${connections.ownerId} as owner_id,
        (${connections.reconnectNotifiedAt} is not distinct from now()) as first_notice
    )
    insert into ${notifications} (organization_id, user_id, type_id, title, body, data)
    select ${connection.organizationId}, marked.owner_id, ${RECONNECT_NOTICE_TYPE}, ${title}, ${reason},
      ${JSON.stringify({ connection_id: connection.id, kind: connection.kind, provider: connection.provider })}::jsonb
    from marked where marked.owner_id is not null and marked.first_notice`);
}

/** Records a failure's user-facing reason on the connection (its state unchanged). */
export async function recordConnectionError(tx: Transaction, connection: ConnectionRow, reason: string) {
  await tx
    .update(connections)
    .set({ lastError: reason, updatedAt: sql`now()` })
    .where(and(eq(connections.organizationId, connection.organizationId), eq(connections.id, connection.id)));
}

/** Records a successful call (last_success_at), in the caller's transaction. */
export async function recordConnectionSuccess(tx: Pick<TenantContext, 'db'>['db'], connection: ConnectionRow) {
  await tx
    .update(connections)
    .set({ lastSuccessAt: sql`now()` })
    .where(and(eq(connections.organizationId, connection.organizationId), eq(connections.id, connection.id)));
}
