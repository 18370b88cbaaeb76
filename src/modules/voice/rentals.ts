/**
 * Monthly number rentals. A purchase pays for its calendar month (UTC); every later month the
 * cron trigger's run charges each number the organization keeps (active or suspended) its
 * monthly price, one `number_renewal` ledger row per number and billing month (a unique key, so
 * a second run that minute, a redelivered trigger or two runs at once charge nothing twice).
 *
 * The wallet never goes negative: under each organization's wallet lock, its due numbers are
 * charged first-fit, active ones before suspended ones and oldest first within each (`rentalOrder`):
 * each number the balance left still covers is charged, one it does not cover is passed over for
 * the next, so a cheaper number later in the order is kept rather than suspended behind a dearer
 * one. A number left unpaid is marked `suspended` (its failure_reason names the unpaid month) and
 * is not used for calls; numbers in use are kept before suspended ones come back. A later run,
 * after a top-up, charges the month and makes it active again. The run is set-based: the same
 * three statements for every organization, whatever their numbers (the first-fit pass is done in
 * memory between the read and the write).
 */
import { sql } from 'drizzle-orm';
import { withOwnDatabase, type Database } from '../../db/client';
import { phoneNumbers, voiceLedger } from '../../db/schema';
import type { Bindings } from '../../env';
import { readConfig } from '../../env';
import { walletLockKey } from './wallet';

/** The first day (UTC) of the month `now` falls in, as YYYY-MM-DD. */
export function billingMonthOf(now: Date): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

interface DueNumber extends Record<string, unknown> {
  id: string | number;
  organization_id: string | number;
  monthly_price_cents: string | number;
  status: string;
  /** The organization's wallet balance in cents (every ledger movement committed before its lock). */
  balance: string | number;
}

/**
 * Which due numbers the month's rental is charged for: per organization, active numbers before
 * suspended ones, oldest (lowest id) first within each, each charged when the balance left covers
 * it and passed over when it does not (first-fit). The ids to charge and the ids left unpaid.
 */
export function rentalOrder(due: DueNumber[]): { paid: number[]; unpaid: number[] } {
  const sorted = [...due].sort(
    (a, b) =>
      Number(a.organization_id) - Number(b.organization_id) ||
      Number(a.status !== 'active') - Number(b.status !== 'active') ||
      Number(a.id) - Number(b.id),
  );
  const paid: number[] = [];
  const unpaid: number[] = [];
  const left = new Map<number, number>();
  for (const row of sorted) {
    const organization = Number(row.organization_id);
    const balance = left.get(organization) ?? Number(row.balance);
    const price = Number(row.monthly_price_cents);
    if (price <= balance) {
      paid.push(Number(row.id));
      left.set(organization, balance - price);
    } else {
      unpaid.push(Number(row.id));
      left.set(organization, balance);
    }
  }
  return { paid, unpaid };
}

export interface RentalRun {
  month: string;
  charged: number;
  suspended: number;
  reactivated: number;
}

/**
 * Charges this month's rental of every due number. `onlyOrganization` (tests) keeps the run to
 * one organization, so it does not touch other test files' numbers.
 */
export async function chargeNumberRentals(db: Database, now: Date, onlyOrganization?: number): Promise<RentalRun> {
  const month = billingMonthOf(now);
  const scope = onlyOrganization === undefined ? sql`` : sql` and n.organization_id = ${onlyOrganization}`;
  // Kept by the organization, bought before this month, and not yet charged for it.
  const due = sql`
    select n.id, n.organization_id, n.phone_number, n.monthly_price_cents, n.status from ${phoneNumbers} n
    where n.status in ('active', 'suspended') and n.created_at < ${month}::date${scope}
      and not exists (select 1 from ${voiceLedger} l where l.organization_id = n.organization_id
        and l.phone_number_id = n.id and l.kind = 'number_renewal' and l.billing_month = ${month}::date)`;
  return db.transaction(async (tx) => {
    // The wallets' locks first, in organization order (its own statement: the charge below reads
    // balances that include every movement committed before the locks were granted).
    await tx.execute(sql`
      select count(pg_advisory_xact_lock(hashtextextended(${walletLockKey(sql`o.organization_id`)}, 0)))
      from (select distinct organization_id from (${due}) d order by organization_id) o`);
    const dueRows = await tx.execute<DueNumber>(sql`
      with due as (${due}),
      balances as (
        select l.organization_id, sum(l.amount_cents) as balance from ${voiceLedger} l
        where l.organization_id in (select organization_id from due) group by l.organization_id
      )
      select d.id, d.organization_id, d.monthly_price_cents, d.status, coalesce(b.balance, 0) as balance
      from due d left join balances b on b.organization_id = d.organization_id`);
    const { paid, unpaid } = rentalOrder(dueRows.rows);
    const result = await tx.execute<{ charged: string; suspended: string; reactivated: string }>(sql`
      with charged as (
        insert into ${voiceLedger} (organization_id, kind, amount_cents, phone_number_id, billing_month, note)
        select n.organization_id, 'number_renewal', -n.monthly_price_cents, n.id, ${month}::date,
          n.phone_number || ', rental of ' || to_char(${month}::date, 'YYYY-MM')
        from ${phoneNumbers} n where n.id = any(${`{${paid.join(',')}}`}::bigint[])
        on conflict do nothing
        returning phone_number_id, organization_id
      ),
      reactivated as (
        update ${phoneNumbers} n set status = 'active', failure_reason = null, updated_at = now()
        from charged c where n.organization_id = c.organization_id and n.id = c.phone_number_id and n.status = 'suspended'
        returning n.id
      ),
      suspended as (
        update ${phoneNumbers} n set status = 'suspended', updated_at = now(),
          failure_reason = 'The rental of ' || to_char(${month}::date, 'YYYY-MM') || ' is unpaid: the calling wallet did not cover it; top it up'
        where n.id = any(${`{${unpaid.join(',')}}`}::bigint[]) and n.status = 'active'
        returning n.id
      )
      select (select count(*) from charged) as charged, (select count(*) from suspended) as suspended,
        (select count(*) from reactivated) as reactivated`);
    const row = result.rows[0];
    return {
      month,
      charged: Number(row?.charged ?? 0),
      suspended: Number(row?.suspended ?? 0),
      reactivated: Number(row?.reactivated ?? 0),
    };
  });
}

/** The cron trigger's entry: the month's rentals on a connection of its own. */
export async function runNumberRentals(env: Bindings, now = new Date()): Promise<RentalRun> {
  return withOwnDatabase(readConfig(env), (db) => chargeNumberRentals(db, now));
}
