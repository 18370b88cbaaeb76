/**
 * The typed Hono environment every module shares: bindings plus the per-request variables
 * that middleware sets (request id, database, the authenticated caller).
 */
import type { Context } from 'hono';
import type { Database, Transaction } from '../db/client';
import type { TenantContext } from '../db/tenant';
import type { Bindings, Config } from '../env';

export interface ApiKeyCaller {
  keyId: number;
  orgId: number;
}

export interface Variables {
  requestId: string;
  config: Config;
  /** Opens the request's pool on first use; closed when the response is done. */
  database: () => Database;
  /** Background work that still uses the request's database: the pool closes once it settles (core/database.ts). */
  holdDatabaseUntil: (work: Promise<unknown>) => void;
  /** Set by the bearer middleware: the caller and a transaction scoped to its organization. */
  tenant: TenantContext;
  /** Set by the API-key middleware. */
  apiKey: ApiKeyCaller;
  /** Organization id for the request log line, once known. */
  logOrgId: number;
  tx: Transaction;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}

export type AppContext = Context<AppEnv>;
