/**
 * The AI email draft's one field table: the component, the selection and the presenter derive
 * from it (core/field-table.ts). `status` reads the sent message's outcome once a draft is queued.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields, storedAs } from '../../core/field-table';
import { isoTimestamp, text, timestamp } from '../../core/schemas';
import { aiEmailDrafts, mailMessages } from '../../db/schema';
import { AI_PROVIDERS, type AiProviderName } from '../../providers/ai/interface';

export const DRAFT_STATUSES = ['draft', 'approved', 'queued', 'sent', 'failed', 'rejected'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

const iso = (value: Date) => isoTimestamp(value) as string;
const isoOrNull = (value: Date | null) => isoTimestamp(value);

// Single-table selects render columns unqualified: the correlated subqueries name the table in text.
const message = (column: 'status' | 'failure_reason') =>
  sql`(select ${sql.raw(`m.${column}`)} from ${mailMessages} m where m.id = "ai_email_drafts"."mail_message_id")`;

export const draftFields = defineFields(
  aiEmailDrafts,
  {
    id: {
      column: 'id',
      description: 'The draft’s id (the path id of approve, send, edit, reject, regenerate)',
      read: z.number().int(),
    },
    lead_id: { column: 'leadId', description: 'The lead it is written to', read: z.number().int() },
    status: {
      select: sql<string>`case when ${aiEmailDrafts.status} = 'queued' then coalesce(case ${message('status')} when 'sent' then 'sent' when 'failed' then 'failed' when 'suppressed' then 'failed' when 'bounced' then 'failed' end, 'queued') else ${aiEmailDrafts.status} end`,
      description:
        'draft (written, awaiting review) → approved → queued (handed to the mail account) → sent or failed (also when its recipient went on the suppression list before it was sent, or when it bounced: a delivery report said it failed for good; failure_reason says so); or rejected. Only an approved draft can be sent',
      read: z.enum(DRAFT_STATUSES),
      present: storedAs<DraftStatus>(),
    },
    persona: {
      column: 'persona',
      description: 'The voice it was written in, when one was asked for',
      read: z.string().nullable(),
    },
    subject: {
      column: 'subject',
      description: 'The subject, 1 to 255 characters',
      read: z.string(),
      update: text(1, 255).optional(),
    },
    body: {
      column: 'body',
      description: 'The body, plain text, 1 to 20 000 characters',
      read: z.string(),
      update: text(1, 20_000).optional(),
    },
    provider: {
      column: 'provider',
      description: 'Who wrote its text: local (templates), openai or workers-ai (`edited` text keeps the writer)',
      read: z.enum(AI_PROVIDERS),
      present: storedAs<AiProviderName>(),
    },
    model: { column: 'model', description: 'The model that wrote its text', read: z.string() },
    prompt_version: {
      column: 'promptVersion',
      description: 'The prompt and its version, `email-draft@v1`',
      read: z.string(),
    },
    job_id: {
      column: 'jobId',
      description: 'The bulk-generate job that wrote it, if any',
      read: z.number().int().nullable(),
    },
    approved_by: { column: 'approvedBy', description: 'The user who approved it', read: z.number().int().nullable() },
    approved_at: {
      column: 'approvedAt',
      description: 'When it was approved',
      read: timestamp().nullable(),
      present: isoOrNull,
    },
    rejected_by: { column: 'rejectedBy', description: 'The user who rejected it', read: z.number().int().nullable() },
    rejected_at: {
      column: 'rejectedAt',
      description: 'When it was rejected',
      read: timestamp().nullable(),
      present: isoOrNull,
    },
    mail_message_id: {
      column: 'mailMessageId',
      description: 'The message it was sent as (mail module), once queued',
      read: z.number().int().nullable(),
    },
    failure_reason: {
      select: sql<string | null>`${message('failure_reason')}`,
      description: 'Why sending failed, when it did',
      read: z.string().nullable(),
    },
    created_by: { column: 'createdBy', description: 'The user who asked for it', read: z.number().int().nullable() },
    created_at: { column: 'createdAt', description: 'When it was written', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When it last changed', read: timestamp(), present: iso },
  },
  // Scope; the paying reservation is the ledger's business; the stored status is read through `status`.
  { internal: ['organizationId', 'reservationId', 'status'] },
);
