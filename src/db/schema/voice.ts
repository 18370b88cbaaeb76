/**
 * Voice and calling: the organization's phone numbers and who may use them, its calls (the spec's
 * Call resource), the calling wallet's ledger and the voice job (number purchases, dialling,
 * copying recordings), run through the shared job lifecycle (src/jobs).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { companies, contacts } from './companies';
import { connections } from './connections';
import { storedFiles } from './files';
import { jobRun, openJobsIndex } from './job-lease';
import { leads } from './leads';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

export const NUMBER_TYPES = ['local', 'mobile', 'toll_free'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];
/**
 * pending: bought and paid, the provider purchase queued; active: the provider has it; failed:
 * refunded; suspended: a month's rental the wallet could not cover (not used for calls until the
 * monthly run charges it after a top-up).
 */
export const NUMBER_STATUSES = ['pending', 'active', 'failed', 'suspended'] as const;
export type NumberStatus = (typeof NUMBER_STATUSES)[number];

export const phoneNumbers = pgTable(
  'phone_numbers',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    /** E.164. */
    phoneNumber: text().notNull(),
    friendlyName: text(),
    numberType: text().$type<NumberType>().notNull(),
    /** `local` (the simulator) or `twilio`. */
    provider: text().notNull(),
    connectionId: bigint({ mode: 'number' }).references(() => connections.id, { onDelete: 'set null' }),
    /** The provider's id (Twilio's IncomingPhoneNumber SID, PN…), once bought. */
    providerSid: text(),
    status: text().$type<NumberStatus>().notNull().default('pending'),
    failureReason: text(),
    /** What the wallet was debited for the first month, in cents. */
    monthlyPriceCents: integer().notNull(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('phone_numbers_organization_idx').on(table.organizationId, table.id),
    // A number the organization has (or is buying) once; a failed purchase may be tried again.
    uniqueIndex('phone_numbers_live_key')
      .on(table.organizationId, table.phoneNumber)
      .where(sql`${table.status} <> 'failed'`),
    check('phone_numbers_status_check', sql`${table.status} in ('pending', 'active', 'failed', 'suspended')`),
    tenantPolicy('phone_numbers'),
  ],
);

/** Which users may call from which number. */
export const phoneNumberUsers = pgTable(
  'phone_number_users',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    phoneNumberId: bigint({ mode: 'number' })
      .notNull()
      .references(() => phoneNumbers.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.phoneNumberId, table.userId] }),
    tenantPolicy('phone_number_users'),
  ],
);

/** The provider's call statuses (Twilio's), declared as the Call resource's enum. */
export const CALL_STATUSES = [
  'queued',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'failed',
  'no-answer',
  'canceled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const ENDED_CALL_STATUSES = ['completed', 'busy', 'failed', 'no-answer', 'canceled'] as const;

export interface TranscriptTurn {
  speaker: 'agent' | 'customer' | 'user';
  text: string;
  /** Seconds from the start of the call. */
  at_sec: number;
}

export interface AgentSettings {
  system_prompt: string;
  first_message: string | null;
  voice_id: string | null;
  language: string | null;
}

export const calls = pgTable(
  'calls',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    leadId: bigint({ mode: 'number' }).references(() => leads.id, { onDelete: 'set null' }),
    contactId: bigint({ mode: 'number' }).references(() => contacts.id, { onDelete: 'set null' }),
    companyId: bigint({ mode: 'number' }).references(() => companies.id, { onDelete: 'set null' }),
    direction: text().$type<'inbound' | 'outbound'>().notNull(),
    /** `agent` (an AI voice agent dialled for the user) or `browser` (the user's own call). */
    kind: text().$type<'agent' | 'browser'>().notNull(),
    fromNumber: text().notNull(),
    toNumber: text().notNull(),
    status: text().$type<CallStatus>().notNull().default('queued'),
    /** `local`, `twilio` or `vapi`. */
    provider: text().notNull(),
    connectionId: bigint({ mode: 'number' }).references(() => connections.id, { onDelete: 'set null' }),
    providerCallId: text(),
    agent: jsonb().$type<AgentSettings>(),
    /** Not dialled before this instant: the provider's calls-per-second pace. */
    dialAfter: timestamp({ withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp({ withTimezone: true }),
    answeredAt: timestamp({ withTimezone: true }),
    endedAt: timestamp({ withTimezone: true }),
    durationSec: integer(),
    transcript: jsonb().$type<TranscriptTurn[]>(),
    /** Cents charged to the wallet for the call, once it ended. */
    priceCents: integer(),
    /** Cents held from the wallet while the call may still run (the maximum duration's price). */
    reservedCents: integer().notNull().default(0),
    recordingFileId: bigint({ mode: 'number' }).references(() => storedFiles.id, { onDelete: 'set null' }),
    failureReason: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('calls_recording_file_idx').on(table.recordingFileId).where(sql`${table.recordingFileId} is not null`),
    // Lists in id order (`tenantIdOrder`, core/list.ts; migration 0078).
    index('calls_organization_idx').on(table.organizationId, table.id.desc().nullsLast()),
    index('calls_lead_idx').on(table.organizationId, table.leadId),
    index('calls_contact_idx').on(table.organizationId, table.contactId),
    index('calls_company_idx').on(table.organizationId, table.companyId),
    // The dialling pace reads the organization's latest turns.
    index('calls_dial_after_idx').on(table.organizationId, table.dialAfter),
    uniqueIndex('calls_provider_call_key')
      .on(table.organizationId, table.provider, table.providerCallId)
      .where(sql`${table.providerCallId} is not null`),
    check(
      'calls_status_check',
      sql`${table.status} in ('queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled')`,
    ),
    tenantPolicy('calls'),
  ],
);

/**
 * The calling wallet: one row per movement, in cents of USD, signed (+ credits, − debits); the
 * balance is their sum and nothing else. Kinds: top_up (+), number_rental (−), call_hold (− the
 * maximum duration's price when a call is placed), call_release (+ the hold, when it ended),
 * call_charge (− the real duration's price), refund (+ a failed number purchase), number_renewal
 * (− a number's rental of a later calendar month, by the monthly run). A call or a number has
 * each kind at most once (unique index), a renewal once per number and billing month, so a
 * replayed webhook, a redelivered job or a second run cannot charge twice.
 */
export const LEDGER_KINDS = [
  'top_up',
  'number_rental',
  'call_hold',
  'call_release',
  'call_charge',
  'refund',
  'number_renewal',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const voiceLedger = pgTable(
  'voice_ledger',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text().$type<LedgerKind>().notNull(),
    amountCents: bigint({ mode: 'number' }).notNull(),
    callId: bigint({ mode: 'number' }).references(() => calls.id, { onDelete: 'set null' }),
    phoneNumberId: bigint({ mode: 'number' }).references(() => phoneNumbers.id, { onDelete: 'set null' }),
    /** number_renewal: the calendar month (its first day) the rental pays for. */
    billingMonth: date({ mode: 'string' }),
    note: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [
    index('voice_ledger_organization_idx').on(table.organizationId, table.id),
    uniqueIndex('voice_ledger_call_kind_key')
      .on(table.organizationId, table.callId, table.kind)
      .where(sql`${table.callId} is not null`),
    uniqueIndex('voice_ledger_number_kind_key')
      .on(table.organizationId, table.phoneNumberId, table.kind)
      .where(sql`${table.phoneNumberId} is not null and ${table.kind} <> 'number_renewal'`),
    // One renewal per number and month: a second run (or a redelivered cron) charges nothing.
    uniqueIndex('voice_ledger_renewal_key')
      .on(table.organizationId, table.phoneNumberId, table.billingMonth)
      .where(sql`${table.kind} = 'number_renewal'`),
    tenantPolicy('voice_ledger'),
  ],
);

/** What a voice job does: buy a number, dial a call, copy a call's recording into R2. */
export const VOICE_JOB_ACTIONS = ['purchase_number', 'place_call', 'copy_recording'] as const;
export type VoiceJobAction = (typeof VOICE_JOB_ACTIONS)[number];

export const voiceJobs = pgTable(
  'voice_jobs',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    action: text().$type<VoiceJobAction>().notNull(),
    phoneNumberId: bigint({ mode: 'number' }).references(() => phoneNumbers.id, { onDelete: 'cascade' }),
    callId: bigint({ mode: 'number' }).references(() => calls.id, { onDelete: 'cascade' }),
    /** copy_recording: where the provider keeps the recording. */
    sourceUrl: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    ...jobRun(),
  },
  (table) => [
    index('voice_jobs_organization_idx').on(table.organizationId, table.id),
    openJobsIndex('voice_jobs_open_lease_idx', table),
    tenantPolicy('voice_jobs'),
  ],
);
