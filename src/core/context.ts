/**
 * The typed Hono environment every module shares: bindings plus the per-request variables
 * that middleware sets (request id, database, the authenticated caller).
 */
import type { Database } from '../db/client';
import type { TenantContext } from '../db/tenant';
import type { Bindings } from '../env';

export interface Variables {
  requestId: string;
  /** Opens the request's pool on first use; closed when the response is done. */
  database: () => Database;
  /** Set by the bearer and API-key middlewares: the actor and a transaction scoped to its organization. */
  tenant: TenantContext;
  /** Organization id for the request log line, once known. */
  logOrgId: number;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
