/**
 * Database access for one request or one queue batch: a neon-serverless Pool (WebSocket, so
 * interactive transactions work), drizzle over it, and `withTenant` which opens a transaction
 * that Postgres row-level security scopes to one organization.
 */
import { Pool, neonConfig, type PoolClient } from '@neondatabase/serverless';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/neon-serverless';
import type { Config } from '../env';
import * as schema from './schema';

export type Database = ReturnType<typeof drizzle<typeof schema>>;
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Anything that runs queries: the pool-backed database or an open transaction. */
export type Queryable = Database | Transaction;

/** The role every tenant transaction switches to; created by the migrations, without BYPASSRLS. */
export const APP_ROLE = 'lm_app';

let configuredProxy: string | undefined;

function configureDriver(proxy: string | undefined): void {
  if (proxy === configuredProxy) return;
  configuredProxy = proxy;
  if (proxy) {
    // A plain Postgres (PGlite or a local server) is reached through our WebSocket-to-TCP relay.
    neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    neonConfig.pipelineTLS = false;
  }
}

export interface DatabaseHandle {
  db: Database;
  close(): Promise<void>;
}

export function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'DB_WS_PROXY'>): DatabaseHandle {
  configureDriver(config.DB_WS_PROXY);
  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 4 });
  let closing = false;
  // A connection can drop outside any query: while idle in the pool, or once the pool has let
  // it go at close() (the server or Neon's proxy closes the WebSocket after Terminate). Without
  // a listener node-postgres rethrows that as an uncaught exception. Queries in flight still
  // reject with the error; after close() it is expected and not logged.
  const onConnectionError = (error: Error) => {
    if (!closing) console.warn(JSON.stringify({ level: 'warn', message: 'database connection error', error: error.message }));
  };
  pool.on('error', onConnectionError);
  pool.on('connect', (client: PoolClient) => client.on('error', onConnectionError));
  const db = drizzle({ client: pool, schema, casing: 'snake_case' });
  return {
    db,
    close: () => {
      closing = true;
      return pool.end();
    },
  };
}

/**
 * Scopes an open transaction to one organization: RLS policies read `app.organization_id`, and
 * the role switch drops superuser/owner rights so the policies apply even on PGlite.
 * Both settings are transaction-local and passed as parameters, never spliced into SQL.
 */
export async function scopeTransaction(tx: Transaction, organizationId: number): Promise<void> {
  await tx.execute(
    sql`select set_config('app.organization_id', ${String(organizationId)}, true), set_config('role', ${APP_ROLE}, true)`,
  );
}

export async function withTenant<T>(db: Database, organizationId: number, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await scopeTransaction(tx, organizationId);
    return work(tx);
  });
}
