/**
 * Calendar connections and provider events. A calendar is a `connections` row of kind `calendar`
 * owned by a rep (providers/connections.ts): google and outlook keep their OAuth tokens sealed,
 * local needs none. The events routes speak to the provider through its adapter while the client
 * waits (providers/calls.ts maps a failure to 409 connection_needs_reconnect or 503).
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { ApiError, Conflict, NotFound, ValidationFailed } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { calendarEventWrites, connections } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { callProvider } from '../../providers/calls';
import {
  CALENDAR_PROVIDERS,
  type CalendarProviderName,
  EventIdTaken,
  type EventRange,
} from '../../providers/calendar/interface';
import { calendarFor } from '../../providers/calendar/select';
import {
  disconnectedColumns,
  type ConnectionRow,
  findConnection,
  requestWriter,
  requireUsable,
  sealCredentials,
} from '../../providers/connections';
import { bumpBookingVersion } from '../booking';
import { requeueWritesOnConnect } from './event-queue';

export const MAX_EVENT_RANGE_DAYS = 62;
const DAY_MS = 86_400_000;

/** Another provider than the served ones: 404 naming them. */
export function servedProvider(provider: string): CalendarProviderName {
  if ((CALENDAR_PROVIDERS as readonly string[]).includes(provider)) return provider as CalendarProviderName;
  throw new ApiError(
    404,
    'not_found',
    `Calendar provider ${provider.slice(0, 40)} is not served; the served ones are ${CALENDAR_PROVIDERS.join(', ')}`,
    null,
  );
}

export function presentConnection(row: ConnectionRow) {
  return {
    id: row.id,
    provider: row.provider as CalendarProviderName,
    calendar_id: row.identity,
    owner_id: row.ownerId,
    state: row.state,
    last_error: row.lastError,
    last_synced_at: isoTimestamp(row.lastSuccessAt),
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

export interface ConnectInput {
  provider: CalendarProviderName;
  calendar_id?: string;
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
}

/** Connects a calendar for the caller; google and outlook need an access token (422 naming it). */
export async function connectCalendar(ctx: TenantContext, env: Bindings, input: ConnectInput) {
  if (input.provider !== 'local' && !input.access_token) {
    throw ValidationFailed.field('access_token', `is required for ${input.provider}`);
  }
  const sealed =
    input.provider === 'local'
      ? { secret: null, secretKeyId: null }
      : await sealCredentials(env, ctx.orgId, {
          access_token: input.access_token,
          refresh_token: input.refresh_token ?? null,
        });
  const [row] = await ctx.db
    .insert(connections)
    .values({
      organizationId: ctx.orgId,
      kind: 'calendar',
      provider: input.provider,
      identity: input.calendar_id ?? 'primary',
      ownerId: ctx.userId,
      scopes:
        input.provider === 'google'
          ? ['https://www.googleapis.com/auth/calendar.events']
          : input.provider === 'outlook'
            ? ['Calendars.ReadWrite', 'offline_access']
            : [],
      ...sealed,
      tokenExpiresAt: input.expires_in ? new Date(Date.now() + input.expires_in * 1000) : null,
    })
    .returning();
  if (row.provider !== 'local') await replaceEarlierConnections(ctx, row);
  // The rep's busy times (and booking horizon) change with it: their booking page is read afresh.
  await bumpBookingVersion(ctx, [ctx.userId as number]);
  // Meeting events that could not be written (no calendar, or one that needed reconnecting), the
  // rep's upcoming meetings never written (made before this calendar, or while none was
  // connected), and changes the replaced calendar missed while it was disconnected, are written
  // now, in one statement, under the writes' own request ids, so none is made twice.
  // The request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  await requeueWritesOnConnect(ctx, ctx.userId as number, row.id);
  return presentConnection(row);
}

/**
 * Connecting a Google or Outlook calendar the caller has connected before (same provider and
 * calendar id: typically a reconnect after its token was revoked) replaces the earlier
 * connections, in one statement: they are disconnected (tokens wiped), so their last synced busy
 * times stop counting (the new connection's sync brings the current ones), and the events
 * meetings wrote into that calendar are reached through the new connection: those of the earlier
 * connections still connected and of those disconnected before (the same calendar, connected
 * again after a disconnect), so the changes they missed meanwhile are written
 * (requeueWritesOnConnect). A local calendar is a calendar of its own per connection: never
 * replaced.
 */
async function replaceEarlierConnections(ctx: TenantContext, row: ConnectionRow) {
  const sameCalendar = sql`${connections.organizationId} = ${ctx.orgId} and ${connections.kind} = 'calendar'
    and ${connections.ownerId} = ${row.ownerId} and ${connections.provider} = ${row.provider}
    and ${connections.identity} = ${row.identity} and ${connections.id} <> ${row.id}`;
  await ctx.db.execute(sql`
    with replaced as (
      update ${connections} set state = 'disabled', secret = null, secret_key_id = null, deleted_at = now(), updated_at = now()
      where ${sameCalendar} and ${connections.deletedAt} is null
      returning id
    )
    update ${calendarEventWrites} set connection_id = ${row.id}
    where ${calendarEventWrites.organizationId} = ${ctx.orgId}
      and ${calendarEventWrites.connectionId} in (select ${connections.id} from ${connections} where ${sameCalendar})`);
}

export async function listCalendarConnections(ctx: TenantContext) {
  const rows = await ctx.db
    .select()
    .from(connections)
    .where(tenantWhere(ctx, connections, eq(connections.kind, 'calendar'), isNull(connections.deletedAt)))
    .orderBy(connections.id);
  return rows.map(presentConnection);
}

/**
 * Disconnects a calendar connection the caller has already found (the route checks its owner): the
 * tokens are wiped and its busy blocks go with the sync's next run (cascade on delete is not used:
 * rows are kept). One statement; a connection disconnected meanwhile is a 404, as on a read.
 */
export async function disconnectCalendar(ctx: TenantContext, id: number) {
  // The answer is the connection as the disconnect left it (state disabled), from the update itself.
  const [disconnected] = await ctx.db
    .update(connections)
    .set(disconnectedColumns())
    .where(
      tenantWhere(
        ctx,
        connections,
        eq(connections.id, id),
        eq(connections.kind, 'calendar'),
        isNull(connections.deletedAt),
      ),
    )
    .returning();
  if (!disconnected) throw new NotFound('Connection', id);
  // Its busy times stop counting at once, on the owner's booking page too.
  if (disconnected.ownerId !== null) await bumpBookingVersion(ctx, [disconnected.ownerId]);
  return presentConnection(disconnected);
}

/** The connection the caller asked for, or the caller's own newest of this provider; 404 when there is none. */
export async function connectionFor(ctx: TenantContext, provider: CalendarProviderName, connectionId?: number) {
  if (connectionId) {
    const row = await findConnection(ctx, 'calendar', connectionId);
    if (row.provider !== provider) throw new NotFound(`${provider} calendar connection`, connectionId);
    return requireUsable(row);
  }
  const [row] = await ctx.db
    .select()
    .from(connections)
    .where(
      tenantWhere(
        ctx,
        connections,
        and(
          eq(connections.kind, 'calendar'),
          eq(connections.provider, provider),
          eq(connections.ownerId, ctx.userId as number),
          isNull(connections.deletedAt),
        ),
      ),
    )
    .orderBy(desc(connections.id))
    .limit(1);
  if (!row) throw new NotFound(`No ${provider} calendar is connected for you (POST /api/calendar/connections/add)`);
  return requireUsable(row);
}

export function eventRange(from: Date | undefined, to: Date | undefined): EventRange {
  const start = from ?? new Date();
  const end = to ?? new Date(start.getTime() + 7 * DAY_MS);
  if (end.getTime() <= start.getTime()) throw ValidationFailed.field('to', 'must be after from');
  if (end.getTime() - start.getTime() > MAX_EVENT_RANGE_DAYS * DAY_MS) {
    throw ValidationFailed.field('to', `must be at most ${MAX_EVENT_RANGE_DAYS} days after from`);
  }
  return { from: start, to: end };
}

export async function listProviderEvents(
  ctx: TenantContext,
  env: Bindings,
  provider: CalendarProviderName,
  query: { from?: Date; to?: Date; connection_id?: number },
) {
  const range = eventRange(query.from, query.to);
  const connection = await connectionFor(ctx, provider, query.connection_id);
  const writer = requestWriter(env);
  const calendar = calendarFor({ db: ctx.db, env, writer }, connection);
  return callProvider(writer, connection, 'Calendar events', () => calendar.listEvents(range));
}

export interface NewEventInput {
  title: string;
  start: Date;
  end: Date;
  time_zone?: string;
  description?: string | null;
  location?: string | null;
  attendees?: { email: string; name?: string | null }[];
  conference?: boolean;
  connection_id?: number;
}

/**
 * Inserts an event. The request id is the Idempotency-Key when the client sent one (a retry makes
 * no second event at the provider either), else a fresh one.
 */
export async function insertProviderEvent(
  ctx: TenantContext,
  env: Bindings,
  provider: CalendarProviderName,
  input: NewEventInput,
  idempotencyKey: string | undefined,
) {
  if (input.end.getTime() <= input.start.getTime()) throw ValidationFailed.field('end', 'must be after start');
  const connection = await connectionFor(ctx, provider, input.connection_id);
  const writer = requestWriter(env);
  const calendar = calendarFor({ db: ctx.db, env, writer }, connection);
  const requestId = idempotencyKey ? `api:${ctx.orgId}:${ctx.userId}:${idempotencyKey}` : `api:${crypto.randomUUID()}`;
  const inserted = callProvider(writer, connection, 'Calendar event', () =>
    calendar.insertEvent({
      title: input.title,
      start: input.start,
      end: input.end,
      time_zone: input.time_zone ?? 'UTC',
      description: input.description,
      location: input.location,
      attendees: (input.attendees ?? []).map((attendee) => ({ email: attendee.email, name: attendee.name ?? null })),
      conference: input.conference,
      request_id: requestId,
    }),
  );
  return inserted.catch((error: unknown) => {
    // The Idempotency-Key's event was made, then deleted in the calendar: the key is spent.
    if (error instanceof EventIdTaken) {
      throw new Conflict(
        'The event made under this Idempotency-Key was deleted in the calendar; send a new key to make another',
        'idempotency_key_spent',
      );
    }
    throw error;
  });
}
