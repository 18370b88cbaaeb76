/** Wire shapes of calendar connections and provider events (spec "Mail, inbox, calendar, meetings"). */
import { z } from '@hono/zod-openapi';
import { optionalText, positiveId, timestamp, timestampInput, timeZone } from '../../core/schemas';
import { CALENDAR_PROVIDERS } from '../../providers/calendar/interface';

const providers = CALENDAR_PROVIDERS.join(', ');

/** Any string: an unknown provider is a 404 naming the served ones (the route answers it, not validation). */
export const ProviderParam = z.object({
  provider: z
    .string()
    .max(40)
    .openapi({
      param: { name: 'provider', in: 'path' },
      description: `The calendar provider: ${providers}`,
      example: 'google',
    }),
});

export const EventsQuery = z.object({
  from: timestampInput(
    { offset: 'optional', dateOnly: true },
    'Events ending after this instant (default: now)',
  ).optional(),
  to: timestampInput(
    { offset: 'optional', dateOnly: true },
    'Events starting before this instant (default: 7 days after from; at most 62 days after it)',
  ).optional(),
  connection_id: positiveId
    .optional()
    .openapi({ type: 'integer', description: 'The calendar connection (default: the caller’s own of this provider)' }),
});

const attendee = z.object({
  email: z.string().max(254).email('must be a valid email address').openapi({ description: 'Attendee address' }),
  name: optionalText(120).optional().openapi({ description: 'Attendee name' }),
});

export const NewEventBody = z
  .object({
    title: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(500, 'must be at most 500 characters')
      .openapi({ description: 'Title' }),
    start: timestampInput({ offset: 'required' }, 'Start (ISO 8601 with an offset)'),
    end: timestampInput({ offset: 'required' }, 'End, after start'),
    time_zone: timeZone.optional().openapi({ description: 'Zone the event is written in (default: UTC)' }),
    description: optionalText(8000).optional().openapi({ description: 'Description' }),
    location: optionalText(500).optional().openapi({ description: 'Location' }),
    attendees: z
      .array(attendee)
      .max(100, 'must have at most 100 attendees')
      .optional()
      .openapi({ description: 'Invitees' }),
    conference: z
      .boolean()
      .optional()
      .openapi({ description: 'true: ask the provider for a video link (Meet, Teams)' }),
    connection_id: positiveId
      .optional()
      .openapi({ type: 'integer', description: 'The calendar connection (default: the caller’s own)' }),
  })
  .openapi('NewCalendarEventRequest', {
    description: 'An event to insert into a connected calendar',
    example: { title: 'Demo', start: '2027-03-01T14:00:00Z', end: '2027-03-01T14:30:00Z', conference: true },
  });

export const CalendarEventSchema = z
  .object({
    id: z.string().openapi({ description: 'The provider’s event id' }),
    title: z.string().openapi({ description: 'Title' }),
    start: timestamp('Start'),
    end: timestamp('End'),
    all_day: z.boolean().openapi({ description: 'An all-day event (start and end are midnights UTC of its dates)' }),
    busy: z.boolean().openapi({ description: 'Whether it holds the owner’s time (what availability subtracts)' }),
    cancelled: z.boolean().openapi({ description: 'Cancelled (Google lists cancelled instances)' }),
    location: z.string().nullable().openapi({ description: 'Location' }),
    description: z.string().nullable().openapi({ description: 'Description (Graph: its preview)' }),
    attendees: z
      .array(
        z.object({
          email: z.string().openapi({ description: 'Invitee address' }),
          name: z.string().nullable().openapi({ description: 'Invitee name, if the provider has one' }),
        }),
      )
      .openapi({ description: 'Invitees' }),
    conference_url: z.string().nullable().openapi({ description: 'Video link (Meet, Teams), if any' }),
    provider: z
      .enum(CALENDAR_PROVIDERS)
      .openapi({ description: 'Which provider answered (`local`: the offline calendar)' }),
  })
  .openapi('CalendarEvent', {
    description: 'An event of a connected calendar',
    example: {
      id: 'local_17',
      title: 'Demo with Acme',
      start: '2027-03-01T14:00:00.000Z',
      end: '2027-03-01T14:30:00.000Z',
      all_day: false,
      busy: true,
      cancelled: false,
      location: null,
      description: null,
      attendees: [{ email: 'grace@example.com', name: 'Grace Hopper' }],
      conference_url: null,
      provider: 'local',
    },
  });

export const ConnectCalendarBody = z
  .object({
    provider: z.enum(CALENDAR_PROVIDERS, { error: `must be ${providers}` }).openapi({ description: 'The provider' }),
    calendar_id: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(320)
      .optional()
      .openapi({ description: 'Which calendar (default `primary`: the account’s main calendar)' }),
    access_token: z.string().min(1, 'is required').max(4096).optional().openapi({
      description: 'google and outlook: an OAuth access token with the calendar scope (stored sealed, never returned)',
    }),
    refresh_token: z.string().min(1).max(4096).optional().openapi({ description: 'Refresh token (stored sealed)' }),
    expires_in: z
      .number()
      .int()
      .positive()
      .max(31_536_000)
      .optional()
      .openapi({ description: 'Seconds the access token lives' }),
  })
  .openapi('ConnectCalendarRequest', {
    description: 'A calendar to connect for the caller',
    example: { provider: 'google', access_token: 'ya29.…', refresh_token: '1//…', expires_in: 3599 },
  });

export const CalendarConnectionSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The connection' }),
    provider: z.enum(CALENDAR_PROVIDERS).openapi({ description: 'Provider' }),
    calendar_id: z.string().openapi({ description: 'Which calendar' }),
    owner_id: z.number().int().nullable().openapi({ description: 'The rep whose calendar it is' }),
    state: z
      .enum(['active', 'needs_reconnect', 'disabled'])
      .openapi({ description: 'Usable, waiting for a reconnect, or off' }),
    last_error: z.string().nullable().openapi({ description: 'The last failure, in plain words' }),
    last_synced_at: timestamp('When busy times were last copied (null: never)').nullable(),
    created_at: timestamp('When connected'),
  })
  .openapi('CalendarConnection', {
    description: 'A connected calendar (its tokens are never returned)',
    example: {
      id: 4,
      provider: 'google',
      calendar_id: 'primary',
      owner_id: 12,
      state: 'active',
      last_error: null,
      last_synced_at: '2027-03-01T08:55:00.000Z',
      created_at: '2027-02-20T10:00:00.000Z',
    },
  });
