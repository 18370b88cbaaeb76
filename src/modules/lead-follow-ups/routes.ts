/**
 * Follow-ups on a lead: list (status and date filters), add, update (status changes), delete.
 * Status: 1 pending, 2 completed, 3 rescheduled, 4 cancelled, 5 missed, 6 no response.
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { AddFollowUpBody, FollowUpSchema, UpdateFollowUpBody } from './schemas';
import { addFollowUp, deleteFollowUp, FollowUpListQuery, listFollowUps, updateFollowUp } from './service';

export const leadFollowUpRoutes = createRouter();
const tags = ['Lead follow-ups'];

leadFollowUpRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/follow-up/list',
    operationId: 'listLeadFollowUps',
    tags,
    summary: 'Follow-ups of one lead, filtered by status and follow-up date; search_value matches notes',
    description:
      'Follow-ups of one lead (`lead_id`, required), filtered by status and by follow-up date; `search_value` matches the notes.',
    auth: 'bearer',
    request: { query: FollowUpListQuery },
    responses: { 200: listEnvelope(FollowUpSchema) },
  }),
  async (c) => list(c, await listFollowUps(c.var.tenant, c.req.valid('query'))),
);

leadFollowUpRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/follow-up/add',
    operationId: 'addLeadFollowUp',
    tags,
    summary: 'Schedule a follow-up on a lead (status defaults to 1 pending)',
    description: 'Schedules a follow-up on a lead for a date and time. `status` defaults to 1 (pending).',
    auth: 'bearer',
    // One statement (the insert, the lead's activity and its feed entry) that stands alone: no BEGIN/COMMIT.
    transaction: false,
    request: { body: jsonBody(AddFollowUpBody) },
    responses: { 201: envelope(FollowUpSchema, 'Follow-up added') },
  }),
  async (c) => created(c, await addFollowUp(c.var.tenant, c.req.valid('json')), 'Follow-up added'),
);

leadFollowUpRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/follow-up/update/{id}',
    operationId: 'updateLeadFollowUp',
    tags,
    summary: 'Change a follow-up’s date, notes or status (any status may follow any other)',
    description:
      "Changes a follow-up's date, notes or status; only the fields sent change, and any status may follow any other.",
    auth: 'bearer',
    // One statement (the row locked as it was, the update, the lead's activity and the feed entry) that stands alone: no BEGIN/COMMIT.
    transaction: false,
    request: { params: idParam(), body: jsonBody(UpdateFollowUpBody) },
    responses: { 200: envelope(FollowUpSchema, 'Follow-up updated') },
  }),
  async (c) =>
    ok(c, await updateFollowUp(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Follow-up updated'),
);

leadFollowUpRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/lead/follow-up/delete/{id}',
    operationId: 'deleteLeadFollowUp',
    tags,
    summary: 'Delete a follow-up',
    description: 'Deletes a follow-up for good.',
    auth: 'bearer',
    // One statement (the delete and its feed entry) that stands alone: no BEGIN/COMMIT.
    transaction: false,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Follow-up deleted') },
  }),
  async (c) => ok(c, await deleteFollowUp(c.var.tenant, c.req.valid('param').id), 'Follow-up deleted'),
);
