/**
 * The inbox of a mail configuration: list and view through its provider (synchronous calls:
 * failures answer 503 or 409, providers/calls.ts), send and reply recorded in the request's
 * transaction and delivered by the mail-send job (compose.ts), and the local mailbox's arrivals.
 * Every message seen that answers one of ours records a reply_received signal (replies.ts); a
 * bounce of ours puts the addresses it reports failed for good on the suppression list (bounces.ts).
 */
import type { z } from '@hono/zod-openapi';
import { base64url } from 'jose';
import { BadRequest, ValidationFailed } from '../../core/errors';
import { checkDateRange } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import type { TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { callProvider } from '../../providers/calls';
import { requestWriter, requireUsable, type ConnectionRow } from '../../providers/connections';
import type { InboxMessage, MailProvider } from '../../providers/mail/interface';
import { threadOf } from '../../providers/mail/local';
import { mailProviderFor } from '../../providers/mail/select';
import { type ComposeContext, type RecordedMessage, recordSends } from './compose';
import { ownConfiguration } from './configurations';
import { recordBounces } from './bounces';
import { recordReplies } from './replies';
import { withoutTracking } from './tracked-html';
import { trackingSecrets } from '../tracking';
import type { InboxQuery, ReplyMailBody, SendMailBody } from './schemas';

async function usableAccount(ctx: TenantContext, env: Bindings, configId: number) {
  const connection = requireUsable(await ownConfiguration(ctx, configId));
  const writer = requestWriter(env);
  const provider = await mailProviderFor({ env, db: ctx.db, writer }, connection);
  const call = <T>(what: string, work: (provider: MailProvider) => Promise<T>) =>
    callProvider(writer, connection, what, () => work(provider));
  return { connection, call };
}

/** next_cursor: the provider's page token, bound to the configuration it came from. */
function encodeCursor(configId: number, token: string): string {
  return base64url.encode(JSON.stringify({ c: configId, t: token }));
}

function decodeCursor(configId: number, cursor: string): string {
  try {
    const value = JSON.parse(new TextDecoder().decode(base64url.decode(cursor))) as { c?: unknown; t?: unknown };
    if (value.c === configId && typeof value.t === 'string') return value.t;
  } catch {
    // Falls through to the 400.
  }
  throw new BadRequest('page_token must be the next_cursor of a page of this config_id', 'page_token');
}

function present(connection: ConnectionRow, message: InboxMessage) {
  return { ...message, provider: connection.provider };
}

/** `search`, or the spec's standard `search_value` standing for it: two different searches are a 400. */
function inboxSearch(query: z.output<typeof InboxQuery>): string | undefined {
  const { search, search_value } = query;
  if (search && search_value && search !== search_value) {
    throw new BadRequest('search_value must be the same words as search when both are sent', 'search_value');
  }
  return search || search_value || undefined;
}

export async function listInbox(ctx: TenantContext, env: Bindings, query: z.output<typeof InboxQuery>) {
  checkDateRange(query);
  const search = inboxSearch(query);
  const { connection, call } = await usableAccount(ctx, env, query.config_id);
  const page = await call('message list', (provider) =>
    provider.list({
      folder: query.folder,
      search,
      unreadOnly: query.unreadOnly ?? false,
      after: query.start_date ? new Date(`${query.start_date}T00:00:00Z`) : undefined,
      before: query.end_date ? new Date(Date.parse(`${query.end_date}T00:00:00Z`) + 86_400_000) : undefined,
      limit: query.limit,
      pageToken: query.page_token ? decodeCursor(query.config_id, query.page_token) : undefined,
    }),
  );
  await recordReplies(ctx.db, connection, page.messages, ctx.effects);
  await recordBounces(ctx.db, connection, page.messages);
  return {
    messages: page.messages.map((message) => present(connection, message)),
    nextCursor: page.nextPageToken ? encodeCursor(query.config_id, page.nextPageToken) : null,
  };
}

export async function viewMessage(ctx: TenantContext, env: Bindings, configId: number, messageId: string) {
  const { connection, call } = await usableAccount(ctx, env, configId);
  const message = await call('message', (provider) => provider.view(messageId));
  await recordReplies(ctx.db, connection, [message], ctx.effects);
  await recordBounces(ctx.db, connection, [message]);
  // Read by the organization's own user: our pixel and click links would count as the lead's.
  const html = message.body_html ? await withoutTracking(message.body_html, trackingSecrets(env)) : message.body_html;
  return present(connection, { ...message, body_html: html });
}

export function presentOutgoing(message: RecordedMessage) {
  return {
    id: message.id,
    status: message.status,
    kind: message.kind,
    config_id: message.connectionId,
    message_id: message.rfcMessageId,
    to: message.toAddresses,
    cc: message.ccAddresses,
    bcc: message.bccAddresses,
    subject: message.subject,
    lead_id: message.leadId,
    contact_id: message.contactId,
    suppressed: message.suppressed,
    failure_reason: message.failureReason,
    created_at: isoTimestamp(message.createdAt) as string,
  };
}

function onlyRecorded(result: Awaited<ReturnType<typeof recordSends>>, field: string) {
  const [message] = result.messages;
  if (!message) {
    throw ValidationFailed.field(field, `every recipient is on the suppression list: ${result.suppressed.join(', ')}`);
  }
  return presentOutgoing(message);
}

export async function sendMessage(compose: ComposeContext, input: z.output<typeof SendMailBody>) {
  const connection = requireUsable(await ownConfiguration(compose.ctx, input.config_id));
  const result = await recordSends(compose, connection, [
    {
      kind: 'one_to_one',
      to: input.to,
      cc: input.cc ?? [],
      bcc: input.bcc ?? [],
      subject: input.subject,
      body: input.body,
      bodyFormat: input.body_format,
    },
  ]);
  // The Bcc recipients' own copies (compose.ts) are recorded as messages of their own; the answer
  // is the visible message, naming every Bcc recipient it went to.
  return { ...onlyRecorded(result, 'to'), bcc: result.messages.flatMap((message) => message.bccAddresses) };
}

function replySubject(subject: string): string {
  return /^re:/i.test(subject.trim()) ? subject : `Re: ${subject}`.slice(0, 255);
}

export async function replyToMessage(
  compose: ComposeContext,
  messageId: string,
  input: z.output<typeof ReplyMailBody>,
) {
  const { connection, call } = await usableAccount(compose.ctx, compose.env, input.config_id);
  const original = await call('message', (provider) => provider.view(messageId));
  const fromUs = original.from?.address.toLowerCase() === connection.identity.toLowerCase();
  // To the sender's Reply-To when they named one (a form, a help desk, a personal address), as
  // every mail client does; else to the sender.
  const to = fromUs
    ? original.to
    : original.reply_to.length > 0
      ? original.reply_to
      : original.from
        ? [original.from.address]
        : [];
  if (to.length === 0) throw ValidationFailed.field('messageId', 'the message has no sender to reply to');
  const references = [...original.references, ...(original.message_id ? [original.message_id] : [])];
  const result = await recordSends(compose, connection, [
    {
      kind: 'reply',
      to,
      cc: [],
      bcc: [],
      subject: replySubject(original.subject),
      body: input.body,
      bodyFormat: input.body_format,
      inReplyTo: original.message_id,
      references,
      providerThreadId:
        connection.provider === 'gmail'
          ? original.thread_id
          : connection.provider === 'local'
            ? threadOf({ messageId: original.message_id ?? '', inReplyTo: null, references })
            : null,
      replyToProviderMessageId: connection.provider === 'outlook' ? original.id : null,
    },
  ]);
  return onlyRecorded(result, 'messageId');
}
