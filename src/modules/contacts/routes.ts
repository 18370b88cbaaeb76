/**
 * Contact routes (spec "Contacts and companies"): the record, its list, the set-based bulk
 * update and soft delete (by path id, or body ids / select_all + filters). HTTP only.
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
import { DeletedId } from '../../core/schemas';
import { DeletedCount } from '../companies';
import { bulkUpdateContacts } from './bulk';
import {
  AddContactBody,
  BulkUpdateContactsBody,
  BulkUpdateResult,
  ContactSchema,
  type ContactTarget,
  DeleteContactsBody,
  UpdateContactBody,
} from './schemas';
import {
  addContact,
  ContactListQuery,
  deleteContact,
  deleteContacts,
  listContacts,
  readContact,
  updateContact,
} from './service';
import {
  DeletedContactListQuery,
  DeletedContactSchema,
  listDeletedContacts,
  RestoreContactsBody,
  restoreContacts,
  CONTACT_NOUNS,
} from './trash';

export const contactRoutes = createRouter();
const tags = ['Contacts'];

const duplicateContact = conflictResponse(
  'DuplicateContactConflict',
  'Another live contact of the organization has this email (compared case-insensitively); error.details.contact_id is that contact',
  [
    {
      code: 'duplicate_contact',
      details: z.object({
        contact_id: z.number().int().openapi({ description: 'The existing contact holding the email', example: 5 }),
        field: z.literal('email').openapi({ description: 'The field that collides' }),
      }),
      example: { contact_id: 5, field: 'email' },
    },
  ],
);

const referenceRules =
  '`company_id` must be a live company of the organization (404 otherwise); `lead_id` a live lead of it and `status` an active status lookup (422 naming the field otherwise).';

contactRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/contact/list',
    operationId: 'listContacts',
    tags,
    summary: 'Contacts of the organization, with the standard list parameters and the contact filters',
    description:
      'Live contacts of the organization with the standard list parameters. Filters: `my=true` (contacts the caller created), `company_id` (comma-separated ids), `lead_score` (equal), `tags` (any of them), `start_date`/`end_date`, `search_value` (name, email, phone number, designation). The bulk update and bulk delete take the same filters.',
    auth: 'bearer',
    request: { query: ContactListQuery },
    responses: { 200: listEnvelope(ContactSchema) },
  }),
  async (c) => list(c, await listContacts(c.var.tenant, c.req.valid('query'))),
);

contactRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/contact/view/{id}',
    operationId: 'viewContact',
    tags,
    summary: 'One contact',
    description: 'One live contact of the organization. A deleted contact, or one of another organization, is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(ContactSchema) },
  }),
  async (c) => ok(c, await readContact(c.var.tenant, c.req.valid('param').id)),
);

contactRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/contact/add',
    operationId: 'addContact',
    tags,
    summary: 'Create a contact at a company of the organization (409 duplicate_contact when the email is taken)',
    description: `Creates a contact: \`name\` and \`company_id\` are required. ${referenceRules} A non-empty email must not belong to another live contact of the organization (409 \`duplicate_contact\`, with that contact's id in \`error.details.contact_id\`).`,
    auth: 'bearer',
    request: { body: jsonBody(AddContactBody) },
    responses: { 201: envelope(ContactSchema, 'Contact created'), 409: duplicateContact },
  }),
  async (c) => created(c, await addContact(c.var.tenant, c.req.valid('json')), 'Contact created'),
);

contactRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/contact/update/{id}',
    operationId: 'updateContact',
    tags,
    summary: 'Update a contact: any contact field',
    description: `Changes a contact: only the fields sent change; null clears a clearable one; \`tags\` replace the contact's tags. ${referenceRules} A changed email must stay unique among live contacts (409 \`duplicate_contact\`).`,
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateContactBody) },
    responses: { 200: envelope(ContactSchema, 'Contact updated'), 409: duplicateContact },
  }),
  async (c) =>
    ok(c, await updateContact(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Contact updated'),
);

contactRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/contact/bulk-update',
    operationId: 'bulkUpdateContacts',
    tags,
    summary: 'Set company_id, lead_score and/or tags on contact_ids, or on select_all with the list filters',
    description:
      'Sets `company_id` (a live company of the organization, 404 otherwise), `lead_score` and/or `tags` (replacing the tags) on explicit `contact_ids` (unknown and other organizations’ ids change nothing) or, with `select_all: true`, on every contact the optional `filters` select (the list filters). One SQL statement whatever the number of contacts. `data.updated` counts the contacts that changed.',
    auth: 'bearer',
    request: { body: jsonBody(BulkUpdateContactsBody) },
    responses: { 200: envelope(BulkUpdateResult, 'Contacts updated') },
  }),
  async (c) => {
    const body = c.req.valid('json') as ContactTarget & {
      company_id?: number;
      lead_score?: number | null;
      tags?: string[];
    };
    const updated = await bulkUpdateContacts(c.var.tenant, body, body);
    return ok(c, { updated }, `${updated} contact${updated === 1 ? '' : 's'} updated`);
  },
);

contactRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/contact/delete/{id}',
    operationId: 'deleteContact',
    tags,
    summary: 'Soft-delete one contact',
    description: 'Soft-deletes a contact: it leaves lists and views, and its email becomes free again.',
    auth: 'bearer',
    // One statement that stands alone: no BEGIN/COMMIT around it.
    transaction: false,
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Contact deleted') },
  }),
  async (c) => ok(c, await deleteContact(c.var.tenant, c.req.valid('param').id), 'Contact deleted'),
);

contactRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/contact/delete',
    operationId: 'deleteContacts',
    tags,
    summary: 'Soft-delete contacts by ids, or select_all with the list filters',
    description:
      'Soft-deletes contacts in one statement: explicit `ids` (unknown, deleted and other organizations’ ids change nothing), or `select_all: true` with optional `filters` (the list filters). `data.deleted` counts the contacts this request deleted.',
    auth: 'bearer',
    // One statement that stands alone: no BEGIN/COMMIT around it.
    transaction: false,
    request: { body: jsonBody(DeleteContactsBody) },
    responses: { 200: envelope(DeletedCount, 'Contacts deleted') },
  }),
  async (c) => {
    const deleted = await deleteContacts(c.var.tenant, c.req.valid('json') as ContactTarget);
    return ok(c, { deleted }, `${deleted} contact${deleted === 1 ? '' : 's'} deleted`);
  },
);

/** 409 on restore: a live contact holds the email of a contact to restore, or two of them share one. */
const restoreConflict = restoreConflictResponse(CONTACT_NOUNS, {
  code: 'duplicate_contact',
  holder: 'contact_id',
  fields: ['email'],
  keys: 'email (any case)',
  example: { id: 6, contact_id: 9, field: 'email' },
});

contactRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/contact/deleted',
    operationId: 'listDeletedContacts',
    tags,
    summary: 'Deleted contacts, to find one to restore',
    description:
      'The organization’s soft-deleted contacts, with the standard list parameters and `deleted_at`. `order_by` is `id` (default), `deleted_at` or `created_at`; `search_value` matches the name, email, phone number and designation (a substring, any case); `start_date`/`end_date` bound the creation date. `POST /api/contact/restore` brings one back. Deleted contacts are kept: nothing purges them.',
    auth: 'bearer',
    request: { query: DeletedContactListQuery },
    responses: { 200: listEnvelope(DeletedContactSchema, 'Deleted contacts') },
  }),
  async (c) => list(c, await listDeletedContacts(c.var.tenant, c.req.valid('query')), 'Deleted contacts'),
);

contactRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/contact/restore',
    operationId: 'restoreContacts',
    tags,
    summary: 'Restore deleted contacts by id (409 duplicate_contact when a live contact now holds one’s email)',
    description:
      "Brings soft-deleted contacts back to lists, views, counts and their calls, each with a `restored` feed entry. Live, unknown and other organizations' ids change nothing; `data.restored` counts the contacts this request restored. A contact's email became free when it was deleted: when a live contact now holds it, or two of the contacts to restore share one, nothing is restored and the answer is 409 `duplicate_contact`, naming the first clash in `error.details` (`id` the contact to restore, `contact_id` the one holding the email) and every clash in `error.details.clashes`.",
    auth: 'bearer',
    // One statement that stands alone, as the delete.
    transaction: false,
    request: { body: jsonBody(RestoreContactsBody) },
    responses: {
      200: restoredAnswer(CONTACT_NOUNS),
      409: restoreConflict,
    },
  }),
  async (c) => {
    const restored = await restoreContacts(c.var.tenant, c.req.valid('json').ids);
    return ok(c, { restored }, `${restored} contact${restored === 1 ? '' : 's'} restored`);
  },
);
