import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { companies, contacts } from './companies';
import { leads } from './leads';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

export const MEETING_TOOLS = ['tool_a', 'tool_b', 'tool_c', 'custom', 'none'] as const;
export type MeetingTool = (typeof MEETING_TOOLS)[number];

/** 1 Scheduled, 2 Rescheduled, 3 Held, 4 Cancelled, 5 No Show (spec "Meeting"). */
export const MEETING_STATUSES = { 1: 'Scheduled', 2: 'Rescheduled', 3: 'Held', 4: 'Cancelled', 5: 'No Show' } as const;
/** Statuses that hold the rep's time: availability subtracts these meetings. */
export const LIVE_MEETING_STATUSES = [1, 2] as const;

export interface MeetingAttendee {
  email: string;
  name?: string | null;
}

/**
 * The latest summary of a meeting's transcript (POST /api/meeting/:id/generate-summary), kept on
 * the meeting as it is answered: what was written, by which provider, model and prompt version,
 * and from the transcript stored at `transcript_at` (a newer transcript makes it stale, not gone).
 */
export interface StoredMeetingSummary {
  detail: 'brief' | 'detailed';
  text: string;
  provider: string;
  model: string;
  prompt_version: string;
  generated_at: string;
  transcript_at: string;
}

/** Meetings of a user (the rep) with a lead, contact or company (spec "Meeting"). */
export const meetings = pgTable(
  'meetings',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: bigint({ mode: 'number' })
      .notNull()
      .references(() => users.id),
    leadId: bigint({ mode: 'number' }).references(() => leads.id, { onDelete: 'set null' }),
    contactId: bigint({ mode: 'number' }).references(() => contacts.id, { onDelete: 'set null' }),
    companyId: bigint({ mode: 'number' }).references(() => companies.id, { onDelete: 'set null' }),
    title: text().notNull(),
    description: text(),
    location: text(),
    startTime: timestamp({ withTimezone: true }).notNull(),
    endTime: timestamp({ withTimezone: true }).notNull(),
    timezone: text().notNull().default('UTC'),
    attendees: jsonb().$type<MeetingAttendee[]>().notNull().default([]),
    meetingUrl: text(),
    meetingTool: text().$type<MeetingTool>().notNull().default('none'),
    status: smallint().notNull().default(1),
    /** `app` (created through the API) or `booking` (confirmed on the public booking page). */
    source: text().notNull().default('app'),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** The latest generated summary of its transcript (null: none yet); each one replaces the last. */
    summary: jsonb().$type<StoredMeetingSummary>(),
    /**
     * The company of the meeting's lead while the lead is live (null otherwise), kept by triggers
     * (drizzle/0024_lead_company_sql.sql): an account's meetings are a few index ranges. Not on the wire.
     */
    leadCompanyId: bigint({ mode: 'number' }),
  },
  (table) => [
    // Availability reads one rep's meetings in a time window.
    index('meetings_user_start_idx').on(table.organizationId, table.userId, table.startTime),
    // Lists in id order (`tenantIdOrder`, core/list.ts; migration 0078).
    index('meetings_organization_id_idx').on(table.organizationId, table.id.desc().nullsLast()),
    // Dashboard analytics: meetings held in a period, meetings of the engagement window.
    index('meetings_organization_start_idx').on(table.organizationId, table.startTime),
    index('meetings_lead_idx').on(table.organizationId, table.leadId),
    // A target account's health counts the meetings of its company and of its contacts.
    index('meetings_company_idx').on(table.organizationId, table.companyId),
    index('meetings_contact_idx').on(table.organizationId, table.contactId),
    index('meetings_organization_lead_company_idx').on(table.organizationId, table.leadCompanyId, table.startTime),
    check('meetings_end_after_start', sql`${table.endTime} > ${table.startTime}`),
    tenantPolicy('meetings'),
  ],
);
