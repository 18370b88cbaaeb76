/**
 * Users of an organization: profile, list, add, update, password change, delete (soft).
 * Adding and deleting are admin routes (declared in routes.ts); the rules that depend on the
 * record stay here: a user updates themself, only an admin updates others or changes a role or
 * state, and nobody deletes or deactivates themself.
 */
import { eq, ilike, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { organizations, roles, users } from '../../db/schema';
import { actingUser, isAdmin, isUser, tenantWhere, type TenantContext } from '../../db/tenant';
import { hashPassword, verifyPassword } from '../../core/auth/passwords';
import { grantFor, type LimitState, limitColumns, recordFailure, retryAfterSeconds } from '../auth';
import { isUniqueViolation } from '../../db/errors';
import { Conflict, Forbidden, NotFound, RateLimited, ValidationFailed } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import type { z } from '@hono/zod-openapi';
import { userListFilters, type AddUserBody, type UpdateUserBody } from './schemas';
import { invalidateBookingCache } from '../booking';
import { insertWithFreeSlug, presentBookingSettings, type BookingSettingsRow } from '../booking';

const userFields = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  phoneNo: users.phoneNo,
  roleId: users.roleId,
  roleName: roles.name,
  stateId: users.stateId,
  language: users.language,
  timezone: users.timezone,
  jobTitle: users.jobTitle,
  bookingSlug: users.bookingSlug,
  bookingEnabled: users.bookingEnabled,
  workingHours: users.workingHours,
  meetingDuration: users.meetingDuration,
  bufferMinutes: users.bufferMinutes,
  minNoticeMinutes: users.minNoticeMinutes,
  bookingMeetingTool: users.bookingMeetingTool,
  organizationId: users.organizationId,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};

type UserRow = Pick<
  typeof users.$inferSelect,
  | 'id'
  | 'firstName'
  | 'lastName'
  | 'email'
  | 'phoneNo'
  | 'roleId'
  | 'stateId'
  | 'language'
  | 'timezone'
  | 'organizationId'
  | 'createdAt'
  | 'updatedAt'
> &
  BookingSettingsRow & { roleName: string };

export function presentUser(row: UserRow) {
  return {
    id: row.id,
    first_name: row.firstName,
    last_name: row.lastName,
    name: [row.firstName, row.lastName].filter(Boolean).join(' '),
    email: row.email,
    phone_no: row.phoneNo,
    role_id: row.roleId,
    role_name: row.roleName,
    state_id: row.stateId,
    language: row.language,
    timezone: row.timezone ?? 'UTC',
    ...presentBookingSettings(row),
    organization_id: String(row.organizationId),
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

const liveUser = isNull(users.deletedAt);

async function findUser(ctx: TenantContext, id: number): Promise<UserRow> {
  const [row] = await ctx.db
    .select(userFields)
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .where(tenantWhere(ctx, users, eq(users.id, id), liveUser));
  if (!row) throw new NotFound('User', id);
  return row;
}

export async function getMyProfile(ctx: TenantContext) {
  const id = actingUser(ctx).userId;
  // The organization's name comes with the user, in the same statement.
  const [row] = await ctx.db
    .select({
      ...userFields,
      organizationName: sql<
        string | null
      >`(select ${organizations.name} from ${organizations} where ${organizations.id} = ${users.organizationId})`,
    })
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .where(tenantWhere(ctx, users, eq(users.id, id), liveUser));
  if (!row) throw new NotFound('User', id);
  return { ...presentUser(row), organization_name: row.organizationName ?? '' };
}

export function userSearch(term: string): SQL {
  const pattern = containsPattern(term);
  // The full name as `name` shows it, so "Ada Lovelace" finds Ada Lovelace (a lead's search does too).
  const fullName = sql`concat_ws(' ', ${users.firstName}, ${users.lastName})`;
  return or(ilike(fullName, pattern), ilike(users.email, pattern)) as SQL;
}

export const userList = defineList({
  sort: { id: users.id, first_name: users.firstName, email: users.email, created_at: users.createdAt },
  filters: userListFilters,
  search: (term) => userSearch(term),
  createdAt: users.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...userFields, ...columns })
        .from(users)
        .innerJoin(roles, eq(roles.id, users.roleId))
        .$dynamic(),
    where: tenantWhere(
      ctx,
      users,
      liveUser,
      params.role_id ? inArray(users.roleId, params.role_id) : undefined,
      params.state_id ? inArray(users.stateId, params.state_id) : undefined,
    ),
  }),
  present: (row) => presentUser(row),
});
export const UserListQuery = userList.query;

export const listUsers = userList.run;

async function requireRole(ctx: TenantContext, roleId: number): Promise<void> {
  const [role] = await ctx.db
    .select({ id: roles.id })
    .from(roles)
    .where(tenantWhere(ctx, roles, eq(roles.id, roleId)));
  if (!role) throw ValidationFailed.field('role_id', 'is not a role of this organization');
}

/** Emails and booking slugs are unique across organizations (login is by email alone); the unique indexes decide. */
async function claimEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'users_email_key'))
      throw new Conflict('A user with this email already exists', 'email_taken');
    if (isUniqueViolation(error, 'users_booking_slug_key'))
      throw new Conflict('This booking_slug belongs to another user', 'booking_slug_taken');
    throw error;
  }
}

export async function addUser(ctx: TenantContext, input: z.infer<typeof AddUserBody>) {
  let roleId = input.role_id;
  if (roleId) await requireRole(ctx, roleId);
  else {
    const [role] = await ctx.db
      .select({ id: roles.id })
      .from(roles)
      .where(tenantWhere(ctx, roles, eq(roles.name, 'sales_rep')));
    roleId = role.id;
  }
  const passwordHash = await hashPassword(input.password);
  // A slug taken by a concurrent writer meanwhile is skipped for the next free one (insertWithFreeSlug).
  const row = await claimEmail(() =>
    insertWithFreeSlug(input.first_name, input.last_name, (bookingSlug) =>
      ctx.db
        .insert(users)
        .values({
          organizationId: ctx.orgId,
          roleId,
          firstName: input.first_name,
          lastName: input.last_name ?? null,
          email: input.email,
          phoneNo: input.phone_no,
          passwordHash,
          bookingSlug,
        })
        .onConflictDoNothing({ target: users.bookingSlug })
        .returning({ id: users.id }),
    ),
  );
  // The answer's read is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  return presentUser(await findUser(ctx, row.id));
}

export async function updateUser(ctx: TenantContext, id: number, input: z.infer<typeof UpdateUserBody>) {
  const before = await findUser(ctx, id);
  const self = isUser(ctx.actor, id);
  if (!self && !isAdmin(ctx.actor)) throw new Forbidden('Only admins can update other users', 'admin_only');
  if ((input.role_id !== undefined || input.state_id !== undefined) && !isAdmin(ctx.actor)) {
    throw new Forbidden('Only admins can change roles or states', 'admin_only');
  }
  if (self && input.state_id === 0) throw new Forbidden('You cannot deactivate yourself', 'cannot_deactivate_self');
  if (input.role_id !== undefined) await requireRole(ctx, input.role_id);
  if (input.role_id !== undefined || input.state_id !== undefined) await assertAnAdminRemains(ctx, id, input);
  // The update is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const [after] = await claimEmail(() =>
    ctx.db
      .update(users)
      .set({
        firstName: input.first_name,
        lastName: input.last_name === undefined ? undefined : input.last_name,
        email: input.email,
        phoneNo: input.phone_no,
        language: input.language === undefined ? undefined : input.language,
        timezone: input.timezone === undefined ? undefined : (input.timezone ?? 'UTC'),
        jobTitle: input.job_title,
        bookingSlug: input.booking_slug,
        bookingEnabled: input.booking_enabled,
        workingHours: input.working_hours,
        meetingDuration: input.meeting_duration,
        bufferMinutes: input.buffer_minutes,
        minNoticeMinutes: input.min_notice_minutes,
        bookingMeetingTool: input.booking_meeting_tool,
        bookingVersion: sql`${users.bookingVersion} + 1`,
        roleId: input.role_id,
        stateId: input.state_id,
        // A new role or state ends the user's tokens: they carried the old one's rights.
        sessionGeneration: sql`${users.sessionGeneration} + case when ${users.roleId} is distinct from ${input.role_id ?? null}::bigint and ${input.role_id ?? null}::bigint is not null
        or ${users.stateId} is distinct from ${input.state_id ?? null}::smallint and ${input.state_id ?? null}::smallint is not null then 1 else 0 end`,
        updatedAt: sql`now()`,
      })
      .where(tenantWhere(ctx, users, eq(users.id, id)))
      // The user as it is now, with its (possibly new) role's name: no second read.
      .returning({
        ...userFields,
        roleName: sql<string>`(select ${roles.name} from ${roles} where ${roles.id} = ${users.roleId})`,
      }),
  );
  // Name, title and every booking setting show on the public page: its cached reads move on.
  await invalidateBookingCache(ctx, [before.bookingSlug, input.booking_slug]);
  return presentUser(after);
}

/**
 * An organization keeps at least one active admin: a role or state change, or a deletion (checked
 * as a deactivation), that would remove the last one is refused (409 `last_admin`), since nothing
 * else could then manage its users. Changes to admins are serialised per organization, so two
 * admins demoting, deactivating or deleting each other at once cannot both pass the check.
 */
async function assertAnAdminRemains(ctx: TenantContext, id: number, input: { role_id?: number; state_id?: 0 | 1 }) {
  await ctx.db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`admins:${ctx.orgId}`}, 0))`);
  const result = await ctx.db.execute<{ is_admin: boolean | null; stays_admin: boolean; other_admins: number }>(sql`
    select
      (select ${roles.name} = 'admin' and ${users.stateId} = 1 from ${users} join ${roles} on ${roles.id} = ${users.roleId} where ${users.id} = ${id} and ${users.deletedAt} is null) as is_admin,
      ${input.role_id === undefined ? sql`true` : sql`coalesce((select ${roles.name} = 'admin' from ${roles} where ${roles.id} = ${input.role_id}), false)`}
        and ${input.state_id ?? 1}::int = 1 as stays_admin,
      (select count(*)::int from ${users} join ${roles} on ${roles.id} = ${users.roleId}
        where ${users.organizationId} = ${ctx.orgId} and ${roles.name} = 'admin' and ${users.stateId} = 1 and ${users.deletedAt} is null and ${users.id} <> ${id}) as other_admins`);
  const check = result.rows[0];
  if (check.is_admin && !check.stays_admin && Number(check.other_admins) === 0) {
    throw new Conflict('The organization must keep at least one active admin', 'last_admin');
  }
}

/** Work on the database as its owner, outside the tenant scope (the sign-in records are no tenant's). */
export type OwnerDatabase = <T>(work: (db: Queryable) => Promise<T>) => Promise<T>;

/**
 * Changes the caller's password and ends every token issued before; returns a fresh token for the
 * caller. The current password is checked within the login limits (auth's login-limits.ts), and a
 * wrong one counts as a failed login of the account from `ip`: a bearer token alone must not let
 * its holder guess the password faster than the login form would. The sign-in records are read
 * and written as the owner (`asOwner`): row-level security keeps them from the tenant's role, and
 * a failure recorded there outlives the request's rolled-back transaction.
 */
export async function changePassword(
  ctx: TenantContext,
  secret: string,
  input: { current_password: string; new_password: string; confirm_password: string },
  ip: string,
  asOwner: OwnerDatabase,
) {
  if (input.new_password !== input.confirm_password)
    throw ValidationFailed.field('confirm_password', 'does not match new_password');
  const { userId, role } = actingUser(ctx);
  const [row] = await ctx.db
    .select({ hash: users.passwordHash, email: users.email })
    .from(users)
    .where(tenantWhere(ctx, users, eq(users.id, userId)));
  if (!row) throw new NotFound('User', userId);
  const attempt = { emailKey: row.email.trim().toLowerCase(), ip };
  const limits = limitColumns(attempt);
  const wait = await asOwner(async (db) => {
    const result = await db.execute<LimitState & Record<string, unknown>>(
      sql`select ${sql.join(
        Object.entries(limits).map(([name, value]) => sql`${value} as ${sql.identifier(name)}`),
        sql`, `,
      )}`,
    );
    return retryAfterSeconds(result.rows[0]);
  });
  if (wait > 0) throw new RateLimited(wait);
  if (!(await verifyPassword(input.current_password, row.hash))) {
    await asOwner((db) => db.execute(recordFailure(attempt)));
    throw ValidationFailed.field('current_password', 'is incorrect');
  }
  const [user] = await ctx.db
    .update(users)
    .set({
      passwordHash: await hashPassword(input.new_password),
      sessionGeneration: sql`${users.sessionGeneration} + 1`,
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, users, eq(users.id, userId)))
    .returning();
  return grantFor(secret, { ...user, roleName: role });
}

export async function deleteUser(ctx: TenantContext, id: number): Promise<void> {
  if (isUser(ctx.actor, id)) throw new Forbidden('You cannot delete your own account', 'cannot_delete_self');
  // The caller was an active admin when the request began, but another admin may be removing
  // them at this moment: a deletion counts the admins that remain as a deactivation does.
  await assertAnAdminRemains(ctx, id, { state_id: 0 });
  // The delete is the request's last statement: its COMMIT goes with it, the admins lock held until then.
  ctx.commitWithNext?.();
  const deleted = await ctx.db
    .update(users)
    .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(tenantWhere(ctx, users, eq(users.id, id), liveUser))
    .returning({ id: users.id, slug: users.bookingSlug });
  if (deleted.length === 0) throw new NotFound('User', id);
  // A deleted user's booking page answers 404: no cached copy may outlive that here.
  await invalidateBookingCache(ctx, [deleted[0].slug]);
}

export async function searchUsers(ctx: TenantContext, term: string, limit = 10) {
  const rows = await ctx.db
    .select(userFields)
    .from(users)
    .innerJoin(roles, eq(roles.id, users.roleId))
    .where(tenantWhere(ctx, users, liveUser, userSearch(term)))
    .orderBy(users.id)
    .limit(limit);
  return rows.map(presentUser);
}
