/**
 * Every write to a user's meetings or booking settings calls `bumpBookingVersion` in its
 * transaction: the bump moves the edge cache's key on (edge-cache.ts), and its row lock on the
 * user serialises the writes of one rep, which is what makes a booking confirmation's re-check
 * and insert race-free (two confirmations of one slot: the second waits, then sees the first).
 */
import { inArray, sql } from 'drizzle-orm';
import { users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { forgetBookingVersion } from './edge-cache';

export async function bumpBookingVersion(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>,
  userIds: readonly number[],
): Promise<{ id: number; slug: string | null }[]> {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  const bumped = await ctx.db
    .update(users)
    .set({ bookingVersion: sql`${users.bookingVersion} + 1` })
    .where(tenantWhere(ctx, users, inArray(users.id, ids)))
    .returning({ id: users.id, slug: users.bookingSlug });
  await invalidateBookingCache(
    ctx,
    bumped.map((row) => row.slug),
  );
  return bumped;
}

/**
 * Drops the slugs' cached version in this data centre now (a read before commit still sees the
 * old rows, and may cache them again) and once more after commit, when the new rows are visible.
 */
export async function invalidateBookingCache(
  ctx: Pick<TenantContext, 'effects'>,
  slugs: readonly (string | null | undefined)[],
): Promise<void> {
  await forgetBookingVersion(slugs);
  ctx.effects?.afterCommit(() => forgetBookingVersion(slugs));
}
