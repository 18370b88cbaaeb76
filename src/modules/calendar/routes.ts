/**
 * Calendars: a provider's events (`GET`/`POST /api/calendar/{provider}/events`, spec rows) and,
 * beyond the spec, connecting and disconnecting a calendar and syncing its busy times on demand.
 * A connection of another organization is a 404; an unknown provider a 404 naming the served ones.
 */
import { z } from '@hono/zod-openapi';
import { Forbidden } from '../../core/errors';
import { created, list, ok, wholeList } from '../../core/http';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  ErrorEnvelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { isAdmin } from '../../db/tenant';
import { findConnection } from '../../providers/connections';
import { enqueueCalendarSync, SYNC_EVERY_SECONDS } from './busy-sync';
import {
  CalendarConnectionSchema,
  CalendarEventSchema,
  ConnectCalendarBody,
  EventsQuery,
  NewEventBody,
  ProviderParam,
} from './schemas';
import {
  connectCalendar,
  disconnectCalendar,
  insertProviderEvent,
  listCalendarConnections,
  listProviderEvents,
  presentConnection,
  servedProvider,
} from './service';

export const calendarRoutes = createRouter();

const connectionDetails = z.object({
  connection_id: z.number().int().openapi({ description: 'The calendar connection' }),
  provider: z.string().openapi({ description: 'Its provider' }),
});

/** What a route that calls the provider may answer besides its own: the connection unusable, the provider down. */
const providerResponses = {
  409: conflictResponse(
    'CalendarConnectionConflict',
    'The calendar connection cannot be used: its credentials stopped working (reconnect it) or it is disabled',
    [
      {
        code: 'connection_needs_reconnect',
        details: connectionDetails,
        example: { connection_id: 3, provider: 'google' },
      },
      { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 3, provider: 'google' } },
    ],
  ),
  503: {
    description:
      'The provider is down or throttling (error.code provider_unavailable; try again after Retry-After), or the server has no credentials key or OAuth client configured',
    headers: {
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' as const } },
    },
    content: { 'application/json': { schema: ErrorEnvelope } },
  },
};
/** The insert's: those above, and an Idempotency-Key whose event was made, then deleted in the calendar. */
const insertResponses = {
  ...providerResponses,
  409: conflictResponse(
    'CalendarInsertConflict',
    'The calendar connection cannot be used (connection_needs_reconnect, connection_disabled), or the event made under this Idempotency-Key was deleted in the calendar since (idempotency_key_spent: send a new key)',
    [
      {
        code: 'connection_needs_reconnect',
        details: connectionDetails,
        example: { connection_id: 3, provider: 'google' },
      },
      { code: 'connection_disabled', details: connectionDetails, example: { connection_id: 3, provider: 'google' } },
      { code: 'idempotency_key_spent' },
    ],
  ),
};
const tags = ['Calendar'];
const FAILURES =
  'A calendar whose credentials stopped working: 409 `connection_needs_reconnect` naming it. The provider down or throttling: 503 `provider_unavailable` with Retry-After.';

calendarRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/calendar/{provider}/events',
    operationId: 'listCalendarEvents',
    tags,
    summary: 'Events of a connected calendar (google, outlook or local)',
    description: `Events overlapping \`from\`–\`to\` (default: the next 7 days; at most 62 days), read from the provider at once (every page; recurring events expanded) from the caller's own calendar of that provider, or \`connection_id\`. No calendar connected: 404. An unknown provider: 404 naming google, outlook and local. ${FAILURES}`,
    auth: 'bearer',
    request: { params: ProviderParam, query: EventsQuery },
    responses: {
      200: listEnvelope(CalendarEventSchema, 'Events', {
        whole: true,
        rows: 'Every event overlapping the range, in the provider’s order (start time)',
      }),
      ...providerResponses,
    },
  }),
  async (c) => {
    const provider = servedProvider(c.req.valid('param').provider);
    return list(c, wholeList(await listProviderEvents(c.var.tenant, c.env, provider, c.req.valid('query'))), 'Events');
  },
);

calendarRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/calendar/{provider}/events',
    operationId: 'createCalendarEvent',
    tags,
    summary: 'Insert an event into a connected calendar',
    description: `Inserts the event into the caller's calendar of that provider (or \`connection_id\`); \`conference: true\` asks for a Meet or Teams link. With an Idempotency-Key, a retry inserts nothing twice, at the provider too (the key becomes the provider's request id); a key whose event was deleted in the calendar since is spent: 409 \`idempotency_key_spent\` (Google keeps a deleted event's id). ${FAILURES}`,
    auth: 'bearer',
    // The connection's read, then the provider's call (for the local calendar one insert, whose
    // request id makes a repeat find its event): no transaction to hold open across the call.
    // With an Idempotency-Key the request runs in one all the same (core/database.ts).
    transaction: false,
    request: { params: ProviderParam, body: jsonBody(NewEventBody) },
    responses: { 201: envelope(CalendarEventSchema, 'Event created'), ...insertResponses },
  }),
  async (c) => {
    const provider = servedProvider(c.req.valid('param').provider);
    const event = await insertProviderEvent(
      c.var.tenant,
      c.env,
      provider,
      c.req.valid('json'),
      c.req.header('idempotency-key'),
    );
    return created(c, event, 'Event created');
  },
);

calendarRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/calendar/connections/add',
    operationId: 'connectCalendar',
    tags,
    summary: 'Connect a calendar for the caller (beyond the spec)',
    description:
      'Connects the caller’s calendar: `local` needs nothing; `google` and `outlook` take an OAuth access token (scope `https://www.googleapis.com/auth/calendar.events`; Graph `Calendars.ReadWrite` and `offline_access`) and its refresh token, stored sealed and never returned. Its busy times are then synced every few minutes (see docs/domains/calendar.md); pending booking events are written again.',
    auth: 'bearer',
    request: { body: jsonBody(ConnectCalendarBody) },
    responses: { 201: envelope(CalendarConnectionSchema, 'Calendar connected') },
  }),
  async (c) => created(c, await connectCalendar(c.var.tenant, c.env, c.req.valid('json')), 'Calendar connected'),
);

calendarRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/calendar/connections/list',
    operationId: 'listCalendarConnections',
    tags,
    summary: 'The organization’s connected calendars (beyond the spec; no tokens)',
    description: 'Every connected calendar of the organization with its state, last error and last sync.',
    auth: 'bearer',
    responses: {
      200: listEnvelope(CalendarConnectionSchema, 'Calendars', { whole: true, rows: 'Every connected calendar' }),
    },
  }),
  async (c) => list(c, wholeList(await listCalendarConnections(c.var.tenant)), 'Calendars'),
);

/** The connection's owner, or an admin. */
async function ownedConnection(c: Parameters<Parameters<typeof calendarRoutes.openapi>[1]>[0], id: number) {
  const connection = await findConnection(c.var.tenant, 'calendar', id);
  if (connection.ownerId !== c.var.tenant.userId && !isAdmin(c.var.tenant.actor)) {
    throw new Forbidden('Only the calendar’s owner or an admin may do this', 'calendar_owner_only');
  }
  return connection;
}

calendarRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/calendar/connections/delete/{id}',
    operationId: 'disconnectCalendar',
    tags,
    summary: 'Disconnect a calendar (beyond the spec)',
    description:
      'Wipes its tokens and stops its sync; its busy times stop counting at once. Answers the connection as it is after the disconnect (`state` `disabled`). Only its owner or an admin (403 `calendar_owner_only`).',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(CalendarConnectionSchema, 'Calendar disconnected') },
  }),
  async (c) => {
    const connection = await ownedConnection(c, c.req.valid('param').id);
    return ok(c, await disconnectCalendar(c.var.tenant, connection.id), 'Calendar disconnected');
  },
);

calendarRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/calendar/connections/{id}/sync',
    operationId: 'syncCalendar',
    tags,
    summary: 'Sync a calendar’s busy times now (beyond the spec)',
    description: `Queues a sync of the calendar's busy times at once instead of waiting for the scheduled one (every ${SYNC_EVERY_SECONDS / 60} minutes); \`last_synced_at\` moves when it is done. Only its owner or an admin.`,
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(CalendarConnectionSchema, 'Sync queued') },
  }),
  async (c) => {
    const connection = await ownedConnection(c, c.req.valid('param').id);
    // The job with its outbox message is the request's last statement: its COMMIT goes with it.
    c.var.tenant.commitWithNext?.();
    await enqueueCalendarSync(c.var.tenant, connection.id);
    return ok(c, presentConnection(connection), 'Sync queued');
  },
);
