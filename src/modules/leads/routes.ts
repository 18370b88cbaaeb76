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
import { addTagsToLeads, assignLeads, changeLeadStatus, setLeadTags } from './bulk';
import { LeadListQuery, listLeads } from './listing';
import { readLead } from './present';
import {
  AddLeadBody,
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
import { createLead } from './service';
import { deleteLeads, setLeadCustomField, updateLead, updateLeadCustomFields } from './update';

export const leadRoutes = createRouter();
const tags = ['Leads'];

/** 409 on add and update: the email belongs to another live lead, whose id the client needs. */
const duplicateLeadConflict = conflictResponse(
  'DuplicateLeadConflict',
  'Another live lead of the organization has this email (compared case-insensitively); error.details.lead_id is that lead',
  [
    {
      code: 'duplicate_lead',
      details: z.object({
        lead_id: z.number().int().openapi({ description: 'The existing lead holding the email', example: 42 }),
        field: z.literal('email').openapi({ description: 'The field that collides' }),
      }),
    },
  ],
);

leadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/list',
    operationId: 'listLeads',
    tags,
    summary: 'Leads of the organization, with the standard list parameters and every lead filter',
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
    summary: 'Create a lead (409 duplicate_lead when a live lead has the email)',
    auth: 'bearer',
    // One read, then one write statement (createLeadsBatch); the email's unique index settles races.
    transaction: false,
    request: { body: jsonBody(AddLeadBody) },
    responses: { 201: envelope(LeadSchema, 'Lead created'), 409: duplicateLeadConflict },
  }),
  async (c) => created(c, await createLead(c.var.tenant, c.req.valid('json')), 'Lead created'),
);

leadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/lead/view/{id}',
    operationId: 'viewLead',
    tags,
    summary: 'One lead',
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
    auth: 'bearer',
    request: { body: jsonBody(DeleteLeadsBody) },
    responses: { 200: envelope(z.object({ deleted: z.number().int() }), 'Leads deleted') },
  }),
  async (c) => {
    const deleted = await deleteLeads(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { deleted }, `${deleted} lead${deleted === 1 ? '' : 's'} deleted`);
  },
);

leadRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/lead/update-custom-fields',
    operationId: 'updateLeadCustomFields',
    tags,
    summary: 'Merge custom fields into a lead (null removes a key)',
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
