/**
 * Lookup routes (spec "Lookups and saved views"): per-organization statuses, sources,
 * priorities, tags and any other module's value lists.
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
import { AddLookupBody, LookupSchema, UpdateLookupBody } from './schemas';
import { addLookup, listLookups, LookupListQuery, updateLookup } from './service';

export const lookupRoutes = createRouter();
const tags = ['Lookups'];

/** 409 on add and update: the name or the value is already used by another lookup of the same type. */
const lookupConflict = conflictResponse(
  'LookupConflict',
  'Another lookup of the same type has this name (error.code duplicate_lookup, details.lookup_id names it) or this value (error.code duplicate_value)',
  [
    {
      code: 'duplicate_lookup',
      details: z.object({
        lookup_id: z.number().int().openapi({ description: 'The lookup holding the name', example: 7 }),
        field: z.literal('name').openapi({ description: 'The field that collides' }),
      }),
      example: { lookup_id: 7, field: 'name' },
    },
    {
      code: 'duplicate_value',
      details: z.object({ field: z.literal('value').openapi({ description: 'The field that collides' }) }),
      example: { field: 'value' },
    },
  ],
);

lookupRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/custom-lookups/list',
    operationId: 'listLookups',
    tags,
    summary: 'Lookup values of the organization (filter by module_name, type, is_active, parent_id)',
    description:
      "The organization's lookup values (lead statuses, sources, priorities, tags and other pick lists), filtered by `module_name`, `type`, `is_active` and `parent_id`. `module_name=status` (likewise `source`, `priority`) is the spec's spelling of `module_name=lead&type=status`, and lists the same lookups; a `type` naming another type along it is a 400. A lead's `status`, `lead_source` and `priority` hold a lookup's `value`; its `tags` hold lookup ids.",
    auth: 'bearer',
    request: { query: LookupListQuery },
    responses: { 200: listEnvelope(LookupSchema) },
  }),
  async (c) => list(c, await listLookups(c.var.tenant, c.req.valid('query'))),
);

lookupRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/custom-lookups/add',
    operationId: 'addLookup',
    tags,
    summary: 'Add a lookup value (admins and managers); status/source/priority get the next value when none is given',
    description:
      'Adds a lookup value. For status, lead_source and priority a missing `value` gets the next number of that type. Names and values are unique per type (409). `module_name` `status` (likewise `source`, `priority`) is the spec’s spelling of `module_name` `lead` with that `type`: `type` may be omitted, and the lookup is stored and answered as module `lead`; a `type` naming another type is a 422.',
    auth: 'bearer',
    roles: ['admin', 'manager'],
    request: { body: jsonBody(AddLookupBody) },
    responses: { 201: envelope(LookupSchema, 'Lookup created'), 409: lookupConflict },
  }),
  async (c) => created(c, await addLookup(c.var.tenant, c.req.valid('json')), 'Lookup created'),
);

lookupRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/custom-lookups/update/{id}',
    operationId: 'updateLookup',
    tags,
    summary: 'Change a lookup’s name, value, color or active flag (admins and managers)',
    description:
      "Changes a lookup's name, value, color or active flag; only the fields sent change. Changing the value of a lead status, source or priority moves the leads holding the old value (and, for a status, the contacts holding it), in one statement, so no record loses its label. A deactivated lookup stays readable on the records that use it but cannot be set anew.",
    auth: 'bearer',
    roles: ['admin', 'manager'],
    request: { params: idParam(), body: jsonBody(UpdateLookupBody) },
    responses: { 200: envelope(LookupSchema, 'Lookup updated'), 409: lookupConflict },
  }),
  async (c) => ok(c, await updateLookup(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 'Lookup updated'),
);
