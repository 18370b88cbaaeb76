/**
 * The contract each module's role fixtures fulfil. The role sweep (role-sweep.test.ts) walks the
 * route registry: every route that declares `roles` must have a fixture here, keyed
 * "METHOD /openapi/path" (e.g. "POST /api/user/add"). Add a file per module under fixtures/;
 * the sweep loads them all.
 */
import type { SignedUp } from '../helpers/api';

export interface RoleRequest {
  /** Path parameters, e.g. { id: 12 }. */
  params?: Record<string, string | number>;
  body?: unknown;
  query?: Record<string, string | number>;
}

export interface RoleFixture {
  /** Creates what the request acts on, as the organization's admin; returns what `request`/`snapshot` need. */
  setup?(admin: SignedUp): Promise<Record<string, unknown>>;
  /**
   * A request that succeeds for a permitted role. Built anew for every call (unique names and
   * emails), so the same request refused to one role is the one a permitted role then sends.
   */
  request(record: Record<string, unknown>): RoleRequest;
  /** What the request changes, read as the admin: equal before and after a refused call, different after a permitted one. */
  snapshot(admin: SignedUp, record: Record<string, unknown>): Promise<unknown>;
  /**
   * A read restricted to roles (e.g. GET /api/webhooks, whose URLs may carry a receiver's token):
   * the refused roles' 403 and the unchanged snapshot are checked; the permitted read changes nothing.
   */
  readOnly?: true;
}

export type RoleFixtureMap = Record<string, RoleFixture>;
