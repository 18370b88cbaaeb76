/**
 * Mail configurations (spec "Mail, inbox, calendar, meetings": list and add; update and delete
 * are beyond the spec). An account is checked with its provider before it is stored; credentials
 * are sealed and never returned. Another organization's configuration is a 404; another user's
 * may be changed only by an admin.
 */
import { created, list, ok } from '../../core/http';
import { DeletedId } from '../../core/schemas';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import {
  addConfiguration,
  deleteConfiguration,
  listConfigurations,
  mailConfigurationList,
  updateConfiguration,
} from './configurations';
import { providerUnavailable } from './responses';
import { AddMailConfigurationBody, MailConfigurationSchema, UpdateMailConfigurationBody } from './schemas';

export const mailConfigurationRoutes = createRouter();
const tags = ['Mail'];

mailConfigurationRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/mail-configurations/list',
    operationId: 'listMailConfigurations',
    tags,
    summary: 'The organization’s mail accounts (never their credentials)',
    description:
      'Mail accounts of the organization with the standard list parameters: `mailer` (gmail, outlook, smtp, local), `state_id` (1 active, 2 needs_reconnect, 3 disabled), `start_date`/`end_date` on when they were connected, `search_value` on the address. Disconnected accounts are not listed.',
    auth: 'bearer',
    request: { query: mailConfigurationList.query },
    responses: { 200: listEnvelope(MailConfigurationSchema) },
  }),
  async (c) => list(c, await listConfigurations(c.var.tenant, c.req.valid('query'))),
);

mailConfigurationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/mail-configurations/add',
    operationId: 'addMailConfiguration',
    tags,
    summary: 'Connect a mail account (checked with one provider call first)',
    description: `Connects a mail account owned by the caller. \`gmail\` and \`outlook\`: \`password\` is an OAuth access token (with \`refresh_token\` and \`expires_in\` it is renewed when it expires); it is checked with Gmail \`users/me/profile\` or Graph \`/me\`, whose address must be \`from_address\`. \`smtp\`: \`password\` is the relay's password, with \`smtp_host\`, \`smtp_port\` and optionally \`smtp_username\` (default \`from_address\`); it is checked with an SMTP login. \`local\`: an offline mailbox kept in the database (development and tests), no credential.

A refused credential is a 422 naming \`password\`; an account other than \`from_address\` a 422 naming \`from_address\`. Credentials are sealed (AES-GCM under the server's CREDENTIALS_KEY) and never returned or logged; a server without that key answers 503 \`credentials_key_missing\` for every mailer but local.`,
    auth: 'bearer',
    // One insert, after the provider's check: nothing to roll back together.
    transaction: false,
    request: { body: jsonBody(AddMailConfigurationBody) },
    responses: { 201: envelope(MailConfigurationSchema, 'Mail account connected'), 503: providerUnavailable },
  }),
  async (c) => created(c, await addConfiguration(c.var.tenant, c.env, c.req.valid('json')), 'Mail account connected'),
);

mailConfigurationRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/mail-configurations/update/{id}',
    operationId: 'updateMailConfiguration',
    tags,
    summary: 'Change or reconnect a mail account (beyond the spec)',
    description:
      'Changes `from_name`, disables or re-enables the account (`state`), or reconnects it: a new `password` (with `refresh_token`/`expires_in`, or new SMTP details) is checked with the provider as on add, then sealed, and the account is active again. An account in needs_reconnect (its credentials refused, or its mail service refusing to send as its address: `last_error`) can only be made active with a new password, which clears `last_error` and re-arms the owner’s one-time notice. Only its owner or an admin (403 `owner_or_admin_only`). Beyond the spec.',
    auth: 'bearer',
    request: { params: idParam(), body: jsonBody(UpdateMailConfigurationBody) },
    responses: { 200: envelope(MailConfigurationSchema, 'Mail account updated'), 503: providerUnavailable },
  }),
  async (c) =>
    ok(
      c,
      await updateConfiguration(c.var.tenant, c.env, c.req.valid('param').id, c.req.valid('json')),
      'Mail account updated',
    ),
);

mailConfigurationRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api/mail-configurations/delete/{id}',
    operationId: 'deleteMailConfiguration',
    tags,
    summary: 'Disconnect a mail account (beyond the spec)',
    description:
      'Disconnects the account: its credentials are erased at once, it leaves the list, and messages still queued from it fail with a reason. Messages it sent stay recorded. Only its owner or an admin (403 `owner_or_admin_only`). Beyond the spec.',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(DeletedId, 'Mail account disconnected') },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    await deleteConfiguration(c.var.tenant, id);
    return ok(c, { id }, 'Mail account disconnected');
  },
);
