/**
 * Mail arriving in a local mailbox: the offline stand-in for what Gmail or Graph would deliver,
 * so a reply to a sent message can be dropped into its thread under `npm start` and in tests.
 * Given `raw` (an RFC 5322 message), it is parsed with postal-mime; else the fields make one.
 * A reply to one of our messages records its reply_received signal at once.
 */
import { z } from '@hono/zod-openapi';
import { ValidationFailed } from '../../core/errors';
import { email, text } from '../../core/schemas';
import { mailMessages } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { localBounceHeaders, presentLocalMessage, threadOf } from '../../providers/mail/local';
import { parseMimeWithHeaders } from '../../providers/mail/mime';
import { ownConfiguration } from './configurations';
import { recordBounces } from './bounces';
import { recordReplies } from './replies';
import { configId } from './schemas';

const messageIdHeader = z
  .string()
  .trim()
  .max(998, 'must be at most 998 characters')
  .regex(/^<[^<>\s]+>$/, 'must be a Message-ID in angle brackets (<id@host>)');

export const LocalInboundBody = z
  .object({
    config_id: configId,
    raw: z.string().max(1_000_000, 'must be at most 1000000 characters').optional().openapi({
      description: 'A whole RFC 5322 message; when given, the other fields are read from it',
    }),
    from: email.optional().openapi({ description: 'The sender (without raw: required)' }),
    from_name: text(1, 100).optional().openapi({ description: 'The sender’s display name' }),
    subject: text(1, 255).optional().openapi({ description: 'Without raw: required' }),
    body: text(1, 50_000).optional().openapi({ description: 'Plain text (without raw: required)' }),
    in_reply_to: messageIdHeader.optional().openapi({ description: 'The Message-ID it answers' }),
    references: z
      .array(messageIdHeader)
      .max(100, 'at most 100 references')
      .optional()
      .openapi({ description: 'The References header: the thread’s Message-IDs (at most 100)' }),
  })
  .openapi('LocalInboundRequest', {
    description: 'A message arriving in a local mailbox',
    example: {
      config_id: 1,
      from: 'grace@example.com',
      subject: 'Re: Following up',
      body: 'Sounds good!',
      in_reply_to: '<0b6c…@example.com>',
    },
  });

export async function receiveLocal(ctx: TenantContext, input: z.output<typeof LocalInboundBody>) {
  // The same rules as every inbox route: another organization's account is a 404, another user's
  // a 403 unless the caller is an admin (a message dropped into it would thread into their mail).
  const connection = await ownConfiguration(ctx, input.config_id);
  if (connection.provider !== 'local') {
    throw ValidationFailed.field('config_id', 'only a local mailbox receives mail this way');
  }
  let fields: {
    from: string;
    fromName: string | null;
    subject: string;
    body: string;
    html: string | null;
    messageId: string;
    inReplyTo: string | null;
    references: string[];
    to: string[];
    headers: string[];
  };
  if (input.raw) {
    const { message: parsed, automatedHeaders } = await parseMimeWithHeaders(input.raw, {
      id: '',
      thread_id: null,
      is_read: false,
    });
    if (!parsed.from) throw ValidationFailed.field('raw', 'the message has no From address');
    fields = {
      from: parsed.from.address,
      fromName: parsed.from.name,
      subject: parsed.subject.slice(0, 255),
      body: parsed.body_text ?? '',
      html: parsed.body_html ?? null,
      messageId: parsed.message_id ?? `<${crypto.randomUUID()}@local.invalid>`,
      inReplyTo: parsed.in_reply_to,
      references: parsed.references,
      to: parsed.to.length > 0 ? parsed.to : [connection.identity],
      headers: [
        ...automatedHeaders,
        ...(parsed.reply_to.length > 0 ? [`Reply-To: ${parsed.reply_to.join(', ')}`] : []),
        // What the delivery report said, read now: the stored row keeps no body parts.
        ...(parsed.bounce ? localBounceHeaders(parsed.bounce) : []),
      ],
    };
  } else {
    const missing = (['from', 'subject', 'body'] as const).filter((field) => !input[field]);
    if (missing.length > 0) {
      throw new ValidationFailed(missing.map((field) => ({ field, message: 'is required without raw' })));
    }
    fields = {
      from: input.from as string,
      fromName: input.from_name ?? null,
      subject: input.subject as string,
      body: input.body as string,
      html: null,
      messageId: `<${crypto.randomUUID()}@local.invalid>`,
      inReplyTo: input.in_reply_to ?? null,
      references: input.references ?? (input.in_reply_to ? [input.in_reply_to] : []),
      to: [connection.identity],
      headers: [],
    };
  }
  const [row] = await ctx.db
    .insert(mailMessages)
    .values({
      organizationId: ctx.orgId,
      connectionId: connection.id,
      direction: 'inbound',
      status: 'received',
      kind: 'one_to_one',
      rfcMessageId: fields.messageId,
      inReplyTo: fields.inReplyTo,
      references: fields.references,
      providerThreadId: threadOf({
        messageId: fields.messageId,
        inReplyTo: fields.inReplyTo,
        references: fields.references,
      }),
      fromAddress: fields.from,
      fromName: fields.fromName,
      toAddresses: fields.to,
      headers: fields.headers,
      subject: fields.subject,
      bodyText: fields.body,
      bodyHtml: fields.html,
      sentAt: new Date(),
      createdBy: ctx.userId,
    })
    .returning();
  const message = presentLocalMessage(row, true);
  await recordReplies(ctx.db, connection, [message], ctx.effects);
  await recordBounces(ctx.db, connection, [message]);
  return { ...message, provider: connection.provider };
}
