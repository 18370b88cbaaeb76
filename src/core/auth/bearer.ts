/**
 * Bearer authentication for the /api routes: a valid, unexpired, unrevoked JWT of an active
 * user. The rest of the request runs in a transaction scoped to the token's organization.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { revokedTokens, roles, users } from '../../db/schema';
import { actorContext } from '../../db/tenant';
import { readConfig } from '../../env';
import type { AppEnv } from '../context';
import { runInTenantTransaction } from '../database';
import { Unauthorized } from '../errors';
import { limitApiCalls } from '../rate-limit';
import { verifyAccessToken } from './tokens';

export function readBearerToken(header: string | undefined): string {
  const match = header?.match(/^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i);
  if (!match) throw new Unauthorized(header ? 'Malformed Authorization header' : 'Missing bearer token', header ? 'invalid_token' : 'missing_token');
  return match[1];
}

export const bearerAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = readConfig(c.env);
  const claims = await verifyAccessToken(config.JWT_SECRET, readBearerToken(c.req.header('authorization')));
  c.set('logOrgId', claims.orgId);
  await limitApiCalls(c, claims.orgId);
  await runInTenantTransaction(c, next, claims.orgId, async (tx) => {
    const [caller] = await tx
      .select({ userId: users.id, roleName: roles.name })
      .from(users)
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(
        and(
          eq(users.id, claims.userId),
          eq(users.organizationId, claims.orgId),
          eq(users.stateId, 1),
          isNull(users.deletedAt),
          sql`not exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${claims.jti})`,
        ),
      );
    if (!caller) throw new Unauthorized('Access token revoked or user inactive', 'invalid_token');
    return { ...actorContext({ kind: 'user', userId: caller.userId, role: caller.roleName }), jti: claims.jti, tokenExpiresAt: claims.expiresAt };
  });
};
