/**
 * Signup, login and logout. Signup and login run before any organization is known, so they
 * use the un-scoped connection for the lookups they need; logout runs in the caller's tenant.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { organizations, revokedTokens, roles, users } from '../../db/schema';
import { limitColumns, recordFailure, recordSuccess, retryAfterSeconds } from './login-limits';
import type { TenantContext } from '../../db/tenant';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../core/auth/passwords';
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken } from '../../core/auth/tokens';
import { isUniqueViolation } from '../../db/errors';
import { Conflict, Forbidden, NotFound, RateLimited, Unauthorized } from '../../core/errors';
import { createOrganization } from '../organizations';
import { insertWithFreeSlug } from '../booking';

export interface TokenGrant {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  expires_at: string;
  user: { id: number; email: string; name: string; organization_id: string; role_name: string };
}

interface GrantSubject {
  id: number;
  email: string;
  firstName: string;
  lastName: string | null;
  organizationId: number;
  roleName: string;
  sessionGeneration: number;
}

/** A bearer token for the user, in the user's current session generation. */
export async function grantFor(secret: string, user: GrantSubject): Promise<TokenGrant> {
  const { token, expiresAt } = await issueAccessToken(secret, {
    userId: user.id,
    orgId: user.organizationId,
    generation: user.sessionGeneration,
  });
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    expires_at: expiresAt.toISOString(),
    user: {
      id: user.id,
      email: user.email,
      name: [user.firstName, user.lastName].filter(Boolean).join(' '),
      organization_id: String(user.organizationId),
      role_name: user.roleName,
    },
  };
}

export async function emailTaken(db: Database, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, isNull(users.deletedAt)));
  return Boolean(row);
}

async function claimSignupEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'users_email_key'))
      throw new Conflict('An account with this email already exists', 'email_taken');
    throw error;
  }
}

export interface SignupInput {
  organization_name: string;
  first_name: string;
  last_name?: string | null;
  email: string;
  password: string;
}

export async function signup(db: Database, secret: string, input: SignupInput): Promise<TokenGrant> {
  if (await emailTaken(db, input.email)) throw new Conflict('An account with this email already exists', 'email_taken');
  const passwordHash = await hashPassword(input.password);
  // Two signups with one email can both pass the check above; the unique index decides, and the
  // loser gets the same answer as if it had arrived second.
  const user = await claimSignupEmail(() =>
    db.transaction(async (tx) => {
      const { organization, roleIds } = await createOrganization(tx, input.organization_name);
      // A slug taken by a concurrent writer meanwhile is skipped for the next free one (insertWithFreeSlug).
      const admin = await insertWithFreeSlug(input.first_name, input.last_name, (bookingSlug) =>
        tx
          .insert(users)
          .values({
            organizationId: organization.id,
            roleId: roleIds.get('admin') as number,
            firstName: input.first_name,
            lastName: input.last_name ?? null,
            email: input.email,
            passwordHash,
            bookingSlug,
          })
          .onConflictDoNothing({ target: users.bookingSlug })
          .returning(),
      );
      return { ...admin, roleName: 'admin' };
    }),
  );
  return grantFor(secret, user);
}

/**
 * Checks the password within the login limits (login-limits.ts): `ip` is the client address, for
 * the per-address limit and the trusted addresses.
 */
export async function login(
  db: Database,
  secret: string,
  email: string,
  password: string,
  ip: string,
): Promise<TokenGrant> {
  const attempt = { emailKey: email.trim().toLowerCase(), ip };
  const [account] = await db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      organizationId: users.organizationId,
      passwordHash: users.passwordHash,
      stateId: users.stateId,
      roleName: roles.name,
      sessionGeneration: users.sessionGeneration,
      organizationState: organizations.stateId,
      // The account's recent failures, read with the account: the limits cost no round trip.
      ...limitColumns(attempt),
    })
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .leftJoin(organizations, eq(organizations.id, users.organizationId))
    .where(and(sql`lower(${users.email}) = ${attempt.emailKey}`, isNull(users.deletedAt)));
  if (!account) {
    // Same cost as a real check, so response time does not tell more than the status does.
    await verifyPassword(password, DUMMY_PASSWORD_HASH);
    throw new NotFound('Account');
  }
  const wait = retryAfterSeconds(account);
  if (wait > 0) throw new RateLimited(wait);
  if (!(await verifyPassword(password, account.passwordHash))) {
    await db.execute(recordFailure(attempt));
    throw new Unauthorized('Invalid email or password', 'invalid_credentials');
  }
  if (account.stateId !== 1) throw new Forbidden('Account is inactive', 'account_inactive');
  if (account.organizationState !== 1) throw new Forbidden('Account has no active organization', 'no_organization');
  await db.execute(recordSuccess(attempt));
  return grantFor(secret, account);
}

export async function logout(ctx: TenantContext): Promise<void> {
  if (!ctx.jti || !ctx.tokenExpiresAt || ctx.userId === null) return;
  await ctx.db
    .insert(revokedTokens)
    .values({ jti: ctx.jti, organizationId: ctx.orgId, userId: ctx.userId, expiresAt: ctx.tokenExpiresAt })
    .onConflictDoNothing();
}
