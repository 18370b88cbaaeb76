/**
 * Bearer authentication for the /api routes: a valid, unexpired, unrevoked JWT of an active
 * user of an active organization, issued since the user's last password, role or state change
 * (its session generation), checked by the same statement that scopes the request's connection to the token's
 * organization (one round trip, while the rate-limit counters count the request), after which the
 * request runs as that tenant (see runAsTenant). A token the check refuses is taken back from its
 * organization's rate-limit count and remembered as refused (core/rate-limit.ts `refuseToken`):
 * its further requests are answered 401 without counting against the organization.
 */
import { sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { organizations, revokedTokens, roles, users } from '../../db/schema';
import { actorContext } from '../../db/tenant';
import { readConfig } from '../../env';
import type { AppEnv } from '../context';
import { runAsTenant } from '../database';
import { Unauthorized } from '../errors';
import { countApiCall, refuseRememberedToken, tokenRefused } from '../rate-limit';
import { verifyAccessToken } from './tokens';

export function readBearerToken(header: string | undefined): string {
  const match = header?.match(/^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i);
  if (!match)
    throw new Unauthorized(
      header ? 'Malformed Authorization header' : 'Missing bearer token',
      header ? 'invalid_token' : 'missing_token',
    );
  return match[1];
}

interface CheckedUser {
  user_id: number;
  role_name: string;
}

export const bearerAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = readConfig(c.env);
  const claims = await verifyAccessToken(config.JWT_SECRET, readBearerToken(c.req.header('authorization')));
  c.set('logOrgId', claims.orgId);
  // A token this isolate heard refused (revoked, user gone, older session): 401 before any counter or statement.
  refuseRememberedToken(claims.jti);
  const count = countApiCall(c, claims.orgId, { tokenId: claims.jti });
  if (count.refusedBefore) await count.admission;
  // Evaluated in the scoping statement, before the role switch applies: filters by organization itself.
  const callerCheck = sql`(select json_build_object('user_id', ${users.id}, 'role_name', ${roles.name})
    from ${users} join ${roles} on ${roles.id} = ${users.roleId} join ${organizations} on ${organizations.id} = ${users.organizationId}
    where ${users.id} = ${claims.userId} and ${users.organizationId} = ${claims.orgId} and ${users.stateId} = 1 and ${users.deletedAt} is null
      and ${users.sessionGeneration} = ${claims.generation} and ${organizations.stateId} = 1
      and not exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${claims.jti})) as caller`;
  let refused = false;
  try {
    await runAsTenant<CheckedUser>(
      c,
      next,
      claims.orgId,
      callerCheck,
      (caller) => {
        if (!caller) {
          refused = true;
          throw tokenRefused();
        }
        return {
          ...actorContext({ kind: 'user', userId: Number(caller.user_id), role: caller.role_name }),
          jti: claims.jti,
          tokenExpiresAt: claims.expiresAt,
        };
      },
      { admission: count.admission },
    );
  } catch (error) {
    // An ended token (the counters had admitted it: the caller check runs after them): taken back
    // from the organization's count and remembered, so it can never use up the organization's
    // budget. Only refused requests wait for this call.
    if (refused) await count.refuseToken(claims.expiresAt);
    throw error;
  }
};
