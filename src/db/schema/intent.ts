import { sql } from 'drizzle-orm';
import {
  bigint,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { leads } from './leads';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/**
 * Behavioural events on a lead (pricing page visit, demo request, email open …). `dedupe_key`
 * makes queue inserts idempotent: a redelivered tracking hit carries the same key, and
 * `on conflict (organization_id, dedupe_key) do nothing` drops it. Signals sent through the API
 * have none (NULLs never conflict).
 */
export const intentSignals = pgTable(
  'intent_signals',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    signalType: text().notNull(),
    signalDetail: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    source: text(),
    occurredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    dedupeKey: text(),
    /**
     * The company of the signal's lead while the lead is live (null otherwise), kept by triggers
     * (drizzle/0024_lead_company_sql.sql): an account's signals are one index range. Not on the wire.
     */
    leadCompanyId: bigint({ mode: 'number' }),
  },
  (table) => [
    index('intent_signals_organization_lead_idx').on(table.organizationId, table.leadId, table.occurredAt),
    // Dashboard analytics: the signals of the engagement window, by the company they carry (index-only).
    index('intent_signals_organization_occurred_idx').on(table.organizationId, table.occurredAt, table.leadCompanyId),
    // Account health and top accounts: the signals of a company's live leads in a window.
    index('intent_signals_organization_lead_company_idx').on(
      table.organizationId,
      table.leadCompanyId,
      table.occurredAt,
    ),
    uniqueIndex('intent_signals_dedupe_key').on(table.organizationId, table.dedupeKey),
    // Opens of one tracking token, counted to derive email_opened_3x.
    index('intent_signals_open_token_idx')
      .on(table.organizationId, sql`(${table.signalDetail}->>'token_hash')`)
      .where(sql`${table.signalType} = 'email_opened'`),
    tenantPolicy('intent_signals'),
  ],
);

/** One alert per upward crossing of the hot threshold by a lead's intent score. */
export const intentAlerts = pgTable(
  'intent_alerts',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    /** The intent score at the crossing. */
    score: doublePrecision().notNull(),
    /** The signals that contributed most at the crossing: [{signal_type, occurred_at, points}]. */
    reasons: jsonb().$type<IntentReason[]>().notNull().default([]),
    createdAt: createdAt(),
    acknowledgedAt: timestamp({ withTimezone: true }),
    acknowledgedBy: bigint({ mode: 'number' }).references(() => users.id),
  },
  (table) => [
    index('intent_alerts_organization_lead_idx').on(table.organizationId, table.leadId, table.id),
    index('intent_alerts_organization_created_idx').on(table.organizationId, table.createdAt),
    tenantPolicy('intent_alerts'),
  ],
);

/**
 * A lead's intent score as of its last rescoring, and the instant it falls below the hot
 * threshold (`hot_until`, exact because every signal decays at the same rate; null when it was
 * not hot). A lead is hot while `hot_until > now()`; `last_crossed_at` is the statement that
 * last made it hot, which is how a rescoring knows it crossed (see modules/intent/scoring.ts).
 */
export const leadIntentScores = pgTable(
  'lead_intent_scores',
  {
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    leadId: bigint({ mode: 'number' })
      .notNull()
      .references(() => leads.id, { onDelete: 'cascade' }),
    score: doublePrecision().notNull(),
    scoredAt: timestamp({ withTimezone: true }).notNull(),
    hotUntil: timestamp({ withTimezone: true }),
    lastCrossedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.leadId] }),
    index('lead_intent_scores_hot_idx').on(table.organizationId, table.hotUntil),
    tenantPolicy('lead_intent_scores'),
  ],
);

export interface IntentReason {
  signal_type: string;
  occurred_at: string;
  points: number;
}
