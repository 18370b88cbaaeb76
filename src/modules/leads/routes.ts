/**
 * Lead routes (spec "Leads"): the record, its list with filters, soft delete, custom fields
 * and the bulk actions. HTTP only: the rules live in the service files beside this one.
 */
import { z } from '@hono/zod-openapi';
import { created, list, ok } from '../../core/http';
import {
  conflictResponse,
  createRouter,
  defineRoute,
  envelope,
  idParam,
  jsonBody,
  listEnvelope,
} from '../../core/routes';
import { restoreConflict as restoreConflictResponse, restoredAnswer } from '../../core/restore-contract';
import { addTagsToLeads, assignLeads, changeLeadStatus, setLeadTags } from './bulk';
import { LeadListQuery, listLeads } from './listing';
import { readLead } from './present';
import {
  AddLeadRequestBody,
  AssignTagsBody,
  AssignUserBody,
  BulkResult,
  DeleteLeadsBody,
  LeadSchema,
  SetCustomFieldBody,
  SetTagsBody,
  StatusChangeBody,
  UpdateCustomFieldsBody,
  UpdateLeadBody,
} from './schemas';
import { createLead } from './create-leads';
import { duplicateModeOf } from './field-inputs';
import { deleteLeads, setLeadCustomField, updateLead, updateLeadCustomFields } from './update';
import {
  DeletedLeadListQuery,
  DeletedLeadSchema,
  listDeletedLeads,
  RestoreLeadsBody,
  restoreLeads,
  LEAD_NOUNS,
} from './trash';

export const leadRoutes = createRouter();
const tags = ['Leads'];

/** 409 on add and update: the email belongs to another live lead, whose id the client needs. */
export const duplicateLeadConflict = conflictResponse(
  'DuplicateLeadConflict',
  'Another live lead of the organization has this email (compared case-insensitively) or profile URL (compared normalised); error.details.lead_id is that lead, error.details.field the colliding field',
  [
    {
      code: 'duplicate_lead',
      details: z.object({
        lead_id: z.number().int().openapi({ description: 'The existing lead holding the email', example: 42 }),
        field: z.enum(['email', 'profile_url']).openapi({ description: 'The field that collides' }),
      }),
      example: { lead_id: 42, field: 'email' },
    },
  ],
);

/** 409 on restore: a live lead holds a key of a lead to restore, or two of them share one. */
const restoreConflict = restoreConflictResponse(LEAD_NOUNS, {
  code: 'duplicate_lead',
  holder: 'lead_id',
  fields: ['email', 'profile_url', 'external_id'],
  keys: 'email (any case), profile URL (normalised) or CRM record',
  example: { id: 7, lead_id: 42, field: 'email' },
});

leadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/list',
    operationId: 'listLeads',
    tags,
    summary: 'Leads of the organization, with the standard list parameters and every lead filter',
    description:
      'Leads of the organization (deleted leads never appear), with the standard list parameters (page or cursor, limit, order_by, order_in, search_value, start_date, end_date) and every lead filter. `search_value` matches first and last name, email, phone number, company and job title (substring, case-insensitive).',
    auth: 'bearer',
    request: { query: LeadListQuery },
    responses: { 200: listEnvelope(LeadSchema) },
  }),
  async (c) => list(c, await listLeads(c.var.tenant, c.req.valid('query'))),
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/add',
    operationId: 'addLead',
    tags,
    summary: 'Create a lead (409 duplicate_lead when a live lead has the email, unless duplicate or merge)',
    description:
      "Creates a lead. `status`, `lead_source` and `priority` (lookup values) and `tags` (lookup ids) must be active lookups of the organization and `assigned_to` a user of it (422 naming the field otherwise). A non-empty email or profile URL must not belong to another live lead of the organization: 409 `duplicate_lead`, with that lead's id in `error.details.lead_id` and the colliding field in `error.details.field`, unless `duplicate: 1` (the lead is created anyway, flagged as a duplicate of that lead: 201) or `merge: 1` (that lead is updated instead: non-empty given fields win, custom_fields merge key by key, tags add up; 200 with the merged lead), as on POST /api/v1/lead; both at once is a 422. Writes a `created` (or `merged`) feed entry; the assignee, if any, gets a notification.",
    auth: 'bearer',
    // One read, then one write statement (createLeadsBatch); the email's unique index settles races.
    // A merge reads again and writes in its own transaction.
    transaction: false,
    request: { body: jsonBody(AddLeadRequestBody) },
    responses: {
      201: envelope(LeadSchema, 'Lead created'),
      200: envelope(LeadSchema, 'merge: 1 and a duplicate existed: the existing lead, updated'),
      409: duplicateLeadConflict,
    },
  }),
  async (c) => {
    const { duplicate, merge, ...input } = c.req.valid('json');
    const outcome = await createLead(c.var.tenant, input, duplicateModeOf({ duplicate, merge }));
    return outcome.merged
      ? ok(c, outcome.lead, 'Lead merged into the existing lead')
      : created(c, outcome.lead, 'Lead created');
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/view/{id}',
    operationId: 'viewLead',
    tags,
    summary: 'One lead',
    description:
      'One lead with its lookup labels (`*_text`), tags and custom fields. A deleted lead, or one of another organization, is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(LeadSchema) },
  }),
  async (c) => ok(c, await readLead(c.var.tenant, c.req.valid('param').id)),
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/update/{id}',
    operationId: 'updateLead',
    tags,
    summary:
      'Update a lead: any creatable field; custom_fields and ai_information merge key by key (null removes a key)',
    description:
      'Changes a lead: only the fields sent change; null clears a clearable field. `custom_fields` and `ai_information` merge key by key into the stored objects (a key sent as null is removed); the keys of `ai_information` the service writes, `score` and `enrichment`, cannot be set or removed (422 naming `ai_information.score` or `ai_information.enrichment`). The same reference checks as on add apply (422), and a changed email must stay unique among live leads (409 `duplicate_lead`). Writes an `updated` feed entry with before/after of the changed fields; a new assignee is notified.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateLeadBody) },
    responses: { 200: envelope(LeadSchema, 'Lead updated'), 409: duplicateLeadConflict },
  }),
  async (c) => ok(c, await updateLead(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Lead updated'),
);

leadRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/lead/delete',
    operationId: 'deleteLeads',
    tags,
    summary: 'Soft-delete leads by id; unknown ids and other organizations’ ids change nothing',
    description:
      "Soft-deletes leads by id: they disappear from lists, views and search, and their email becomes free again. Unknown ids, already deleted ones and other organizations' ids change nothing; `data.deleted` counts the leads deleted by this request.",
    auth: 'bearer',
    // One statement that stands alone: no BEGIN/COMMIT around it.
    transaction: false,
    request: { body: jsonBody(DeleteLeadsBody) },
    responses: {
      200: envelope(
        z
          .object({ deleted: z.number().int().openapi({ description: 'How many leads this request deleted' }) })
          .openapi({ description: 'The outcome' }),
        'Leads deleted',
      ),
    },
  }),
  async (c) => {
    const deleted = await deleteLeads(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { deleted }, `${deleted} lead${deleted === 1 ? '' : 's'} deleted`);
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/deleted',
    operationId: 'listDeletedLeads',
    tags,
    summary: 'Deleted leads, to find one to restore',
    description:
      'The organization’s soft-deleted leads, with the standard list parameters and `deleted_at`. `order_by` is `id` (default), `deleted_at` or `created_at`; `search_value` matches the first and last name, email, company and job title (a substring, any case); `start_date`/`end_date` bound the creation date. A deleted lead keeps its deals, notes, calls, files and feed; `POST /api/lead/restore` brings it back. Deleted leads are kept: nothing purges them.',
    auth: 'bearer',
    request: { query: DeletedLeadListQuery },
    responses: { 200: listEnvelope(DeletedLeadSchema, 'Deleted leads') },
  }),
  async (c) => list(c, await listDeletedLeads(c.var.tenant, c.req.valid('query')), 'Deleted leads'),
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/restore',
    operationId: 'restoreLeads',
    tags,
    summary: 'Restore deleted leads by id (409 duplicate_lead when a live lead now holds one’s email)',
    description:
      "Brings soft-deleted leads back: they return to lists, views, search, counts and dashboards, with their deals, notes, calls, files and feed, and each gets a `restored` feed entry. Live, unknown and other organizations' ids change nothing; `data.restored` counts the leads this request restored. A lead's email, profile URL and CRM record became free when it was deleted: when a live lead (not flagged as a duplicate) now holds one of them, or two of the leads to restore share one, nothing is restored and the answer is 409 `duplicate_lead`, naming the first clash in `error.details` (`id` the lead to restore, `lead_id` the one holding the key, `field`) and every clash in `error.details.clashes`.",
    auth: 'bearer',
    // One statement that stands alone, as the delete.
    transaction: false,
    request: { body: jsonBody(RestoreLeadsBody) },
    responses: {
      200: restoredAnswer(LEAD_NOUNS),
      409: restoreConflict,
    },
  }),
  async (c) => {
    const restored = await restoreLeads(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { restored }, `${restored} lead${restored === 1 ? '' : 's'} restored`);
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/update-custom-fields',
    operationId: 'updateLeadCustomFields',
    tags,
    summary: 'Merge custom fields into a lead (null removes a key)',
    description:
      "Merges `custom_fields` into a lead's stored custom fields key by key: a key sent with a value replaces or adds it, a key sent as null removes it, keys not sent stay. Answers the whole lead.",
    auth: 'bearer',
    request: { body: jsonBody(UpdateCustomFieldsBody) },
    responses: { 200: envelope(LeadSchema, 'Custom fields updated') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    return ok(c, await updateLeadCustomFields(c.var.tenant, body.lead_id, body.custom_fields), 'Custom fields updated');
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/custom-field',
    operationId: 'setLeadCustomField',
    tags,
    summary: 'Set one custom field of a lead (no field_value removes it)',
    description:
      'Sets one custom field of a lead; `field_value` omitted or null removes that key. Answers the whole lead.',
    auth: 'bearer',
    request: { body: jsonBody(SetCustomFieldBody) },
    responses: { 200: envelope(LeadSchema, 'Custom field saved') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    return ok(
      c,
      await setLeadCustomField(c.var.tenant, body.lead_id, body.field_name, body.field_value),
      'Custom field saved',
    );
  },
);

const bulkSummary = 'ids, or select_all: true with filters (the list filters); answers how many leads changed';

function bulkMessage(updated: number): string {
  return `${updated} lead${updated === 1 ? '' : 's'} updated`;
}

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/status-change',
    operationId: 'changeLeadStatus',
    tags,
    summary: `Set the status of many leads: ${bulkSummary}`,
    description:
      'Sets the status of many leads at once: explicit `ids`, or `select_all: true` with optional `filters` (the list filters). `status` must be the value of an active status lookup (422). Leads already at that status do not count; each changed lead gets a feed entry.',
    auth: 'bearer',
    request: { body: jsonBody(StatusChangeBody) },
    responses: { 200: envelope(BulkResult, 'Status changed') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const updated = await changeLeadStatus(c.var.tenant, body, body.status);
    return ok(c, { updated }, bulkMessage(updated));
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/assign-user',
    operationId: 'assignLeads',
    tags,
    summary: `Assign many leads to a user (null unassigns); the assignee is notified: ${bulkSummary}`,
    description:
      'Assigns many leads to a user (`assigned_to`: null unassigns): explicit `ids`, or `select_all: true` with `filters`. The user must belong to the organization (422). Leads already assigned to that user do not count; each changed lead gets a feed entry, and the assignee one notification for all of them.',
    auth: 'bearer',
    request: { body: jsonBody(AssignUserBody) },
    responses: { 200: envelope(BulkResult, 'Leads assigned') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const updated = await assignLeads(c.var.tenant, body, body.assigned_to);
    return ok(c, { updated }, bulkMessage(updated));
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/assign-tags',
    operationId: 'addLeadTags',
    tags,
    summary: `Add tags to many leads: ${bulkSummary}`,
    description:
      'Adds tags to many leads, keeping the tags they have: explicit `ids`, or `select_all: true` with `filters`. Tags must be active tag lookups (422 naming `tags.N`). A lead counts when it gained at least one tag.',
    auth: 'bearer',
    request: { body: jsonBody(AssignTagsBody) },
    responses: { 200: envelope(BulkResult, 'Tags added') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const updated = await addTagsToLeads(c.var.tenant, body, body.tags);
    return ok(c, { updated }, bulkMessage(updated));
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/set-assign-tags',
    operationId: 'setLeadTags',
    tags,
    summary: `Replace the tags of many leads: ${bulkSummary}`,
    description:
      'Replaces the tags of many leads with exactly `tags` (an empty list removes all): explicit `ids`, or `select_all: true` with `filters`. A lead counts when its tags changed.',
    auth: 'bearer',
    request: { body: jsonBody(SetTagsBody) },
    responses: { 200: envelope(BulkResult, 'Tags replaced') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const updated = await setLeadTags(c.var.tenant, body, body.tags);
    return ok(c, { updated }, bulkMessage(updated));
  },
);
