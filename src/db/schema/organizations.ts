import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Local wall-clock intervals, "HH:MM" (end may be "24:00"). */
export type WorkingHours = Partial<Record<Weekday, { start: string; end: string }[]>>;

const NINE_TO_FIVE = [{ start: '09:00', end: '17:00' }];
export const DEFAULT_WORKING_HOURS: WorkingHours = {
  monday: NINE_TO_FIVE,
  tuesday: NINE_TO_FIVE,
  wednesday: NINE_TO_FIVE,
  thursday: NINE_TO_FIVE,
  friday: NINE_TO_FIVE,
};

export const organizations = pgTable(
  'organizations',
  {
    id: id(),
    name: text().notNull(),
    stateId: smallint().notNull().default(1),
    /**
     * Domains the organization's click links may redirect to directly (lower-case host names; a
     * subdomain of one counts). A click link to any other host goes through the edge's interstitial
     * page (modules/tracking/link-domains.ts); decided when the link is minted, signed into it.
     */
    linkDomains: text().array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [tenantPolicy('organizations', 'id')],
);

/**
 * The proof that an organization controls one of its link domains: a DNS TXT record at
 * `_lead-verify.<domain>` holding `lead-verification=<token>` (modules/tracking/link-domain-verification.ts).
 * One row per listed domain, kept with the list; only a verified one lets click links redirect
 * directly. The token is per organization and domain, so another organization listing the same
 * domain cannot ride on this one's record; it is published in DNS, so it is no secret.
 */
export const linkDomainVerifications = pgTable(
  'link_domain_verifications',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    domain: text().notNull(),
    token: text().notNull(),
    verifiedAt: timestamp({ withTimezone: true }),
    checkedAt: timestamp({ withTimezone: true }),
    lastError: text(),
    /** A verified domain's record first found missing since it was last found (the daily re-check, link-domain-recheck.ts). */
    failingSince: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.domain] }),
    // The re-check's pick across organizations: verified domains, least recently checked first.
    index('link_domain_verifications_recheck_idx').on(table.checkedAt).where(sql`${table.verifiedAt} is not null`),
    tenantPolicy('link_domain_verifications'),
  ],
);

export const roles = pgTable(
  'roles',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    stateId: smallint().notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('roles_organization_name_key').on(table.organizationId, sql`lower(${table.name})`),
    tenantPolicy('roles'),
  ],
);

export const users = pgTable(
  'users',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    roleId: bigint({ mode: 'number' })
      .notNull()
      .references(() => roles.id),
    firstName: text().notNull(),
    lastName: text(),
    email: text().notNull(),
    phoneNo: text(),
    passwordHash: text().notNull(),
    /** 1 = active, 0 = inactive (cannot log in). */
    stateId: smallint().notNull().default(1),
    /**
     * Bearer tokens carry the generation they were issued in (`gen`); a password change, a role
     * change or a deactivation moves it on, which ends every token issued before.
     */
    sessionGeneration: integer().notNull().default(0),
    language: text(),
    /** IANA zone the booking page reads working hours in; null (users created before it) reads as UTC. */
    timezone: text().default('UTC'),
    /** Job title, shown on the public booking page. */
    jobTitle: text(),
    /**
     * Public booking (modules/booking): the page's address, unique across ALL organizations since
     * strangers reach it without one; chosen from the name at creation (`free_booking_slug`).
     */
    bookingSlug: text(),
    bookingEnabled: boolean().notNull().default(true),
    /** Weekday → working intervals in `timezone`, e.g. { monday: [{ start: '09:00', end: '17:00' }] }. */
    workingHours: jsonb().$type<WorkingHours>().notNull().default(DEFAULT_WORKING_HOURS),
    meetingDuration: integer().notNull().default(30),
    bufferMinutes: integer().notNull().default(0),
    minNoticeMinutes: integer().notNull().default(60),
    /** meeting_tool of meetings booked through the page. */
    bookingMeetingTool: text().notNull().default('none'),
    /**
     * Bumped in the same transaction as every write to the user's meetings or booking settings:
     * the edge cache keys booking reads by it, and the bump's row lock serialises confirmations.
     */
    bookingVersion: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // Login finds a user by email alone, so emails are unique across organizations.
    uniqueIndex('users_email_key').on(sql`lower(${table.email})`).where(sql`${table.deletedAt} is null`),
    // Slugs are stored lower-case (schemas enforce it), so a plain unique index decides.
    uniqueIndex('users_booking_slug_key').on(table.bookingSlug),
    index('users_organization_id_idx').on(table.organizationId, table.id),
    tenantPolicy('users'),
  ],
);
