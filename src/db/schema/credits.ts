/**
 * The credits ledger (modules/credits): every change to an organization's credits is a row, and
 * the balance is their sum, as Stripe's credit grants and Lago's wallet transactions keep it.
 * There is no balance column to drift: a grant adds, a reservation holds (subtracts) its price
 * before the work, and exactly one settlement (keeps the hold, amount 0) or refund (gives it back)
 * closes each reservation.
 */
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

export const CREDIT_ENTRY_KINDS = ['grant', 'reservation', 'settlement', 'refund'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];

export const creditLedger = pgTable(
  'credit_ledger',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text().$type<CreditEntryKind>().notNull(),
    /** The signed effect on the balance: grant +, reservation −price, settlement 0, refund +price. */
    amount: integer().notNull(),
    /** The priced feature (modules/credits/prices.ts) of a reservation and of the row closing it; null on grants. */
    feature: text(),
    /**
     * The caller's key for a reservation (`email_draft:job:12:lead:34`): reserving twice under one
     * key returns the first reservation, so a redelivered job item is never charged twice.
     */
    idempotencyKey: text(),
    /** The reservation a settlement or refund closes. */
    reservationId: bigint({ mode: 'number' }).references((): AnyPgColumn => creditLedger.id, { onDelete: 'cascade' }),
    /** Why: a grant's note (`starting grant`, an admin's reason), a refund's failure. */
    note: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [
    // The balance is a sum over the organization's rows: an index-only scan of these columns.
    index('credit_ledger_organization_idx').on(table.organizationId, table.kind, table.createdAt, table.amount),
    // The expiry sweep (modules/credits/expiry.ts) reads reservations by age across organizations.
    index('credit_ledger_reservation_age_idx').on(table.createdAt).where(sql`${table.kind} = 'reservation'`),
    uniqueIndex('credit_ledger_reservation_key')
      .on(table.organizationId, table.idempotencyKey)
      .where(sql`${table.kind} = 'reservation'`),
    // One closing row per reservation: a settle after a refund (or twice) inserts nothing.
    uniqueIndex('credit_ledger_closing_key')
      .on(table.reservationId)
      .where(sql`${table.kind} in ('settlement', 'refund')`),
    check('credit_ledger_kind_check', sql`${table.kind} in ('grant', 'reservation', 'settlement', 'refund')`),
    check(
      'credit_ledger_amount_check',
      sql`(${table.kind} = 'grant' and ${table.amount} > 0)
        or (${table.kind} = 'reservation' and ${table.amount} < 0 and ${table.idempotencyKey} is not null)
        or (${table.kind} = 'settlement' and ${table.amount} = 0 and ${table.reservationId} is not null)
        or (${table.kind} = 'refund' and ${table.amount} > 0 and ${table.reservationId} is not null)`,
    ),
    tenantPolicy('credit_ledger'),
  ],
);
