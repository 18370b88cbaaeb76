/**
 * Meetings (spec "Mail, inbox, calendar, meetings": the meeting rows) and the caller's own free
 * slots (GET /api/calendar/availability, the booking page's engine). A meeting, lead, contact,
 * company or user of another organization is a 404.
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { AvailabilityQuery, AvailabilitySchema } from '../booking';
import { callerAvailability } from '../booking';
import { insufficientCreditsResponse } from '../credits';
import { AddMeetingBody, MeetingSchema, SummaryBody, SummarySchema, UpdateMeetingBody } from './schemas';
import { addMeeting, deleteMeeting, listMeetings, MeetingListQuery, readMeeting, updateMeeting } from './service';
import { generateMeetingSummary } from './summaries';

export const meetingRoutes = createRouter();
const tags = ['Meetings'];

meetingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/meeting/list',
    operationId: 'listMeetings',
    tags,
    summary: 'Meetings of the organization, filtered by lead, contact, company, rep, status and time',
    description:
      'Meetings of the organization with the standard list parameters (`search_value` matches the title; `start_date`/`end_date` bound the creation date). `from`/`to` keep meetings that overlap that time range; `status` takes a comma-separated list.',
    auth: 'bearer',
    request: { query: MeetingListQuery },
    responses: { 200: listEnvelope(MeetingSchema) },
  }),
  async (c) => list(c, await listMeetings(c.var.tenant, c.req.valid('query'))),
);

meetingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/meeting/add',
    operationId: 'addMeeting',
    tags,
    summary: 'Create a meeting (end_time after start_time; linked records of the organization)',
    description:
      'Creates a meeting for `user_id` (default: the caller). `end_time` must be after `start_time` (422 on end_time). `lead_id`, `contact_id`, `company_id` and `user_id` must be records of the organization (404 otherwise). A Scheduled or Rescheduled meeting takes the rep’s slots off the booking page at once in this data centre (elsewhere within 30 seconds). For a rep with a calendar connected, the meeting is written into it as an event after the response (as a booked meeting is), and its later changes, cancellation and deletion follow it there.',
    auth: 'bearer',
    request: { body: jsonBody(AddMeetingBody) },
    responses: { 201: envelope(MeetingSchema, 'Meeting created') },
  }),
  async (c) => created(c, await addMeeting(c.var.tenant, c.req.valid('json')), 'Meeting created'),
);

meetingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/meeting/view/{id}',
    operationId: 'viewMeeting',
    tags,
    summary: 'One meeting',
    description: 'One meeting of the organization; 404 for a meeting of another organization.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(MeetingSchema) },
  }),
  async (c) => ok(c, await readMeeting(c.var.tenant, c.req.valid('param').id)),
);

meetingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/meeting/update/{id}',
    operationId: 'updateMeeting',
    tags,
    summary: 'Change a meeting (status, time, attendees …)',
    description:
      'Changes the fields sent; null clears a clearable one. The end must stay after the start, whichever of the two is sent (422 on end_time). Moving a meeting or changing its status frees or takes the rep’s booking slots.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateMeetingBody) },
    responses: { 200: envelope(MeetingSchema, 'Meeting updated') },
  }),
  async (c) =>
    ok(c, await updateMeeting(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Meeting updated'),
);

meetingRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/meeting/delete/{id}',
    operationId: 'deleteMeeting',
    tags,
    summary: 'Delete a meeting',
    description: 'Deletes the meeting for good; its slot becomes bookable again.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Meeting deleted') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteMeeting(c.var.tenant, id);
    return ok(c, { id }, 'Meeting deleted');
  },
);

meetingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/meeting/{id}/generate-summary',
    operationId: 'generateMeetingSummary',
    tags,
    summary: 'Summarise a meeting’s transcript (AI; 404 while it has none)',
    description:
      'Summarises the meeting’s stored transcript with the configured AI provider (prompt `meeting-summary@v2`): `brief` (the default) in a few sentences, `detailed` as a summary with its decisions and action items. The answer records the provider, model and prompt version, and the summary is kept on the meeting as `latest_summary` (`GET /api/meeting/view/{id}`), replacing the previous one. A meeting without a transcript is a 404 that says so (upload one with `POST /api/meeting/{id}/transcript`); a meeting of another organization is a 404. The local provider (the default) writes it from the transcript itself: the speaker turns and the key lines (figures, decisions, commitments), marked `provider: local`. A transcript longer than 100 000 characters (one request to the model) is split at line ends into parts of at most that size; the model writes notes on each part (prompt `meeting-summary-part@v1`, a few parts at once), then the summary of the whole meeting from those notes, for the same one charge. At most 12 parts (1 200 000 characters) are summarised; the rest is cut, and the last part sent says so. Costs 3 credits (`meeting_summary`, see `GET /api/credits/ai-features`): reserved before the model is asked, kept when the summary is stored, refunded when the provider fails (503 `provider_unavailable`, with Retry-After); a balance that does not cover it is a 402 and nothing is generated.',
    auth: 'bearer',
    // The reservation commits before the model is asked, so a slow model holds no lock.
    transaction: false,
    request: { params: idParam(), body: jsonBody(SummaryBody) },
    responses: { 200: envelope(SummarySchema, 'Summary generated'), 402: insufficientCreditsResponse },
  }),
  async (c) =>
    ok(
      c,
      await generateMeetingSummary(
        { ctx: c.var.tenant, env: c.env },
        c.env.FILES,
        c.req.valid('param').id,
        c.req.valid('json').detail ?? 'brief',
      ),
      'Summary generated',
    ),
);

meetingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/calendar/availability',
    operationId: 'getMyAvailability',
    tags,
    summary: 'The caller’s own free slots, in the zone asked for',
    description:
      'The caller’s free slots, computed exactly as on their public booking page: working hours in their timezone, minus their Scheduled and Rescheduled meetings widened by buffer_minutes, minus min_notice_minutes from now. `date`, or `from`/`to` (default: 7 days from today), are days in `tz` (default: the caller’s timezone); slots are written in `tz` with its offset. More than 62 days, or an unknown tz: 400 naming the parameter.',
    auth: 'bearer',
    request: { query: AvailabilityQuery },
    responses: { 200: envelope(AvailabilitySchema) },
  }),
  async (c) => ok(c, await callerAvailability(c.var.tenant, c.req.valid('query'))),
);
