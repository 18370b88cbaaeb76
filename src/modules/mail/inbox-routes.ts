/**
 * The inbox of a mail configuration (spec "Mail, inbox, calendar, meetings"): list, view, send,
 * reply, each naming its `config_id` (another organization's is a 404, another user's a 403 unless
 * the caller is an admin); and the local mailbox's inbound route. Sends answer 202 `queued`: the
 * message is recorded in the request's transaction and the queue delivers it.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { accepted, created, list, ok } from '../../core/http';
import { createRouter, defineRoute, envelope, jsonBody } from '../../core/routes';
import type { ComposeContext } from './compose';
import { listInbox, replyToMessage, sendMessage, viewMessage } from './inbox';
import { LocalInboundBody, receiveLocal } from './local-inbound';
import { accountConflict, providerUnavailable } from './responses';
import {
  ConfigIdQuery,
  InboxMessageSchema,
  InboxPageSchema,
  InboxQuery,
  MessageParams,
  OutgoingSchema,
  ReplyMailBody,
  SendMailBody,
} from './schemas';

export const inboxRoutes = createRouter();
const tags = ['Mail'];

/** A send or a reply records its messages last: their insert carries the request's COMMIT. */
function composeContext(c: Context<AppEnv>): ComposeContext {
  return { ctx: c.var.tenant, env: c.env, origin: new URL(c.req.url).origin, lastStatement: true };
}

const SENDING = `The message is recorded in this request's transaction (status \`queued\`, tied to the lead its first recipient is) and delivered by the queue; its status then becomes \`sent\`, or \`failed\` with \`failure_reason\`. A redelivered queue message never sends it twice. Its HTML carries the open pixel and click-rewritten links, so opens and clicks become intent signals on the lead. Recipients on the organization's suppression list are left out and listed in \`suppressed\` (all of them: 422). When the account's own mail service refuses it as the sender (the relay refusing MAIL FROM or a send-as check, e.g. Exchange Online's 5.7.60 or 5.1.0 Sender denied, Postfix's "Sender address rejected"; Graph's 403 \`ErrorSendAsDenied\`), the message fails with that reason, no recipient is suppressed, the account is marked needs_reconnect with the reason in \`last_error\` and its owner notified once; later sends from it answer 409 \`connection_needs_reconnect\` naming the reason until it is reconnected.`;

inboxRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/inbox/list',
    operationId: 'listInbox',
    tags,
    summary: 'A page of a mail account’s folder, from its provider',
    description:
      'Lists `folder` (inbox by default) through the account’s provider: Gmail messages.list, Graph mailFolders/{folder}/messages, or the local mailbox. `search` is the provider’s own search; `unreadOnly`; `start_date`/`end_date` bound the day (UTC). Pages: pass `next_cursor` as `page_token`. A message that replies to mail sent from this account records one `reply_received` signal on its lead, however often it is listed. The provider down or throttling: 503 with Retry-After; the account’s credentials refused: 409 `connection_needs_reconnect` (and its owner is told once).',
    auth: 'bearer',
    request: { query: InboxQuery },
    responses: {
      200: InboxPageSchema,
      409: accountConflict,
      503: providerUnavailable,
    },
  }),
  async (c) => {
    const query = c.req.valid('query');
    const page = await listInbox(c.var.tenant, c.env, query);
    const whole = query.page_token === undefined && page.nextCursor === null;
    return list(c, {
      rows: page.messages,
      total: page.messages.length,
      totalIsEstimate: !whole,
      page: 1,
      limit: query.limit,
      nextCursor: page.nextCursor,
    });
  },
);

inboxRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/inbox/view/{messageId}',
    operationId: 'viewInboxMessage',
    tags,
    summary: 'One message of a mail account, whole',
    description:
      'Reads one message through the provider (Gmail messages.get in raw form, parsed; Graph messages/{id}; the local mailbox). A reply to mail sent from this account records its `reply_received` signal (once). The HTML comes without our open pixels and with our click links back to their targets, so reading a sent message, or a reply quoting one, counts no open or click on the lead. Failures as for the list.',
    auth: 'bearer',
    request: { params: MessageParams, query: ConfigIdQuery },
    responses: { 200: envelope(InboxMessageSchema), 409: accountConflict, 503: providerUnavailable },
  }),
  async (c) =>
    ok(c, await viewMessage(c.var.tenant, c.env, c.req.valid('query').config_id, c.req.valid('param').messageId)),
);

inboxRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/inbox/send',
    operationId: 'sendInboxMessage',
    tags,
    summary: 'Send a new message from a mail account (202 queued)',
    description: `${SENDING} A new message carries \`List-Unsubscribe\` with a signed one-click link and \`List-Unsubscribe-Post: List-Unsubscribe=One-Click\` (RFC 8058), signed for its recipient: each Bcc recipient therefore gets a copy of their own (its own link, its open and clicks on their own lead), recorded as a message of its own; the answer is the visible message (To and Cc) and lists them in \`bcc\`.`,
    auth: 'bearer',
    idempotency: true,
    request: { body: jsonBody(SendMailBody) },
    responses: { 202: envelope(OutgoingSchema, 'Message queued'), 409: accountConflict },
  }),
  async (c) => accepted(c, await sendMessage(composeContext(c), c.req.valid('json')), 'Message queued'),
);

inboxRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/inbox/reply/{messageId}',
    operationId: 'replyInboxMessage',
    tags,
    summary: 'Reply in a message’s thread (202 queued)',
    description: `Reads the message (a synchronous provider call), then records the reply to its sender (its Reply-To when it names one; for a message we sent, its recipients), threaded: \`In-Reply-To\` and \`References\`, Gmail's \`threadId\`, Graph's messages/{id}/reply. ${SENDING} A one-to-one reply carries no List-Unsubscribe.`,
    auth: 'bearer',
    idempotency: true,
    request: { params: MessageParams, body: jsonBody(ReplyMailBody) },
    responses: { 202: envelope(OutgoingSchema, 'Reply queued'), 409: accountConflict, 503: providerUnavailable },
  }),
  async (c) =>
    accepted(
      c,
      await replyToMessage(composeContext(c), c.req.valid('param').messageId, c.req.valid('json')),
      'Reply queued',
    ),
);

inboxRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/inbox/local/receive',
    operationId: 'receiveLocalMail',
    tags,
    summary: 'Drop a message into a local mailbox (offline development and tests)',
    description:
      'Puts a message in the inbox of a `local` mail account, as a provider would deliver it: `raw` (an RFC 5322 message, parsed with postal-mime) or `from`, `subject` and `body`, with `in_reply_to`/`references` to thread it. A reply to mail sent from the account records one `reply_received` signal on that mail’s lead. As on every inbox route, only the account’s owner or an admin may use it (403 `owner_or_admin_only`) and another organization’s account is a 404. Any other mailer: 422 naming config_id. Beyond the spec.',
    auth: 'bearer',
    request: { body: jsonBody(LocalInboundBody) },
    responses: { 201: envelope(InboxMessageSchema, 'Message received') },
  }),
  async (c) => created(c, await receiveLocal(c.var.tenant, c.req.valid('json')), 'Message received'),
);
