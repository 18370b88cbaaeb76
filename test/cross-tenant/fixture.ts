/**
 * The contract each module's cross-tenant fixtures fulfil. The matrix (tenant-matrix.test.ts)
 * walks the route registry: every route with a path id, or a required body/query key named
 * `ids` or ending in `_id`, must have a fixture here, keyed "METHOD /openapi/path"
 * (e.g. "POST /api/user/update/{id}"). Add a file per module under fixtures/; the matrix
 * loads them all.
 */
import type { SignedUp } from '../helpers/api';

export interface CrossTenantRequest {
  /** Path parameters, e.g. { id: 12 }. */
  params?: Record<string, string | number>;
  body?: unknown;
  query?: Record<string, string | number>;
  /** For multipart routes: the form to send instead of a JSON body. */
  form?: () => FormData;
  /** Headers besides the credential (a signed webhook's signature headers). */
  headers?: Record<string, string>;
  /** Sent as-is instead of `body` (a signed webhook's exact bytes, with its content type in `headers`). */
  rawBody?: string;
}

export interface TenantFixture {
  /** Creates the record in the owner's organization; returns whatever `request`/`snapshot` need. */
  setup(owner: SignedUp): Promise<Record<string, unknown>>;
  /** The request the intruder (another organization's admin) sends against the owner's record. */
  request(record: Record<string, unknown>, intruder: SignedUp): CrossTenantRequest | Promise<CrossTenantRequest>;
  /** Reads the record as its owner, to prove it is unchanged afterwards. */
  snapshot(owner: SignedUp, record: Record<string, unknown>): Promise<unknown>;
  /**
   * What the intruder gets: 'not_found' (404 envelope; the default), 'not_found_page' (a public
   * HTML page's 404, e.g. an unknown web-form link) or 'no_effect' (bulk `ids` routes answer 2xx
   * but change nothing, e.g. "0 deleted") or 'forbidden' (a provider webhook whose signature the
   * intruder cannot make: 403 envelope).
   */
  outcome?: 'not_found' | 'not_found_page' | 'no_effect' | 'forbidden';
}

export type FixtureMap = Record<string, TenantFixture>;
