/**
 * The calling wallet: an append-only ledger (db/schema/voice.ts `voice_ledger`), in cents of USD;
 * the balance is the sum of its rows and is stored nowhere else. Every movement that may lower
 * the balance runs under the organization's wallet lock (a transaction-scoped advisory lock), so
 * parallel purchases and calls are serialized and the balance never goes below zero: a debit is
 * one conditional insert that writes nothing when the balance does not cover it (402).
 *
 * The lock and the derived balance are the ones the AI credits use too (db/ledger.ts); the
 * conditional debit, the capped charge and the once-per-call rows are the wallet's own.
 */
import { type SQL, sql } from 'drizzle-orm';
import { PaymentRequired } from '../../core/errors';
import type { Queryable } from '../../db/client';
import { ledgerBalanceSql, lockLedger } from '../../db/ledger';
import { type LedgerKind, voiceLedger } from '../../db/schema';

export const WALLET_CURRENCY = 'USD';
const LOCK = 'voice-wallet';

export interface LedgerEntry {
  kind: LedgerKind;
  /** Positive: the amount moved, in cents; the kind says which way. */
  cents: number;
  callId?: number | null;
  phoneNumberId?: number | null;
  note?: string | null;
  createdBy?: number | null;
}

const SIGN: Record<LedgerKind, 1 | -1> = {
  top_up: 1,
  call_release: 1,
  refund: 1,
  number_rental: -1,
  call_hold: -1,
  call_charge: -1,
  number_renewal: -1,
};

/** Serializes the organization's wallet movements until the transaction ends. */
export async function lockWallet(db: Queryable, orgId: number): Promise<void> {
  await lockLedger(db, `${orgId}:${LOCK}`);
}

/** The wallet lock's key for an organization id computed in SQL (a set-based run locks many). */
export function walletLockKey(orgId: SQL): SQL {
  return sql`(${orgId})::text || ${`:${LOCK}`}`;
}

export function balanceSql(orgId: number) {
  return ledgerBalanceSql(voiceLedger, voiceLedger.amountCents, voiceLedger.organizationId, orgId);
}

export async function walletBalance(db: Queryable, orgId: number): Promise<number> {
  const result = await db.execute<{ balance: string | number }>(sql`select ${balanceSql(orgId)} as balance`);
  return Number(result.rows[0]?.balance ?? 0);
}

function values(orgId: number, entry: LedgerEntry) {
  return sql`${orgId}::bigint, ${entry.kind}::text, ${SIGN[entry.kind] * entry.cents}::bigint, ${entry.callId ?? null}::bigint,
    ${entry.phoneNumberId ?? null}::bigint, ${entry.note ?? null}::text, ${entry.createdBy ?? null}::bigint`;
}

const COLUMNS = sql`(organization_id, kind, amount_cents, call_id, phone_number_id, note, created_by)`;

/**
 * A debit, under the wallet lock (taken here): one insert that happens only when the balance
 * covers it; 402 `insufficient_balance` otherwise, with the balance and what was needed. Answers
 * the balance after it.
 */
export async function debitWallet(db: Queryable, orgId: number, entry: LedgerEntry): Promise<number> {
  await lockWallet(db, orgId);
  const result = await db.execute<{ balance: string | number }>(sql`
    insert into ${voiceLedger} ${COLUMNS}
    select ${values(orgId, entry)}
    where ${balanceSql(orgId)} >= ${entry.cents}
    returning ${balanceSql(orgId)} - ${entry.cents} as balance`);
  if (result.rows.length === 0) {
    const balance = await walletBalance(db, orgId);
    throw new PaymentRequired(
      `The calling wallet holds ${formatAmount(balance)} ${WALLET_CURRENCY}; this needs ${formatAmount(entry.cents)}. Top it up first.`,
      'insufficient_balance',
      { balance: centsToAmount(balance), required: centsToAmount(entry.cents), currency: WALLET_CURRENCY },
    );
  }
  return Number(result.rows[0].balance);
}

/**
 * The charge of a call that already ran: it cannot be refused, but the wallet never goes below
 * zero, so under the wallet lock it takes what the balance covers (all of it, normally: a placed
 * call's hold was released just before); a shortfall (a call we did not place, with no hold) is
 * written in the row's note. Once per call, like recordLedger. Answers the cents charged.
 */
export async function chargeWallet(db: Queryable, orgId: number, entry: LedgerEntry): Promise<number> {
  await lockWallet(db, orgId);
  const result = await db.execute<{ charged: string | number }>(sql`
    insert into ${voiceLedger} ${COLUMNS}
    select ${orgId}::bigint, ${entry.kind}::text, -b.due, ${entry.callId ?? null}::bigint, ${entry.phoneNumberId ?? null}::bigint,
      ${entry.note ?? ''}::text || case when b.due < ${entry.cents} then ' (' || (${entry.cents} - b.due) || ' cents unpaid: the wallet was short)' else '' end,
      ${entry.createdBy ?? null}::bigint
    from (select least(${entry.cents}::bigint, greatest(${balanceSql(orgId)}, 0)) as due) b
    where b.due > 0
    on conflict do nothing
    returning -amount_cents as charged`);
  return Number(result.rows[0]?.charged ?? 0);
}

/**
 * Credits (top-ups, releases, refunds) and charges that may not be refused (a call that already
 * ran), once per call or number and kind: a second attempt (a replayed webhook, a redelivered
 * job) inserts nothing. Answers whether it was written.
 */
export async function recordLedger(db: Queryable, orgId: number, entry: LedgerEntry): Promise<boolean> {
  const once = entry.callId != null || entry.phoneNumberId != null ? sql`on conflict do nothing` : sql``;
  const result = await db.execute(
    sql`insert into ${voiceLedger} ${COLUMNS} select ${values(orgId, entry)} ${once} returning id`,
  );
  return result.rows.length > 0;
}

/**
 * recordLedger for many rows at once (a set-based run: the lease sweep failing many voice jobs),
 * in one statement; each row once per call or number and kind, as recordLedger writes it.
 */
export async function recordLedgerEntries(db: Queryable, rows: { orgId: number; entry: LedgerEntry }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(
    sql`insert into ${voiceLedger} ${COLUMNS} values ${sql.join(
      rows.map(({ orgId, entry }) => sql`(${values(orgId, entry)})`),
      sql`, `,
    )} on conflict do nothing`,
  );
}

export function centsToAmount(cents: number): number {
  return Math.round(cents) / 100;
}

export function formatAmount(cents: number): string {
  return (cents / 100).toFixed(2);
}
