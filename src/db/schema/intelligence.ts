/**
 * AI email drafts (modules/intelligence) and the bulk job that writes them. A draft goes
 * draft → approved → queued (recorded as a mail message, sent by the mail-send job) → sent or
 * failed (read from that message), or rejected; nothing is sent without an approval. Each draft
 * keeps who approved it and when, and the provider, model and prompt version that wrote it.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { creditLedger } from './credits';
import { jobLease, openJobsIndex } from './job-lease';
import { leads } from './leads';
import { mailMessages } from './mail';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

export const DRAFT_STATES = ['draft', 'approved', 'queued', 'rejected'] as const;
export type DraftState = (typeof DRAFT_STATES)[number];

/** A bulk-generate request: one draft per lead, each item charged on its own. */
export const aiEmailJobs = pgTable(
  'ai_email_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadIds: bigint({ mode: 'number' }).array().notNull(),
    persona: text(),
    status: text().notNull().default('queued'),
    totalItems: integer().notNull().default(0),
    processedItems: integer().notNull().default(0),
    draftsCreated: integer().notNull().default(0),
    /** `{ lead_id, error }` per item that wrote no draft (deleted lead, no credits, provider refusal). */
    itemErrors: jsonb().$type<{ lead_id: number; error: string }[]>().notNull().default([]),
    error: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    startedAt: timestamp({ withTimezone: true }),
    finishedAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    ...jobLease(),
  },
  (table) => [
    index('ai_email_jobs_organization_idx').on(table.organizationId, table.id),
    openJobsIndex('ai_email_jobs_open_lease_idx', table),
    tenantPolicy('ai_email_jobs'),
  ],
);

export const aiEmailDrafts = pgTable(
  'ai_email_drafts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    status: text().$type<DraftState>().notNull().default('draft'),
    persona: text(),
    subject: text().notNull(),
    body: text().notNull(),
    provider: text().notNull(),
    model: text().notNull(),
    promptVersion: text().notNull(),
    /** The bulk job that wrote it; one draft per lead per job (a redelivered job writes none twice). */
    jobId: bigint({ mode: 'number' }).references(() => aiEmailJobs.id, { onDelete: 'set null' }),
    /** The credits reservation that paid for its latest text. */
    reservationId: bigint({ mode: 'number' }).references(() => creditLedger.id, { onDelete: 'set null' }),
    approvedBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    approvedAt: timestamp({ withTimezone: true }),
    rejectedBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    rejectedAt: timestamp({ withTimezone: true }),
    /** Set when it was sent: the message the mail module delivers (its status is the draft's sent/failed). */
    mailMessageId: bigint({ mode: 'number' }).references(() => mailMessages.id, { onDelete: 'set null' }),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('ai_email_drafts_lead_idx').on(table.organizationId, table.leadId, table.id),
    uniqueIndex('ai_email_drafts_job_lead_key').on(table.jobId, table.leadId).where(sql`${table.jobId} is not null`),
    check('ai_email_drafts_status_check', sql`${table.status} in ('draft', 'approved', 'queued', 'rejected')`),
    tenantPolicy('ai_email_drafts'),
  ],
);
