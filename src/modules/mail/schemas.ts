/**
 * Shapes of mail configurations (an organization's mail accounts) and of the inbox: requests with
 * every string bounded, responses without any secret.
 */
import { z } from '@hono/zod-openapi';
import { listEnvelope } from '../../core/routes';
import { booleanFlag, dateInput, email, positiveId, text, timestamp, tokenLifetimeSeconds } from '../../core/schemas';
import { CONNECTION_STATES, MAIL_KINDS, MAIL_STATUSES } from '../../db/schema';
import { MAIL_FOLDERS, MAILERS } from '../../providers/mail/interface';

/** state_id of a mail configuration: 1 active, 2 needs_reconnect, 3 disabled. */
export const STATE_IDS = { active: 1, needs_reconnect: 2, disabled: 3 } as const;

const secretText = (description: string) =>
  z.string().min(1, 'is required').max(8_192, 'must be at most 8192 characters').openapi({ description });

const mailerValue = z.enum(MAILERS, { error: `must be one of ${MAILERS.join(', ')}` });

const smtpFields = {
  smtp_host: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(253, 'must be at most 253 characters')
    .regex(/^[A-Za-z0-9.-]+$/, 'must be a host name')
    .optional()
    .openapi({ description: 'smtp only: the relay’s host', example: 'smtp.example.com' }),
  smtp_port: z
    .number({ error: 'must be a port number' })
    .int('must be a port number')
    .min(1, 'must be a port number')
    .max(65_535, 'must be a port number')
    .optional()
    .openapi({ description: 'smtp only: the relay’s port (465: TLS; 587 or 25: STARTTLS)', example: 587 }),
  smtp_username: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(254, 'must be at most 254 characters')
    .optional()
    .openapi({ description: 'smtp only: the login, when it is not from_address' }),
};

const oauthFields = {
  refresh_token: secretText(
    'gmail/outlook: the OAuth refresh token, so the access token can be renewed (never returned)',
  ).optional(),
  expires_in: tokenLifetimeSeconds
    .optional()
    .openapi({ description: 'gmail/outlook: seconds until the access token expires (default 3600)' }),
};

export const AddMailConfigurationBody = z
  .object({
    mailer: mailerValue.openapi({ description: 'gmail, outlook, smtp or local (offline, for development)' }),
    from_address: email.openapi({ description: 'The address mail is sent from' }),
    from_name: text(1, 100).openapi({ description: 'The sender’s display name', example: 'Ada Lovelace' }),
    password: secretText(
      'gmail/outlook: an OAuth access token; smtp: the relay’s password; local: ignored. Sealed at rest, never returned',
    ).optional(),
    ...oauthFields,
    ...smtpFields,
  })
  .openapi('AddMailConfigurationRequest', {
    description: 'A mail account to connect; checked with one call to the provider before it is stored',
    example: { mailer: 'local', from_address: 'ada@example.com', from_name: 'Ada Lovelace' },
  });

export const UpdateMailConfigurationBody = z
  .object({
    from_name: text(1, 100).optional().openapi({ description: 'The sender’s display name' }),
    password: secretText('A new credential (reconnects the account; checked with the provider first)').optional(),
    ...oauthFields,
    ...smtpFields,
    state: z
      .enum(['active', 'disabled'], { error: 'must be active or disabled' })
      .optional()
      .openapi({ description: 'disabled: stop using the account; active: use it again (not a reconnect)' }),
  })
  .openapi('UpdateMailConfigurationRequest', {
    description: 'The fields to change; a new password reconnects an account that needs it',
    example: { from_name: 'Ada L.' },
  });

export const MailConfigurationSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The configuration id (config_id of the inbox routes)' }),
    mailer: mailerValue.openapi({ description: 'gmail, outlook, smtp or local' }),
    provider: z.string().openapi({ description: 'Who produced it: the mailer; `local` for the offline mailbox' }),
    from_address: z.string().openapi({ description: 'The address mail is sent from' }),
    from_name: z.string().nullable().openapi({ description: 'The sender’s display name' }),
    state: z.enum(CONNECTION_STATES).openapi({
      description:
        'active, needs_reconnect (its credentials were refused, or its mail service refused to send as `from_address`: `last_error` says which; reconnect it with a new `password`) or disabled',
    }),
    state_id: z.number().int().openapi({ description: '1 active, 2 needs_reconnect, 3 disabled' }),
    last_error: z.string().nullable().openapi({
      description:
        'Why it last failed, in plain words; for an account in needs_reconnect, why it was marked (e.g. `smtp refused to send as rep@example.com (550 5.7.60): …`). Cleared by a reconnect',
    }),
    last_success_at: timestamp('When the provider last accepted a call').nullable(),
    owner_id: z.number().int().nullable().openapi({ description: 'The user who connected it' }),
    smtp_host: z.string().nullable().openapi({ description: 'smtp only' }),
    smtp_port: z.number().int().nullable().openapi({ description: 'smtp only' }),
    has_refresh_token: z.boolean().openapi({ description: 'Whether a refresh token is stored (never the token)' }),
    created_at: timestamp().openapi({ description: 'When the account was connected' }),
    updated_at: timestamp().openapi({ description: 'When the account was last changed' }),
  })
  .openapi('MailConfiguration', {
    description: 'A mail account of the organization; its credentials are never returned',
    example: {
      id: 1,
      mailer: 'local',
      provider: 'local',
      from_address: 'ada@example.com',
      from_name: 'Ada Lovelace',
      state: 'active',
      state_id: 1,
      last_error: null,
      last_success_at: null,
      owner_id: 1,
      smtp_host: null,
      smtp_port: null,
      has_refresh_token: false,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const mailConfigurationFilters = {
  mailer: mailerValue.optional().openapi({ description: 'Only configurations of this mailer' }),
  state_id: z.coerce
    .number({ error: 'must be 1, 2 or 3' })
    .int('must be 1, 2 or 3')
    .min(1, 'must be 1, 2 or 3')
    .max(3, 'must be 1, 2 or 3')
    .optional()
    .openapi({ type: 'integer', description: '1 active, 2 needs_reconnect, 3 disabled' }),
};

export const configId = positiveId.openapi({
  type: 'integer',
  description: 'The mail configuration (GET /api/mail-configurations/list); another organization’s is a 404',
  example: 1,
});

const recipients = (description: string) =>
  z
    .union([email, z.array(email).min(1, 'must name at least one address').max(50, 'at most 50 addresses')])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .openapi({ description, example: 'grace@example.com' });

export const SendMailBody = z
  .object({
    config_id: configId,
    to: recipients('An address, or up to 50'),
    cc: recipients('Copies: an address, or up to 50').optional(),
    bcc: recipients('Blind copies: an address, or up to 50; each gets a copy of their own').optional(),
    subject: text(1, 255).openapi({ description: 'The subject', example: 'Following up' }),
    body: text(1, 50_000).openapi({ description: 'The body (plain text unless body_format is html)' }),
    body_format: z
      .enum(['text', 'html'], { error: 'must be text or html' })
      .default('text')
      .openapi({ description: 'text (default): links are found and made clickable; html: sent as given' }),
  })
  .openapi('SendMailRequest', {
    description: 'A new message from a mail account',
    example: { config_id: 1, to: 'grace@example.com', subject: 'Following up', body: 'Hello Grace, …' },
  });

export const ReplyMailBody = z
  .object({
    config_id: configId,
    body: text(1, 50_000).openapi({ description: 'The reply (plain text unless body_format is html)' }),
    body_format: z
      .enum(['text', 'html'], { error: 'must be text or html' })
      .default('text')
      .openapi({ description: 'text (default) or html' }),
  })
  .openapi('ReplyMailRequest', {
    description: 'A reply in the message’s thread',
    example: { config_id: 1, body: 'Thanks!' },
  });

export const InboxQuery = z.object({
  config_id: configId,
  folder: z
    .enum(MAIL_FOLDERS, { error: `must be one of ${MAIL_FOLDERS.join(', ')}` })
    .default('inbox')
    .openapi({ description: 'inbox (default), sent, drafts, spam or trash' }),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional().openapi({
    description: 'Words to find (the provider’s own search)',
  }),
  unreadOnly: booleanFlag.openapi({ description: 'Only unread messages' }),
  start_date: dateInput('On or after this day (UTC)').optional(),
  end_date: dateInput('On or before this day (UTC)').optional(),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(50, 'must be at most 50')
    .default(20)
    .openapi({ type: 'integer', description: 'Messages per page, 1 to 50 (default 20)' }),
  page_token: z.string().max(4_096, 'must be at most 4096 characters').optional().openapi({
    description: 'The next_cursor of the previous page',
  }),
  // The spec's standard list parameters, which every list accepts. The providers page by token and
  // answer newest first, so each takes only the values that mean what the provider does.
  page: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1: the inbox pages by page_token (pass next_cursor)')
    .max(1, 'must be 1: the inbox pages by page_token (pass next_cursor)')
    .optional()
    .openapi({ type: 'integer', description: 'Accepted as 1 only: pages after the first are reached with page_token' }),
  search_value: z.string().trim().max(200, 'must be at most 200 characters').optional().openapi({
    description: 'The same as `search` (the provider’s own search); send one of the two, or both with the same words',
  }),
  order_by: z
    .enum(['id', 'date'], { error: 'must be id or date: the provider answers newest first' })
    .optional()
    .openapi({ description: 'id or date, both newest first: the providers sort by date only' }),
  order_in: z
    .string()
    .max(4)
    .transform((value) => value.toUpperCase())
    .pipe(z.literal('DESC', { error: 'must be DESC: the provider answers newest first' }))
    .optional()
    .openapi({
      type: 'string',
      enum: ['DESC', 'desc'],
      description: 'DESC only (any letter case): the providers answer newest first',
    }),
});

export const ConfigIdQuery = z.object({ config_id: configId });

/** Local ids are row ids (digits); Gmail's and Graph's are longer tokens of letters, digits and -_=+. */
const MessageIdParam = z
  .string()
  .max(512, 'must be at most 512 characters')
  .refine(
    (value) => (/^\d+$/.test(value) ? value.length <= 18 : /^[A-Za-z0-9_=+-]{8,}$/.test(value)),
    'must be a message id from the inbox list',
  )
  .openapi({ param: { name: 'messageId', in: 'path' }, description: 'A message id from GET /api/inbox/list' });
export const MessageParams = z.object({ messageId: MessageIdParam });

const address = z
  .object({
    address: z.string().openapi({ description: 'The mail address' }),
    name: z.string().nullable().openapi({ description: 'The display name, if any' }),
  })
  .openapi({ description: 'A sender' });

export const InboxMessageSchema = z
  .object({
    id: z.string().openapi({ description: 'The provider’s message id' }),
    provider: z.string().openapi({ description: 'gmail, outlook or local: who produced the message' }),
    thread_id: z
      .string()
      .nullable()
      .openapi({ description: 'The provider’s thread (Gmail threadId, Graph conversationId)' }),
    message_id: z.string().nullable().openapi({ description: 'The Message-ID header' }),
    in_reply_to: z.string().nullable().openapi({ description: 'The In-Reply-To header: the Message-ID it answers' }),
    references: z.array(z.string()).openapi({ description: 'The References header: the thread’s Message-IDs' }),
    from: address.nullable().openapi({ description: 'The sender' }),
    to: z.array(z.string()).openapi({ description: 'The To addresses' }),
    cc: z.array(z.string()).openapi({ description: 'The Cc addresses' }),
    reply_to: z
      .array(z.string())
      .openapi({ description: 'The Reply-To addresses: where POST /api/inbox/reply sends, when there are any' }),
    subject: z.string().openapi({ description: 'The subject' }),
    snippet: z.string().openapi({ description: 'The start of the text, as the provider gives it' }),
    body_text: z.string().nullable().optional().openapi({ description: 'View only' }),
    body_html: z.string().nullable().optional().openapi({ description: 'View only' }),
    date: z.string().nullable().openapi({ description: 'When it was sent or received (ISO 8601)' }),
    is_read: z.boolean().openapi({ description: 'Whether the message has been read' }),
    automated: z.enum(['bounce', 'auto_reply']).nullable().openapi({
      description:
        'bounce: a delivery report; auto_reply: an automatic reply (out of office, Auto-Submitted); null: written by a person. Neither counts as a reply (reply_received)',
    }),
    bounce: z
      .object({
        hard_bounced: z.array(z.string()).openapi({
          description:
            'The recipients it reports failed for good (a hard bounce: no such mailbox or domain, RFC 3463 5.1.x or 5.2.1; read from the delivery report, else X-Failed-Recipients). Those a message of ours from this account was sent to go on the suppression list. A delay, a full mailbox or a policy refusal (5.7.x) is not hard',
        }),
        original_message_id: z
          .string()
          .nullable()
          .openapi({ description: 'The Message-ID of the message it returns, from its returned headers (view only)' }),
      })
      .optional()
      .openapi({ description: 'Bounces only: what the delivery report says' }),
    status: z.string().optional().openapi({
      description:
        'Local mailbox only: our delivery status of a sent message (queued, sending, sent, failed, suppressed, bounced: a delivery report says it failed for good for a recipient), received for an arrival',
    }),
  })
  .openapi('InboxMessage', {
    description: 'A message of a mail account',
    example: {
      id: '18c2f0a1b2c3d4e5',
      provider: 'local',
      thread_id: '18c2f0a1b2c3d4e5',
      message_id: '<reply-1@example.com>',
      in_reply_to: '<lm-1@example.com>',
      references: ['<lm-1@example.com>'],
      from: { address: 'grace@example.com', name: 'Grace Hopper' },
      to: ['ada@example.com'],
      cc: [],
      reply_to: [],
      subject: 'Re: Our call',
      snippet: 'Thanks, Tuesday works.',
      date: '2026-03-09T10:00:00.000Z',
      is_read: false,
      automated: null,
    },
  });

/** The example of OutgoingMail, also part of the answers that embed it (a sent AI draft). */
export const OUTGOING_EXAMPLE = {
  id: 41,
  status: 'queued',
  kind: 'one_to_one',
  config_id: 3,
  message_id: '<lm-41@example.com>',
  to: ['grace@example.com'],
  cc: [],
  bcc: [],
  subject: 'Our call',
  lead_id: 7,
  contact_id: null,
  suppressed: [],
  failure_reason: null,
  created_at: '2026-03-09T09:00:00.000Z',
};

/** Providers count no total: a page says what it holds, and `next_cursor` leads on. */
export const InboxPageSchema = listEnvelope(
  InboxMessageSchema,
  'A page of messages. Providers count no total: `total` is the messages of this page, `total_is_estimate` is true unless this page is the whole folder, `page` is 1, and `next_cursor` (pass it as `page_token`) is null on the last page.',
);

export const OutgoingSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The recorded message' }),
    status: z.enum(MAIL_STATUSES).openapi({
      description:
        'queued: the queue sends it; then sent, or failed with failure_reason, or suppressed (every recipient went on the suppression list, by an unsubscribe or a hard bounce, after it was queued: nothing was sent). A sent message becomes bounced when a delivery report answering it arrives in the account’s inbox (seen by a list or a view) saying delivery failed for good (no such mailbox or domain) for a recipient: failure_reason names the recipients reported, who are on the suppression list; the others may have received it. received: a message that arrived in a local mailbox',
    }),
    kind: z.enum(MAIL_KINDS).openapi({ description: 'What sent it: one_to_one, reply or bulk' }),
    config_id: z.number().int().openapi({ description: 'The mail account it is sent from' }),
    message_id: z.string().openapi({ description: 'Its Message-ID header' }),
    to: z.array(z.string()).openapi({ description: 'The To addresses' }),
    cc: z.array(z.string()).openapi({ description: 'The Cc addresses' }),
    bcc: z.array(z.string()).openapi({ description: 'The Bcc addresses' }),
    subject: z.string().openapi({ description: 'The subject' }),
    lead_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The lead its first recipient is (opens and clicks count there)' }),
    contact_id: z.number().int().nullable().openapi({ description: 'The contact its first recipient is, if any' }),
    suppressed: z.array(z.string()).openapi({ description: 'Recipients left out: they are on the suppression list' }),
    failure_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why it failed, for a person to read (failed, suppressed and bounced only)' }),
    created_at: timestamp().openapi({ description: 'When it was recorded' }),
  })
  .openapi('OutgoingMail', { description: 'A message recorded for sending', example: OUTGOING_EXAMPLE });
