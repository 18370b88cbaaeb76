/**
 * Shapes of the Meeting resource (spec "Meeting"): every field, meeting_tool and status limited
 * to the spec's values, instants as ISO 8601 with an offset.
 */
import { z } from '@hono/zod-openapi';
import { MAX_TEXT, positiveId, timestamp, timestampInput, webAddress } from '../../core/schemas';
import { MEETING_STATUSES, MEETING_TOOLS } from '../../db/schema';
import { timeZoneInput } from '../booking';

const instant = timestampInput({ offset: 'required' });

const statusValue = z
  .union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)], {
    error: 'must be 1 (Scheduled), 2 (Rescheduled), 3 (Held), 4 (Cancelled) or 5 (No Show)',
  })
  .openapi({ type: 'integer', enum: [1, 2, 3, 4, 5] });

const toolValue = z.enum(MEETING_TOOLS, { error: `must be one of ${MEETING_TOOLS.join(', ')}` });

export const AttendeeSchema = z
  .object({
    email: z
      .string()
      .trim()
      .max(254, 'must be at most 254 characters')
      .pipe(z.email('must be a valid email address'))
      .openapi({ description: 'Attendee email', example: 'grace@example.com' }),
    name: z
      .string()
      .trim()
      .max(100, 'must be at most 100 characters')
      .nullish()
      .openapi({ description: 'Attendee name (optional)', example: 'Grace Hopper' }),
  })
  .openapi('MeetingAttendee', {
    description: 'Someone invited to the meeting',
    example: { email: 'grace@example.com', name: 'Grace Hopper' },
  });

const attendees = z.array(AttendeeSchema).max(100, 'at most 100 attendees');
const optionalRef = (what: string) =>
  positiveId.nullish().openapi({
    type: ['integer', 'null'],
    description: `A ${what} of the organization (404 otherwise); null unlinks`,
  });

const writableFields = {
  user_id: positiveId.optional().openapi({
    type: 'integer',
    description: 'The user (rep) whose meeting it is, a user of the organization; defaults to the caller',
  }),
  lead_id: optionalRef('lead'),
  contact_id: optionalRef('contact'),
  company_id: optionalRef('company'),
  description: z
    .string()
    .trim()
    .max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`)
    .nullish()
    .openapi({ description: `Agenda or notes, up to ${MAX_TEXT} characters` }),
  location: z
    .string()
    .trim()
    .max(255, 'must be at most 255 characters')
    .nullish()
    .openapi({ description: 'Where it takes place, up to 255 characters' }),
  timezone: timeZoneInput.optional().openapi({
    description: 'IANA zone the meeting was arranged in (display only); defaults to the owner’s timezone',
    example: 'America/New_York',
  }),
  attendees: attendees.optional().openapi({ description: 'Who is invited, at most 100' }),
  meeting_url: webAddress(2_000).openapi({ description: 'Video-call link (http or https), up to 2000 characters' }),
  meeting_tool: toolValue.optional().openapi({ description: 'tool_a, tool_b, tool_c, custom or none (default none)' }),
  status: statusValue
    .optional()
    .openapi({ description: '1 Scheduled (default), 2 Rescheduled, 3 Held, 4 Cancelled, 5 No Show' }),
};

const title = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');

export const AddMeetingBody = z
  .object({
    title: title.openapi({ description: 'Title, 1 to 200 characters', example: 'Discovery call' }),
    start_time: instant.openapi({ description: 'Start, ISO 8601 with offset' }),
    end_time: instant.openapi({ description: 'End, ISO 8601 with offset; after start_time (422 on end_time)' }),
    ...writableFields,
  })
  .openapi('AddMeetingRequest', {
    description: 'A new meeting',
    example: {
      title: 'Discovery call',
      start_time: '2026-03-09T09:00:00-04:00',
      end_time: '2026-03-09T09:30:00-04:00',
      lead_id: 12,
      attendees: [{ email: 'grace@example.com', name: 'Grace Hopper' }],
      meeting_tool: 'tool_a',
    },
  });
export type AddMeetingInput = z.infer<typeof AddMeetingBody>;

export const UpdateMeetingBody = z
  .object({
    title: title.optional().openapi({ description: 'Title, 1 to 200 characters' }),
    start_time: instant.optional().openapi({ description: 'New start, ISO 8601 with offset' }),
    end_time: instant
      .optional()
      .openapi({ description: 'New end; must stay after the (new or stored) start (422 on end_time)' }),
    ...writableFields,
  })
  .openapi('UpdateMeetingRequest', {
    description: 'The fields to change; omitted fields keep their value, null clears a clearable one',
    example: { status: 2, start_time: '2026-03-10T10:00:00-04:00', end_time: '2026-03-10T10:30:00-04:00' },
  });
export type UpdateMeetingInput = z.infer<typeof UpdateMeetingBody>;

const detailValue = z.enum(['brief', 'detailed']);

const provenance = {
  provider: z
    .string()
    .openapi({ description: 'The AI provider that wrote it: local, openai or workers-ai', example: 'openai' }),
  model: z.string().openapi({ description: 'The model that wrote it', example: 'gpt-4o-mini-2024-07-18' }),
  prompt_version: z
    .string()
    .openapi({ description: 'The prompt and its version (`<id>@v<version>`)', example: 'meeting-summary@v2' }),
  generated_at: timestamp('When it was written'),
  transcript_at: timestamp(
    'When the transcript it summarises was stored: a later upload of the meeting’s transcript makes the summary stale (it is kept until a new one is generated)',
  ),
};

const SUMMARY_TEXT =
  'Discovery call: 4 speaker turns by Ada (2 turns), Grace (2 turns). Grace: Our budget is $40k for this quarter. Ada: I will send the proposal by Friday.';

const LATEST_SUMMARY_EXAMPLE = {
  detail: 'brief',
  text: SUMMARY_TEXT,
  provider: 'local',
  model: 'local-template',
  prompt_version: 'meeting-summary@v2',
  generated_at: '2026-03-09T14:05:00.000Z',
  transcript_at: '2026-03-09T14:00:00.000Z',
};

/** Inline (not a component), so that its `null` shows in the document. */
const LatestSummary = z
  .object({
    detail: detailValue.openapi({ description: 'brief or detailed', example: 'brief' }),
    text: z.string().openapi({ description: 'The summary', example: SUMMARY_TEXT }),
    ...provenance,
  })
  .nullable()
  .openapi({
    description:
      'The latest summary of its transcript (`POST /api/meeting/{id}/generate-summary`; each replaces the last), with where it came from; null: none generated yet',
    example: LATEST_SUMMARY_EXAMPLE,
  });

export const MeetingSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The meeting’s id' }),
    user_id: z.number().int().openapi({ description: 'The rep whose meeting it is' }),
    lead_id: z.number().int().nullable().openapi({ description: 'Linked lead; null: none' }),
    contact_id: z.number().int().nullable().openapi({ description: 'Linked contact; null: none' }),
    company_id: z.number().int().nullable().openapi({ description: 'Linked company; null: none' }),
    title: z.string().openapi({ description: 'Title' }),
    description: z.string().nullable().openapi({ description: 'Agenda or notes' }),
    location: z.string().nullable().openapi({ description: 'Where it takes place' }),
    start_time: timestamp('Start (UTC)'),
    end_time: timestamp('End (UTC)'),
    timezone: z.string().openapi({ description: 'IANA zone the meeting was arranged in' }),
    attendees: z.array(AttendeeSchema).openapi({ description: 'Who is invited' }),
    meeting_url: z.string().nullable().openapi({ description: 'Video-call link' }),
    meeting_tool: z.enum(MEETING_TOOLS).openapi({ description: 'tool_a, tool_b, tool_c, custom or none' }),
    status: z.number().int().openapi({ description: '1 Scheduled, 2 Rescheduled, 3 Held, 4 Cancelled, 5 No Show' }),
    status_text: z.string().openapi({ description: 'The status in words' }),
    source: z
      .enum(['app', 'booking'])
      .openapi({ description: 'app (created through the API) or booking (confirmed on the public booking page)' }),
    created_by: z.number().int().nullable().openapi({ description: 'The user who created it (the rep for bookings)' }),
    created_at: timestamp('When it was created'),
    updated_at: timestamp('When it last changed'),
    latest_summary: LatestSummary,
  })
  .openapi('Meeting', {
    description: 'A meeting of a rep with a lead, contact or company',
    example: {
      id: 7,
      user_id: 2,
      lead_id: 12,
      contact_id: null,
      company_id: null,
      title: 'Discovery call',
      description: null,
      location: null,
      start_time: '2026-03-09T13:00:00.000Z',
      end_time: '2026-03-09T13:30:00.000Z',
      timezone: 'America/New_York',
      attendees: [{ email: 'grace@example.com', name: 'Grace Hopper' }],
      meeting_url: 'https://meet.example.com/abc',
      meeting_tool: 'tool_a',
      status: 1,
      status_text: 'Scheduled',
      source: 'app',
      created_by: 2,
      created_at: '2026-03-01T10:00:00.000Z',
      updated_at: '2026-03-01T10:00:00.000Z',
      latest_summary: null,
    },
  });

export const statusText = (status: number): string =>
  MEETING_STATUSES[status as keyof typeof MEETING_STATUSES] ?? String(status);

export const SummaryBody = z
  .object({
    detail: z.enum(['brief', 'detailed'], { error: 'must be brief or detailed' }).optional().openapi({
      description:
        '`brief` (the default): a few sentences. `detailed`: a summary, then the decisions and the action items',
      example: 'detailed',
    }),
  })
  .openapi('GenerateMeetingSummaryRequest', {
    description: 'How detailed the summary should be',
    example: { detail: 'brief' },
  });

export const SummarySchema = z
  .object({
    meeting_id: z.number().int().openapi({ description: 'The meeting', example: 7 }),
    detail: detailValue.openapi({ description: 'The level of detail produced', example: 'brief' }),
    summary: z.string().openapi({ description: 'The summary text', example: SUMMARY_TEXT }),
    ...provenance,
    credits_charged: z
      .number()
      .int()
      .openapi({ description: 'Credits this summary cost (`meeting_summary`)', example: 3 }),
    balance: z.number().int().openapi({ description: 'The organization’s credits left after it', example: 997 }),
  })
  .openapi('MeetingSummary', {
    description:
      'A summary generated from a meeting’s transcript, with the provider, model and prompt version that wrote it; it is also kept on the meeting as `latest_summary`',
    example: {
      meeting_id: 7,
      detail: 'brief',
      summary: SUMMARY_TEXT,
      provider: 'local',
      model: 'local-template',
      prompt_version: 'meeting-summary@v2',
      generated_at: '2026-03-09T14:05:00.000Z',
      transcript_at: '2026-03-09T14:00:00.000Z',
      credits_charged: 3,
      balance: 997,
    },
  });
