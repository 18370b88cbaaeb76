/**
 * Monthly number rentals. A purchase pays for its calendar month (UTC); every later month the
 * cron trigger's run charges each number the organization keeps (active or suspended) its
 * monthly price, one `number_renewal` ledger row per number and billing month (a unique key, so
 * a second run that minute, a redelivered trigger or two runs at once charge nothing twice).
 *
 * The wallet never goes negative: under each organization's wallet lock, an organization's due
 * numbers are charged in id order while the balance covers them; a number it does not cover is
 * marked `suspended` (its failure_reason names the unpaid month) and is not used for calls. A
 * later run, after a top-up, charges the month and makes it active again. The run is set-based:
 * a few statements for every organization, whatever their numbers.
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
    const result = await tx.execute<{ charged: string; suspended: string; reactivated: string }>(sql`
      with due as (${due}),
      balances as (
        select l.organization_id, sum(l.amount_cents) as balance from ${voiceLedger} l
        where l.organization_id in (select organization_id from due) group by l.organization_id
      ),
      ranked as (
        select d.*, coalesce(b.balance, 0) as balance,
          sum(d.monthly_price_cents) over (partition by d.organization_id order by d.id) as running
        from due d left join balances b on b.organization_id = d.organization_id
      ),
      charged as (
        insert into ${voiceLedger} (organization_id, kind, amount_cents, phone_number_id, billing_month, note)
        select r.organization_id, 'number_renewal', -r.monthly_price_cents, r.id, ${month}::date,
          r.phone_number || ', rental of ' || to_char(${month}::date, 'YYYY-MM')
        from ranked r where r.running <= r.balance
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
        from ranked r where n.organization_id = r.organization_id and n.id = r.id and r.running > r.balance and n.status = 'active'
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
