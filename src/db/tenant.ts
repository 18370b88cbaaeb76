/**
 * Who is acting, and the tenant-scoped data-access helpers. Services receive a TenantContext
 * whose `db` is a transaction that row-level security scopes to `orgId`; `tenantWhere` adds
 * `organization_id` to every filter besides, so isolation never rests on the policies alone.
 * Inserts set `organizationId: ctx.orgId` themselves (the policies refuse any other).
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { TransactionEffects } from '../core/transaction-effects';
import type { Queryable } from './client';

/**
 * The roles signup seeds in every organization. Routes may require them (`defineRoute({ roles })`);
 * roles an organization adds itself carry no rights that a route checks.
 */
export const BUILT_IN_ROLES = ['admin', 'manager', 'sales_rep'] as const;
export type RoleName = (typeof BUILT_IN_ROLES)[number];

/** A signed-in user (bearer token), with the name of its role in its organization. */
export interface UserActor {
  kind: 'user';
  userId: number;
  role: string;
}

/** An API key (x-api-key). Keys are not users: they hold no role, so no role-restricted rule admits them. */
export interface ApiKeyActor {
  kind: 'apiKey';
  keyId: number;
  /** The admin who created the key (kept when that user is deleted, which is soft: docs/conventions.md). */
  createdBy: number | null;
}

/**
 * A queued job (import, export, enrichment) working for the user who started it. It acts as
 * itself and holds no role, so it never has more rights than the least privileged user, whatever
 * became of its creator; the creator is kept only to credit the job's writes and to receive its
 * notice (src/jobs/lifecycle.ts).
 */
export interface JobActor {
  kind: 'job';
  jobId: number;
  /** The job's creator (kept for created_by and the notice even if the user is gone). */
  createdBy: number | null;
}

/** A visitor submitting a hosted web form: credited to the form's creator, like a key to its creator. */
export interface WebFormActor {
  kind: 'webForm';
  formId: number;
  createdBy: number | null;
  /** The visitor's IP: scopes the Idempotency-Key of the submission (core/idempotency.ts). */
  ip: string;
}

/**
 * A visitor of a public page that runs in the page owner's organization (the booking page): a
 * stranger, holding no role; writes are credited to the page's owner (`onBehalfOf`).
 */
export interface PublicActor {
  kind: 'public';
  onBehalfOf: number;
}

export type Actor = UserActor | ApiKeyActor | JobActor | WebFormActor | PublicActor;

export interface TenantContext {
  /** The request's scoped connection, or its transaction when the request writes. */
  db: Queryable;
  orgId: number;
  /** Who is acting: what authorization rules look at. */
  actor: Actor;
  /**
   * The user credited with writes (`created_by`, the feed's actor, `assigned_to=true`): the user
   * itself, or the creator of the API key or job; null when that creator is gone. Derived from
   * `actor` by `actorContext`, never set on its own.
   */
  userId: number | null;
  /** The API key credited with writes (the feed's `actor_api_key_id`); set exactly when the actor is a key. */
  apiKeyId?: number;
  /** The bearer token in use, so logout can revoke it. */
  jti?: string;
  tokenExpiresAt?: Date;
  /** Effects to run after this transaction commits or rolls back (set for API requests, and for jobs' writes run in withTenantEffects). */
  effects?: TransactionEffects;
  /**
   * Commits the request's transaction with the next statement, in its round trip (db/client.ts
   * `commitWithNextStatement`): call it right before the handler's last statement, when nothing
   * the handler does after that statement could fail. Set only where `db` is a request's own
   * transaction and nothing follows the handler in it (not with an Idempotency-Key, whose stored
   * response commits with the writes); elsewhere it is absent, and a service calls it as
   * `ctx.commitWithNext?.()`.
   */
  commitWithNext?: () => void;
}

/** The actor and the write credit derived from it, so the two never disagree. */
export function actorContext(actor: Actor): Pick<TenantContext, 'actor' | 'userId' | 'apiKeyId'> {
  if (actor.kind === 'user') return { actor, userId: actor.userId };
  if (actor.kind === 'apiKey') return { actor, userId: actor.createdBy, apiKeyId: actor.keyId };
  if (actor.kind === 'public') return { actor, userId: actor.onBehalfOf };
  return { actor, userId: actor.createdBy };
}

/** True for a user holding one of the roles; API keys and jobs hold none. */
export function hasRole(actor: Actor, roles: readonly string[]): boolean {
  return actor.kind === 'user' && roles.includes(actor.role);
}

export function isAdmin(actor: Actor): boolean {
  return hasRole(actor, ['admin']);
}

/** Whether the actor is this very user (record rules such as "you may edit yourself"). */
export function isUser(actor: Actor, userId: number | null): boolean {
  return actor.kind === 'user' && actor.userId === userId;
}

/** The signed-in user behind a bearer-only service call; anything else is a programming error. */
export function actingUser(ctx: Pick<TenantContext, 'actor'>): UserActor {
  if (ctx.actor.kind !== 'user') throw new Error(`expected a user actor, got ${ctx.actor.kind}`);
  return ctx.actor;
}

interface TenantTable {
  organizationId: PgColumn;
}

/** `organization_id = ctx.orgId AND …conditions`. */
export function tenantWhere(
  ctx: Pick<TenantContext, 'orgId'>,
  table: TenantTable,
  ...conditions: (SQL | undefined)[]
): SQL {
  return and(eq(table.organizationId, ctx.orgId), ...conditions) as SQL;
}
