import { sql, type SQL } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  pgView,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { companies } from './companies';
import { lookups } from './lookups';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/**
 * A profile URL as dedupe compares it: without scheme (http and https are the same profile),
 * host lower-cased, without query string or fragment, without trailing slashes. Path case is
 * kept (some networks' paths are case-sensitive). Immutable SQL, so it can feed a generated
 * column, and the writers compare incoming URLs by this same expression (leads/dedupe.ts).
 */
export function profileUrlKeySql(url: SQL): SQL<string | null> {
  const bare = sql`regexp_replace(regexp_replace(trim(${url}), '[?#].*$', ''), '^[A-Za-z][A-Za-z0-9+.-]*://', '')`;
  return sql`nullif(regexp_replace(lower(split_part(${bare}, '/', 1)) || substr(${bare}, length(split_part(${bare}, '/', 1)) + 1), '/+$', ''), '')`;
}

export const leads = pgTable(
  'leads',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    firstName: text().notNull(),
    lastName: text().notNull(),
    email: text(),
    phoneNumber: text(),
    company: text(),
    companyId: bigint({ mode: 'number' }).references(() => companies.id),
    jobTitle: text(),
    industry: text(),
    website: text(),
    address: text(),
    city: text(),
    state: text(),
    country: text(),
    pinCode: text(),
    status: integer().notNull(),
    priority: smallint(),
    leadSource: smallint(),
    score: integer().notNull().default(0),
    /**
     * The two halves of the score, 0 to 100, written by the scoring job (modules/lead-scoring):
     * fit (firmographics against the organization's ideal profile, no decay) and engagement
     * (intent signals with their decay). Null until the lead is first scored.
     */
    fitScore: smallint(),
    engagementScore: smallint(),
    estimatedValue: numeric({ precision: 14, scale: 2, mode: 'number' }),
    assignedTo: bigint({ mode: 'number' }).references(() => users.id),
    profileUrl: text(),
    customFields: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    notes: text(),
    aiInformation: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    profileImageFileId: bigint({ mode: 'number' }),
    lastActivityAt: timestamp({ withTimezone: true }),
    /** Set for leads created by an import job, so a redelivered batch inserts nothing twice. */
    importJobId: bigint({ mode: 'number' }),
    importRow: integer(),
    /** Provenance of a lead imported from a third-party CRM: the CRM (`hubspot`, `local`) and its record id there, so a re-run updates it. */
    externalSource: text(),
    externalId: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * The lead's open and won deals, kept by a trigger on deals (drizzle/0023_lead_rollups_sql.sql):
     * a converted lead (won) and an account's deals without reading the deals.
     */
    openDeals: integer().notNull().default(0),
    wonDeals: integer().notNull().default(0),
    deletedAt: timestamp({ withTimezone: true }),
    /**
     * Set on a lead let in on purpose as a duplicate (POST /api/v1/lead with `duplicate: 1`): the
     * live lead it repeats. Such leads stay out of the uniqueness indexes below.
     */
    duplicateOf: bigint({ mode: 'number' }),
    /** The profile URL as dedupe compares it (see profileUrlKeySql); maintained by the database. */
    profileUrlKey: text().generatedAlwaysAs(profileUrlKeySql(sql.raw('"profile_url"'))),
  },
  (table) => [
    // A stored file's delete checks no lead still shows it (files/storage.ts); few leads have one.
    index('leads_profile_image_file_idx')
      .on(table.profileImageFileId)
      .where(sql`${table.profileImageFileId} is not null`),
    index('leads_organization_created_idx').on(table.organizationId, table.createdAt),
    // Dashboard analytics (period counts by status/source, conversion, lead aging's days around its
    // bucket bounds): index-only over live leads.
    index('leads_organization_live_created_idx')
      .on(table.organizationId, table.createdAt, table.status, table.leadSource, table.id)
      .where(sql`${table.deletedAt} is null`),
    // Lead aging by last activity: the live leads of the days around its bucket bounds, index-only.
    index('leads_organization_live_activity_idx')
      .on(table.organizationId, table.lastActivityAt, table.status, table.createdAt)
      .where(sql`${table.deletedAt} is null`),
    // Dashboard analytics (top accounts): a lead's company by its id without reading the row. Also
    // the organization's leads in id order (a cursor page): (organization_id, id) alone would be a
    // second index of the same order, one more write on every insert (dropped in migration 0072).
    index('leads_organization_id_company_idx').on(table.organizationId, table.id, table.companyId),
    // Lists in id order (the default): `order by id desc nulls last`, an order the primary key cannot
    // give (backwards it gives `desc nulls first`), so the planner cannot walk leads_pkey past
    // other organizations' ids with the organization as a filter; this index gives it forwards and
    // its reverse (`asc nulls first`) backwards. See core/list.ts `tenantIdOrder` (migration 0077).
    index('leads_organization_live_id_order_idx')
      .on(table.organizationId, table.id.desc().nullsLast())
      .where(sql`${table.deletedAt} is null`),
    // The organization's deleted leads: the call list's total leaves out their calls
    // (voice/calls.ts hiddenCalls), at a cost that follows them, not the live leads (migration 0095).
    index('leads_organization_deleted_idx')
      .on(table.organizationId, table.id)
      .where(sql`${table.deletedAt} is not null`),
    index('leads_organization_status_idx').on(table.organizationId, table.status),
    index('leads_organization_assigned_idx').on(table.organizationId, table.assignedTo),
    // A company's leads (renames reach all of them; account health reads the live ones' ids and
    // deal counts, company stats their ids): the live ones are an index-only range.
    index('leads_organization_company_live_idx').on(
      table.organizationId,
      table.companyId,
      table.deletedAt,
      table.id,
      table.openDeals,
      table.wonDeals,
    ),
    // One live lead per email (any case) in an organization: the race-free dedupe of every insert.
    uniqueIndex('leads_organization_live_email_key')
      .on(table.organizationId, sql`lower(${table.email})`)
      .where(sql`${table.deletedAt} is null and ${table.duplicateOf} is null`),
    // One live lead per normalised profile URL, the same way.
    uniqueIndex('leads_organization_live_profile_url_key')
      .on(table.organizationId, table.profileUrlKey)
      .where(sql`${table.deletedAt} is null and ${table.duplicateOf} is null`),
    // The live leads let in as duplicates, by email and by profile URL: a create's dedupe check
    // reads them beside the originals (dedupe.ts, liveLeadsHoldingSql) through these, not by
    // reading every lead of the organization. Few leads are flagged, so they are small.
    index('leads_organization_live_duplicate_email_idx')
      .on(table.organizationId, sql`lower(${table.email})`)
      .where(sql`${table.deletedAt} is null and ${table.duplicateOf} is not null`),
    index('leads_organization_live_duplicate_profile_url_idx')
      .on(table.organizationId, table.profileUrlKey)
      .where(sql`${table.deletedAt} is null and ${table.duplicateOf} is not null`),
    index('leads_organization_profile_url_idx').on(table.organizationId, table.profileUrl),
    uniqueIndex('leads_import_row_key').on(table.importJobId, table.importRow),
    // One live lead per CRM record: a re-run of a CRM import finds it and updates it.
    uniqueIndex('leads_organization_external_key')
      .on(table.organizationId, table.externalSource, table.externalId)
      .where(sql`${table.deletedAt} is null and ${table.externalId} is not null`),
    // A call with a number nobody placed from here (voice/observed-calls.ts): the live leads whose
    // phone has these digits, without reading every lead of the organization.
    index('leads_organization_live_phone_digits_idx')
      .on(table.organizationId, sql`regexp_replace(${table.phoneNumber}, '\\D', '', 'g')`)
      .where(sql`${table.deletedAt} is null and ${table.phoneNumber} is not null`),
    tenantPolicy('leads'),
  ],
);

export const leadTags = pgTable(
  'lead_tags',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    tagId: bigint({ mode: 'number' })
      .notNull()
      .references(() => lookups.id, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ columns: [table.leadId, table.tagId] }),
    index('lead_tags_organization_tag_idx').on(table.organizationId, table.tagId),
    tenantPolicy('lead_tags'),
  ],
);

export const leadNotes = pgTable(
  'lead_notes',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    title: text().notNull(),
    note: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('lead_notes_organization_lead_idx').on(table.organizationId, table.leadId, table.id),
    tenantPolicy('lead_notes'),
  ],
);

/** Follow-up status: 1 pending, 2 completed, 3 rescheduled, 4 cancelled, 5 missed, 6 no response. */
export const leadFollowUps = pgTable(
  'lead_follow_ups',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    followUpDate: timestamp({ withTimezone: true }).notNull(),
    notes: text(),
    status: smallint().notNull().default(1),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    /**
     * When the due reminder (notification type 4) was written by the minute cron
     * (modules/lead-follow-ups/reminders.ts); null until then. Moving the date clears it.
     */
    remindedAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('lead_follow_ups_organization_lead_idx').on(table.organizationId, table.leadId, table.id),
    index('lead_follow_ups_organization_date_idx').on(table.organizationId, table.followUpDate),
    // The reminder sweep's range, across organizations: only follow-ups still waiting for theirs.
    index('lead_follow_ups_reminder_due_idx')
      .on(table.followUpDate)
      .where(sql`${table.remindedAt} is null and ${table.status} in (1, 3)`),
    tenantPolicy('lead_follow_ups'),
  ],
);

/**
 * The search document of every live lead (deleted_at null), one narrow row per lead: what
 * `search_value` scans. Triggers on leads keep it in the same statement as every write
 * (drizzle/0058_lead_search_documents_sql.sql): a soft delete removes the row, a restore or a
 * change of a searched column rewrites it. Narrow and stored, a search's recheck of its trigram
 * matches reads a third fewer pages than on leads and compares stored text instead of building
 * the document per row (issue 17: a search matching 2 % of 100 000 leads, 12 → 7 ms on
 * PostgreSQL to find its matches). Read through lead_search_scope, never directly.
 */
export const leadSearchDocuments = pgTable(
  'lead_search_documents',
  {
    leadId: bigint({ mode: 'number' })
      .primaryKey()
      .references(() => leads.id, { onDelete: 'cascade' }),
    organizationId: organizationRef(),
    document: text().notNull(),
  },
  (table) => [
    // A pending list of 64 kB, not the default 4 MB: new entries wait in it until it fills, and
    // every search reads it whole; PGlite never autovacuums it away (issue 17: a search matching
    // 4 of 100 000 leads read 377 pending pages in 24 ms, against 0.2 ms with 64 kB). Turning
    // fastupdate off instead made loading 100 000 leads 6 times slower; 64 kB about 1.5 times.
    // The organization leads the key so that a small organization's search in a large database
    // rechecks only its own matches.
    index('lead_search_documents_trgm_idx')
      .using('gin', table.organizationId, sql`${table.document} gin_trgm_ops`)
      .with({ gin_pending_list_limit: 64 }),
    tenantPolicy('lead_search_documents'),
  ],
);

/**
 * How common each word is in an organization's search documents (drizzle/0060_lead_search_words_sql.sql):
 * the share of a sample of its newest live leads whose document holds the word, for words in at
 * least 1 % of them. A search leaves the common words of its term out of the trigram index
 * condition (`lead_search_index_pattern`) and checks the whole term on the candidates, because a
 * trigram every lead has (every address ends `.com`) costs the index a pass over a posting list
 * of the whole organization. The daily cron refreshes it for organizations with at least 10 000
 * live leads (`refresh_lead_search_words`); stale or missing rows cost speed, never results.
 */
export const leadSearchWords = pgTable(
  'lead_search_words',
  {
    organizationId: organizationRef(),
    word: text().notNull(),
    share: real().notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.word] }), tenantPolicy('lead_search_words')],
);

/**
 * The organization's live leads with their search document, for `search_value`: a view (not
 * managed by drizzle-kit; 0004, redefined by 0058) over lead_search_documents, owned by the
 * tables' owner so the trigram index serves the LIKE inside tenant transactions (row-level
 * security would demote it to a filter: LIKE is not leakproof); it filters itself to
 * app.organization_id. `search_document` is lower-cased: match it with LIKE against a
 * lower-cased pattern.
 */
export const leadSearchScope = pgView('lead_search_scope', {
  id: bigint({ mode: 'number' }).notNull(),
  organizationId: bigint({ mode: 'number' }).notNull(),
  searchDocument: text().notNull(),
}).existing();

/**
 * The organization's live leads with the digits of their phone (`regexp_replace(phone_number,
 * '\D', '', 'g')`, the expression of leads_organization_live_phone_digits_idx), for the other
 * party of a call nobody placed from here: a view (not managed by drizzle-kit; 0062) owned by the
 * tables' owner, so the digits index serves the lookup inside tenant transactions (row-level
 * security would demote regexp_replace, not leakproof, to a filter); it filters itself to
 * app.organization_id.
 */
export const leadPhoneScope = pgView('lead_phone_scope', {
  id: bigint({ mode: 'number' }).notNull(),
  organizationId: bigint({ mode: 'number' }).notNull(),
  companyId: bigint({ mode: 'number' }),
  phoneNumber: text(),
  phoneDigits: text(),
}).existing();

/**
 * The organization's live leads with their dedupe keys (`email_key` = lower(email), `profile_key`
 * = profile_url_key, the unique and duplicate indexes' expressions), for the dedupe checks of
 * creates and updates (modules/leads/dedupe.ts): a view (not managed by drizzle-kit; 0073) owned
 * by the tables' owner, so those indexes serve the lookup inside tenant transactions (row-level
 * security would demote lower(), not leakproof, to a filter over every lead); it filters itself to
 * app.organization_id.
 */
export const leadKeyScope = pgView('lead_key_scope', {
  id: bigint({ mode: 'number' }).notNull(),
  organizationId: bigint({ mode: 'number' }).notNull(),
  emailKey: text(),
  profileKey: text(),
  duplicateOf: bigint({ mode: 'number' }),
  importJobId: bigint({ mode: 'number' }),
  importRow: integer(),
}).existing();
