/**
 * Phone numbers: searching the provider's offer, the organization's numbers with their users,
 * buying one (paid from the wallet in the same transaction as its record, the provider purchase
 * queued through the outbox: the voice job buys it, or refunds and marks it failed), and
 * assigning users to one. Another organization's number or user is a 404.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, ilike, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { Conflict, NotFound, ValidationFailed } from '../../core/errors';
import { wholeList } from '../../core/http';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { phoneNumbers, phoneNumberUsers, users, voiceJobs } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { insertJob } from '../../jobs/outbox';
import { callProvider } from '../../providers/calls';
import { requestWriter } from '../../providers/connections';
import { findVoiceConnection, voiceSetupOf } from '../../providers/voice/select';
import { MONTHLY_NUMBER_CENTS } from '../../providers/voice/twilio';
import type { AssignNumberBody, AvailableNumbersQuery, PurchaseNumberBody } from './schemas';
import { centsToAmount, debitWallet } from './wallet';

type NumberRow = typeof phoneNumbers.$inferSelect;

export async function availableNumbers(
  ctx: TenantContext,
  env: Bindings,
  query: z.output<typeof AvailableNumbersQuery>,
) {
  const setup = await voiceSetupOf(env, await findVoiceConnection(ctx.db, ctx.orgId));
  const search = {
    country: 'US',
    type: query.type,
    areaCode: query.areaCode,
    contains: query.contains,
    limit: query.limit,
  };
  const found = setup.connection
    ? await callProvider(requestWriter(env), setup.connection, 'number search', () =>
        setup.telephony.searchNumbers(search),
      )
    : await setup.telephony.searchNumbers(search);
  const rows = found.map(({ monthly_price_cents, ...number }) => ({
    ...number,
    monthly_price: centsToAmount(monthly_price_cents),
    currency: 'USD' as const,
  }));
  return wholeList(rows, query.limit);
}

export function presentNumber(row: NumberRow & { assignedUserIds: number[] }) {
  return {
    id: row.id,
    phone_number: row.phoneNumber,
    friendly_name: row.friendlyName,
    type: row.numberType,
    provider: row.provider,
    status: row.status,
    failure_reason: row.failureReason,
    monthly_price: centsToAmount(row.monthlyPriceCents),
    currency: 'USD' as const,
    assigned_user_ids: row.assignedUserIds,
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

// A single-table select renders columns unqualified, so the correlated subquery names the outer table itself.
const assignedUserIds = sql<
  number[]
>`array(select a.user_id::int from ${phoneNumberUsers} a where a.organization_id = "phone_numbers"."organization_id" and a.phone_number_id = "phone_numbers"."id" order by a.user_id)`;

export const numberList = defineList({
  sort: { id: phoneNumbers.id, created_at: phoneNumbers.createdAt },
  search: (term) => ilike(phoneNumbers.phoneNumber, containsPattern(term)),
  createdAt: phoneNumbers.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ row: phoneNumbers, assignedUserIds, ...columns })
        .from(phoneNumbers)
        .$dynamic(),
    where: tenantWhere(ctx, phoneNumbers),
  }),
  present: (entry) => presentNumber({ ...entry.row, assignedUserIds: entry.assignedUserIds.map(Number) }),
});

/** E.164 of a number as written, checked with libphonenumber-js; null when it is not a valid phone number. */
export function e164(value: string | null | undefined, defaultCountry: 'US' | undefined = undefined): string | null {
  if (!value) return null;
  const parsed = parsePhoneNumberFromString(value, defaultCountry ? { defaultCountry } : undefined);
  return parsed?.isValid() ? parsed.number : null;
}

export async function purchaseNumber(ctx: TenantContext, input: z.output<typeof PurchaseNumberBody>) {
  const number = input.phoneNumber.startsWith('+') ? e164(input.phoneNumber) : null;
  if (!number)
    throw ValidationFailed.field('phoneNumber', 'must be a valid phone number in E.164, such as +14155550100');
  const connection = await findVoiceConnection(ctx.db, ctx.orgId);
  const type = input.type ?? 'local';
  const price = MONTHLY_NUMBER_CENTS[type];
  const [row] = await ctx.db
    .insert(phoneNumbers)
    .values({
      organizationId: ctx.orgId,
      phoneNumber: number,
      friendlyName: input.friendlyName ?? null,
      numberType: type,
      provider: connection?.provider ?? 'local',
      connectionId: connection?.id ?? null,
      monthlyPriceCents: price,
      createdBy: ctx.userId,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new Conflict(`The organization already has ${number}`, 'number_owned', { phone_number: number });
  // Same transaction: a refused debit (402) rolls the number's record back with it.
  await debitWallet(ctx.db, ctx.orgId, {
    kind: 'number_rental',
    cents: price,
    phoneNumberId: row.id,
    note: `${number}, first month`,
    createdBy: ctx.userId,
  });
  // The purchase's job with its outbox message, the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  await insertJob(ctx, 'voice', voiceJobs, {
    organizationId: ctx.orgId,
    action: 'purchase_number',
    phoneNumberId: row.id,
    createdBy: ctx.userId,
  });
  return presentNumber({ ...row, assignedUserIds: [] });
}

export async function findNumber(ctx: Pick<TenantContext, 'db' | 'orgId'>, id: number): Promise<NumberRow> {
  const [row] = await ctx.db
    .select()
    .from(phoneNumbers)
    .where(tenantWhere(ctx, phoneNumbers, eq(phoneNumbers.id, id)));
  if (!row) throw new NotFound('Phone number', id);
  return row;
}

/** Replaces the number's users with these (users of the organization; another's is a 404). */
export async function assignNumber(ctx: TenantContext, input: z.output<typeof AssignNumberBody>) {
  const userIds = [...new Set(input.user_ids ?? (input.user_id ? [input.user_id] : []))];
  if (userIds.length === 0) throw ValidationFailed.field('user_ids', 'user_ids or user_id is required');
  const number = await findNumber(ctx, input.number_id);
  if (number.status === 'failed') {
    throw new Conflict(`Phone number ${number.id} failed to be bought; buy it again first`, 'number_failed');
  }
  const found = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(tenantWhere(ctx, users, inArray(users.id, userIds), isNull(users.deletedAt)));
  const missing = userIds.find((id) => !found.some((user) => user.id === id));
  if (missing) throw new NotFound('User', missing);
  // The request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  await ctx.db.execute(sql`
    with removed as (
      delete from ${phoneNumberUsers} where organization_id = ${ctx.orgId} and phone_number_id = ${number.id}
        and not (user_id = any(${`{${userIds.join(',')}}`}::bigint[]))
    )
    insert into ${phoneNumberUsers} (organization_id, phone_number_id, user_id)
    select ${ctx.orgId}, ${number.id}, u from unnest(${`{${userIds.join(',')}}`}::bigint[]) as u
    on conflict do nothing`);
  return presentNumber({ ...number, assignedUserIds: userIds.sort((a, b) => a - b) });
}

/** The organization's live number (not failed, not suspended) the user may call from (assigned to them first), or null. */
export async function callerNumber(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>): Promise<string | null> {
  const [row] = await ctx.db
    .select({ phoneNumber: phoneNumbers.phoneNumber })
    .from(phoneNumbers)
    .where(and(tenantWhere(ctx, phoneNumbers), notInArray(phoneNumbers.status, ['failed', 'suspended'])))
    .orderBy(
      sql`not exists (select 1 from ${phoneNumberUsers} a where a.organization_id = ${ctx.orgId} and a.phone_number_id = "phone_numbers"."id" and a.user_id = ${ctx.userId ?? 0})`,
      phoneNumbers.id,
    )
    .limit(1);
  return row?.phoneNumber ?? null;
}
