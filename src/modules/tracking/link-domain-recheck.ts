/**
 * The daily re-check of verified link domains (the minute cron, a batch at a time): a domain
 * verified once could lapse, be re-registered by someone else, or have its record removed, and
 * would otherwise keep minting direct 302s from our host for good. Mail providers re-check sending
 * domains the same way. Each run claims the verified domains not looked up for RECHECK_EVERY_HOURS,
 * least recently checked first, across organizations (owner role, as the other sweeps), by moving
 * their `checked_at` in the claiming statement, so overlapping runs never take the same domain and
 * a run that dies leaves them for the next day. It then looks them up through the DNS provider and
 * records the outcomes in one statement (recordChecks): a record missing for UNVERIFY_AFTER_DAYS
 * unverifies the domain and tells its organization's admins; a resolver that cannot be reached
 * counts for nothing.
 */
import { sql } from 'drizzle-orm';
import { withOwnDatabase } from '../../db/client';
import { linkDomainVerifications } from '../../db/schema';
import { bare } from '../../db/sql-names';
import { readConfig, type Bindings } from '../../env';
import { dnsProviderFor } from '../../providers/dns/select';
import { checkDomains, recordChecks } from './link-domain-verification';

export const RECHECK_EVERY_HOURS = 24;
/** Domains looked up per run: 50 lookups in parallel, each bounded by the provider deadline. */
export const RECHECK_BATCH = 50;

/** Answers how many domains it looked up and which lost their verification. */
export async function runLinkDomainRechecks(env: Bindings) {
  return withOwnDatabase(readConfig(env), async (db) => {
    const v = linkDomainVerifications;
    const claimed = await db.execute<{ organization_id: number; domain: string; token: string }>(sql`
      update ${v} set ${bare(v.checkedAt)} = now()
      from (
        select ${v.organizationId} as organization_id, ${v.domain} as domain from ${v}
        where ${v.verifiedAt} is not null
          and (${v.checkedAt} is null or ${v.checkedAt} < now() - make_interval(hours => ${RECHECK_EVERY_HOURS}))
        order by ${v.checkedAt} nulls first
        limit ${RECHECK_BATCH}
        for update skip locked
      ) as due
      where ${v.organizationId} = due.organization_id and ${v.domain} = due.domain
      returning ${v.organizationId} as organization_id, ${v.domain} as domain, ${v.token} as token`);
    if (claimed.rows.length === 0) return { checked: 0, unverified: [] };
    const outcomes = await checkDomains(
      dnsProviderFor(env),
      claimed.rows.map((row) => ({ orgId: Number(row.organization_id), domain: row.domain, token: row.token })),
    );
    const unverified = await recordChecks(db, outcomes);
    return { checked: outcomes.length, unverified };
  });
}
