/**
 * The typed Hono environment every module shares: bindings plus the per-request variables
 * that middleware sets (request id, database, the authenticated caller).
 */
import type { SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import type { TenantContext } from '../db/tenant';
import type { Bindings, Config } from '../env';

export interface Variables {
  requestId: string;
  /** The validated configuration, set first on every request (a Worker without one serves nothing). */
  config: Config;
  /** Opens the request's pool on first use; closed when the response is done. */
  database: () => Database;
  /** Background work that still uses the request's database: the connection closes once it settles (core/database.ts). */
  holdDatabaseUntil: (work: Promise<unknown>) => void;
  /** Set by the bearer and API-key middlewares: the actor and a transaction scoped to its organization. */
  tenant: TenantContext;
  /** false when the route declared `transaction: false` (its writes are standalone statements). */
  transactional: boolean;
  /** true on routes that honour Idempotency-Key (POSTs that create; see core/idempotency.ts). */
  idempotent: boolean;
  /** true on idempotent routes whose answer holds a secret shown once: its stored replay is sealed (core/idempotency.ts). */
  sealedReplay: boolean;
  /** Organization id for the request log line, once known. */
  logOrgId: number;
  /**
   * A read the route wants carried by the API-key scope statement (a scalar SQL expression that
   * filters by the organization itself), and what it returned: saves the route a round trip.
   */
  scopeRead: ((orgId: number) => SQL) | undefined;
  scopeReadResult: unknown;
  /**
   * On a list answered whole that does not declare them: the standard `page` and `limit` the
   * request sent (checked), which `list` (core/http.ts) cuts the whole list's page by.
   */
  wholeListWindow: { page: number; limit: number | undefined } | undefined;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
