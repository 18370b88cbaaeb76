/**
 * Managing hosted web forms (bearer): add, list, update, delete. The public page and its
 * submissions are in page-routes.ts (their own router, mountable at the edge).
 */

import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { DeletedId } from '../../core/schemas';
import { AddWebFormBody, UpdateWebFormBody, WebFormSchema } from './schemas';
import { createWebForm, deleteWebForm, listWebForms, updateWebForm, WebFormListQuery } from './service';

export const webFormRoutes = createRouter();
const tags = ['Web forms'];

/** The origin the form's public URL is given on: the one the caller reached the API at. */
const originOf = (c: Context<AppEnv>) => new URL(c.req.url).origin;

webFormRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/web-forms/add',
    operationId: 'addWebForm',
    tags,
    summary: 'Create a hosted lead-capture form; answers its unguessable form_link and public URL',
    description:
      'Creates a hosted form: the lead fields it asks for (and which are required), where the visitor goes after submitting (redirect_url, else a thank-you page with thank_you_message), and the tags and assignee every lead it creates gets. The form gets a random 24-character `form_link`; its page is served at `/api/v1/web-form/{form_link}` (`url`). `assigned_to` must be a user of the organization (422).',
    auth: 'bearer',
    // The assignee's check, then one insert: no transaction.
    transaction: false,
    request: { body: jsonBody(AddWebFormBody) },
    responses: { 201: envelope(WebFormSchema, 'Web form created') },
  }),
  async (c) => created(c, await createWebForm(c.var.tenant, c.req.valid('json'), originOf(c)), 'Web form created'),
);

webFormRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/web-forms/list',
    operationId: 'listWebForms',
    tags,
    summary: 'The organization’s web forms, with the standard list parameters',
    description:
      'The organization’s hosted forms with the standard list parameters (page or cursor, limit, search_value on the name, order_by id, name or created_at, order_in, start_date, end_date).',
    auth: 'bearer',
    request: { query: WebFormListQuery },
    responses: { 200: listEnvelope(WebFormSchema) },
  }),
  async (c) => list(c, await listWebForms(c.var.tenant, c.req.valid('query'), originOf(c))),
);

webFormRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/web-forms/update/{id}',
    operationId: 'updateWebForm',
    tags,
    summary: 'Change a web form’s settings (its form_link stays)',
    description:
      'Changes the settings sent; omitted ones stay, null clears redirect_url, thank_you_message or assigned_to. The form_link never changes. Pages already open keep working. A form of another organization is a 404.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateWebFormBody) },
    responses: { 200: envelope(WebFormSchema, 'Web form updated') },
  }),
  async (c) =>
    ok(
      c,
      await updateWebForm(c.var.tenant, c.req.valid('param').id, c.req.valid('json'), originOf(c)),
      'Web form updated',
    ),
);

webFormRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/web-forms/delete/{id}',
    operationId: 'deleteWebForm',
    tags,
    summary: 'Delete a web form (its page answers 404 from then on)',
    description:
      'Deletes the form: its page and submissions answer 404 (at once on this isolate, within 60 seconds everywhere: the page caches the form that long). Leads it created stay. A form of another organization is a 404.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Web form deleted') },
  }),
  async (c) => ok(c, await deleteWebForm(c.var.tenant, c.req.valid('param').id), 'Web form deleted'),
);
