/**
 * The operator's credential: the service's own staff, not a tenant. Routes declared
 * `auth: 'operator'` (granting credits, topping up a calling wallet) act on any organization, named
 * in their input (`organization_id`; runAsOrganization below), so no tenant credential reaches them,
 * an admin's included.
 *
 * The key is the Worker secret OPERATOR_API_KEY (at least 32 characters; `wrangler secret put
 * OPERATOR_API_KEY`), sent as `Authorization: Bearer <key>` or `X-Operator-Key: <key>`, and compared
 * in constant time (SHA-256 of both, then `timingSafeEqual`: neither the key's bytes nor its length
 * leak through timing).
 *
 * - No OPERATOR_API_KEY (or one too short to be a secret, logged): the route answers 404 as if it
 *   did not exist. A deployment that never set one has no operator surface.
 * - No credential at all: 401 `operator_key_missing`.
 * - Anything else (a tenant's bearer token or `x-api-key`, a wrong key): 403 `operator_only`.
 */
import { sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import { organizations } from '../../db/schema';
import { actorContext, type TenantContext } from '../../db/tenant';
import type { AppEnv } from '../context';
import { runAsTenant } from '../database';
import { ApiError, Forbidden, NotFound, Unauthorized } from '../errors';
import { IDEMPOTENT_REPLAYED_HEADER } from '../idempotency';
import { log } from '../log';

export const OPERATOR_KEY_HEADER = 'X-Operator-Key';
/** The scope of the operator's Idempotency-Keys, under the organization each request acts on. */
export const OPERATOR_IDEMPOTENCY_SCOPE = 'operator';
export const MIN_OPERATOR_KEY_LENGTH = 32;

let warnedShortKey = false;

/** The configured key, or null when the operator routes are off. */
function configuredKey(c: Context<AppEnv>): string | null {
  const key = c.env.OPERATOR_API_KEY?.trim();
  if (!key) return null;
  if (key.length < MIN_OPERATOR_KEY_LENGTH) {
    if (!warnedShortKey) {
      warnedShortKey = true;
      log.error(`OPERATOR_API_KEY is shorter than ${MIN_OPERATOR_KEY_LENGTH} characters: the operator routes are off`);
    }
    return null;
  }
  return key;
}

/**
 * What the caller sent as a credential: the dedicated header, else a bearer credential, else an
 * API key (a tenant's, which is compared like any other and so refused with 403, not 401).
 */
function presentedKey(c: Context<AppEnv>): string | null {
  const header = c.req.header(OPERATOR_KEY_HEADER)?.trim();
  if (header) return header;
  const authorization = c.req.header('authorization')?.trim();
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (bearer) return bearer;
  return c.req.header('x-api-key')?.trim() || null;
}

async function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
}

/** Equal in constant time: both sides are hashed first, so the lengths compared are always equal. */
export async function operatorKeyMatches(presented: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([digest(presented), digest(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

export const operatorAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = configuredKey(c);
  if (!expected) {
    throw new ApiError(404, 'not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
  }
  const presented = presentedKey(c);
  if (!presented) {
    throw new Unauthorized(
      `This operator route needs the operator key (Authorization: Bearer, or ${OPERATOR_KEY_HEADER})`,
      'operator_key_missing',
    );
  }
  if (!(await operatorKeyMatches(presented, expected))) {
    throw new Forbidden('This action is reserved to the service operator', 'operator_only');
  }
  await next();
};

/**
 * The handler of an operator route, run as the organization its input names: the request's
 * connection is scoped to it by one statement that also checks it exists (404 `Organization`
 * otherwise), and the work runs as that tenant with no user of it as the actor, so its writes are
 * credited to nobody (`created_by` null): the operator did them. `respond` does the work and
 * builds the route's response; runAsOrganization answers it.
 *
 * Idempotency-Key (the route is a POST, see defineRoute): keys are the operator's, under the
 * organization acted on (`idempotency_keys` row of that organization, scope `operator`), so the same
 * key sent for two organizations is two keys, never a replay of another organization's answer.
 * With a key the work and the stored response commit together in one transaction, and a retry of
 * the same request answers the first response (`Idempotent-Replayed: true`) without running again;
 * another request under the key is a 422, a retry while the first runs a 409, as on tenant routes.
 */
export async function runAsOrganization<R extends Response>(
  c: Context<AppEnv>,
  organizationId: number,
  respond: (ctx: TenantContext) => Promise<R>,
): Promise<R> {
  let answered = false;
  await runAsTenant<string>(
    c,
    async () => {
      c.res = await respond(c.var.tenant);
      answered = true;
    },
    organizationId,
    sql`(select ${organizations.id}::text from ${organizations} where ${organizations.id} = ${organizationId}) as caller`,
    (found) => {
      if (!found) throw new NotFound('Organization', organizationId);
      return { ...actorContext({ kind: 'public', onBehalfOf: 0 }), userId: null };
    },
    { idempotencyScope: OPERATOR_IDEMPOTENCY_SCOPE },
  );
  // A replay set the stored response instead of running the work.
  if (!answered && !c.res.headers.has(IDEMPOTENT_REPLAYED_HEADER)) {
    throw new Error('runAsOrganization: the work did not run');
  }
  // The route's own response, or the stored one replayed (the same status and body).
  return c.res as R;
}
