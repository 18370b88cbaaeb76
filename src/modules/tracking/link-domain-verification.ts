/**
 * Link domains count for direct click redirects only once their organization proves it controls
 * them, as mail providers verify sending domains: each listed domain has a token, and a DNS TXT
 * record at `_lead-verify.<domain>` holding `lead-verification=<token>` verifies it (checked on
 * POST /api/organization/link-domains/verify through the DNS provider, providers/dns/). Without
 * this, anyone who signs up could list a phishing domain and mint 302s from the API's domain.
 *
 * The token is per organization and domain, so another organization listing the same domain
 * cannot ride on this one's record. Verifying a domain covers its subdomains, as listing it does.
 * Replacing the list keeps the rows (token, verification) of the domains that stay, drops those
 * removed, and gives new ones a fresh token: a domain removed and listed again is verified again.
 */
import { sql } from 'drizzle-orm';
import type { TenantContext } from '../../db/tenant';
import { linkDomainVerifications, organizations } from '../../db/schema';
import { adminNoticesSql, NOTIFICATION_TYPES } from '../notifications';
import { bare } from '../../db/sql-names';
import type { DnsProvider, DnsProviderName, TxtCheck } from '../../providers/dns/interface';
import { ProviderFailure, routeErrorOf } from '../../providers/failures';

export const VERIFICATION_RECORD_PREFIX = '_lead-verify';
export const VERIFICATION_VALUE_PREFIX = 'lead-verification=';

export const recordName = (domain: string) => `${VERIFICATION_RECORD_PREFIX}.${domain}`;
export const recordValue = (token: string) => `${VERIFICATION_VALUE_PREFIX}${token}`;

/** A random token made by the database, as the migration that added the table makes them (122 random bits, hex). */
const newToken = sql`replace(gen_random_uuid()::text, '-', '')`;

export interface DomainVerification {
  domain: string;
  verified: boolean;
  verified_at: string | null;
  record_type: 'TXT';
  record_name: string;
  record_value: string;
  checked_at: string | null;
  last_error: string | null;
  record_missing_since: string | null;
}

export interface LinkDomainState {
  link_domains: string[];
  dns_provider: DnsProviderName;
  verifications: DomainVerification[];
}

interface Row {
  domain: string;
  token: string;
  verified_at: string | null;
  checked_at: string | null;
  last_error: string | null;
  failing_since: string | null;
}

const iso = (value: string | null) => (value ? new Date(value).toISOString() : null);

/** The organization's link domains verified by DNS, as a SQL scalar (text[]), for a statement the request sends anyway. */
export function verifiedLinkDomainsSql(orgId: number) {
  return sql<string[] | null>`(select coalesce(array_agg(${linkDomainVerifications.domain}), '{}'::text[])
    from ${linkDomainVerifications}
    where ${linkDomainVerifications.organizationId} = ${orgId} and ${linkDomainVerifications.verifiedAt} is not null)`;
}

/** The list as set, with each domain's verification, in one statement. */
export async function readLinkDomainState(ctx: Pick<TenantContext, 'db' | 'orgId'>, provider: DnsProvider) {
  const v = linkDomainVerifications;
  const result = await ctx.db.execute<{ domains: string[] | null; rows: Row[] | null }>(sql`
    select
      (select ${organizations.linkDomains} from ${organizations} where ${organizations.id} = ${ctx.orgId}) as domains,
      (select json_agg(json_build_object(
          'domain', ${v.domain}, 'token', ${v.token}, 'verified_at', ${v.verifiedAt},
          'checked_at', ${v.checkedAt}, 'last_error', ${v.lastError}, 'failing_since', ${v.failingSince}))
        from ${v} where ${v.organizationId} = ${ctx.orgId}) as rows`);
  const { domains, rows } = result.rows[0] ?? { domains: [], rows: [] };
  return stateOf(domains ?? [], rows ?? [], provider);
}

function stateOf(domains: string[], rows: Row[], provider: DnsProvider): LinkDomainState & { rows: Row[] } {
  const byDomain = new Map(rows.map((row) => [row.domain, row]));
  const listed = domains.flatMap((domain) => {
    const row = byDomain.get(domain);
    return row ? [row] : [];
  });
  return {
    link_domains: domains,
    dns_provider: provider.name,
    verifications: listed.map((row) => ({
      domain: row.domain,
      verified: row.verified_at !== null,
      verified_at: iso(row.verified_at),
      record_type: 'TXT' as const,
      record_name: recordName(row.domain),
      record_value: recordValue(row.token),
      checked_at: iso(row.checked_at),
      last_error: row.last_error,
      record_missing_since: iso(row.failing_since),
    })),
    rows: listed,
  };
}

/**
 * Replaces the list and keeps the verification rows in step, in one statement (atomic by itself):
 * rows of removed domains go, new domains get a row with a fresh token, the others are kept.
 */
export async function replaceLinkDomains(ctx: Pick<TenantContext, 'db' | 'orgId'>, domains: string[]) {
  const v = linkDomainVerifications;
  const list = sql`${sql.param(domains)}::text[]`;
  await ctx.db.execute(sql`
    with listed as (
      update ${organizations} set ${bare(organizations.linkDomains)} = ${list}, ${bare(organizations.updatedAt)} = now()
      where ${organizations.id} = ${ctx.orgId}
      returning ${organizations.id}
    ), removed as (
      delete from ${v}
      where ${v.organizationId} = ${ctx.orgId} and ${v.domain} <> all(${list})
    )
    insert into ${v} (${bare(v.organizationId)}, ${bare(v.domain)}, ${bare(v.token)})
    select listed.id, added.domain, ${newToken}
    from listed, unnest(${list}) as added(domain)
    on conflict do nothing`);
}

/**
 * One lookup's outcome. `answered` is false when the resolver gave no answer on the record (down,
 * throttled, SERVFAIL, REFUSED): `failure` says why, and nothing counts against the domain.
 */
export interface CheckOutcome {
  orgId: number;
  domain: string;
  /** The token whose record was looked up: a domain listed again meanwhile has a new one, and the outcome is not its. */
  token: string;
  answered: boolean;
  found: boolean;
  error: string | null;
  failure?: ProviderFailure;
}

/** A verified domain whose record stays missing this long loses its verification (the re-check runs daily). */
export const UNVERIFY_AFTER_DAYS = 3;

function explain(check: TxtCheck, name: string, value: string, provider: DnsProvider): string {
  const local = provider.local
    ? ' (local DNS provider: only reserved names such as *.test, *.example and example.com carry the record)'
    : '';
  if (check.nameMissing || check.records === 0)
    return `No TXT record found at ${name}; publish one holding ${value}${local}`;
  return `The ${check.records} TXT record(s) at ${name} do not include ${value}${local}`;
}

/**
 * Looks up each domain's record, in parallel. A lookup the resolver could not answer is an
 * outcome with `answered` false; any other error is thrown.
 */
export async function checkDomains(
  provider: DnsProvider,
  rows: { orgId: number; domain: string; token: string }[],
): Promise<CheckOutcome[]> {
  const settled = await Promise.allSettled(
    rows.map((row) => provider.checkTxt(recordName(row.domain), recordValue(row.token))),
  );
  return settled.map((result, at) => {
    const { orgId, domain, token } = rows[at];
    if (result.status === 'fulfilled') {
      const check = result.value;
      const error = check.found ? null : explain(check, recordName(domain), recordValue(token), provider);
      return { orgId, domain, token, answered: true, found: check.found, error };
    }
    if (!(result.reason instanceof ProviderFailure)) throw result.reason;
    return { orgId, domain, token, answered: false, found: false, error: result.reason.reason, failure: result.reason };
  });
}

/**
 * Records lookups, of one organization's domains (the verify route) or of several (the daily
 * re-check), in one statement:
 * - found: the domain is verified (it keeps its first verification time) and no longer failing;
 * - answered without the record: an unverified domain stays so; a verified one is failing from
 *   the first such lookup, and loses its verification once it has failed for UNVERIFY_AFTER_DAYS,
 *   which tells every admin of its organization, once (only the update that clears `verified_at`
 *   notifies; a concurrent one re-reads the row and finds nothing left to clear);
 * - not answered (the resolver down): only the reason is kept; nothing counts against the domain.
 * An outcome counts only for the row holding the token it looked up: a domain removed and listed
 * again during the lookup has a new token, and its row is left as it is.
 * Answers the domains that lost their verification.
 */
export async function recordChecks(db: Pick<TenantContext, 'db'>['db'], outcomes: CheckOutcome[]) {
  if (outcomes.length === 0) return [];
  const v = linkDomainVerifications;
  const cutoff = sql`now() - make_interval(days => ${UNVERIFY_AFTER_DAYS})`;
  const result = await db.execute<{ organization_id: number; domain: string }>(sql`
    with checked as (
      select * from unnest(
        ${sql.param(outcomes.map((outcome) => outcome.orgId))}::bigint[],
        ${sql.param(outcomes.map((outcome) => outcome.domain))}::text[],
        ${sql.param(outcomes.map((outcome) => outcome.token))}::text[],
        ${sql.param(outcomes.map((outcome) => outcome.answered))}::boolean[],
        ${sql.param(outcomes.map((outcome) => outcome.found))}::boolean[],
        ${sql.param(outcomes.map((outcome) => outcome.error))}::text[]
      ) as c(organization_id, domain, token, answered, found, error)
    ), prior as (
      -- Each row as last committed, locked in key order (a concurrent check waits, then re-reads).
      select ${v.organizationId} as organization_id, ${v.domain} as domain,
        ${v.verifiedAt} is not null as verified, ${v.failingSince} <= ${cutoff} as overdue
      from ${v} join checked c on ${v.organizationId} = c.organization_id and ${v.domain} = c.domain and ${v.token} = c.token
      order by ${v.organizationId}, ${v.domain}
      for update of ${v}
    ), recorded as (
      update ${v} set
        ${bare(v.verifiedAt)} = case
          when c.found then coalesce(${v.verifiedAt}, now())
          when c.answered and p.overdue then null
          else ${v.verifiedAt} end,
        ${bare(v.failingSince)} = case
          when c.found or not p.verified then null
          when not c.answered then ${v.failingSince}
          when p.overdue then null
          else coalesce(${v.failingSince}, now()) end,
        ${bare(v.checkedAt)} = now(),
        ${bare(v.lastError)} = c.error
      from checked c join prior p on p.organization_id = c.organization_id and p.domain = c.domain
      where ${v.organizationId} = c.organization_id and ${v.domain} = c.domain
      returning ${v.organizationId} as organization_id, ${v.domain} as domain,
        p.verified and ${v.verifiedAt} is null as lost, c.error as error
    ), notified as (
      ${adminNoticesSql({
        from: sql`recorded r`,
        organizationId: sql`r.organization_id`,
        typeId: NOTIFICATION_TYPES.linkDomainUnverified,
        title: sql`'Link domain no longer verified: ' || r.domain`,
        data: sql`jsonb_build_object('domain', r.domain, 'reason', r.error, 'days_missing', ${UNVERIFY_AFTER_DAYS}::int)`,
        where: sql`r.lost`,
      })}
    )
    select organization_id, domain from recorded where lost`);
  return result.rows;
}

/**
 * Checks every listed domain not verified, or verified but failing the daily re-check, in
 * parallel (at most the list's 50), and records each outcome (recordChecks). When the provider
 * answered none of them (down, throttled, SERVFAIL), nothing is recorded and the route answers 503
 * with Retry-After; when it answered some, a domain it could not look up keeps the reason as its
 * last error, so one broken zone does not block the others.
 */
export async function verifyLinkDomains(ctx: Pick<TenantContext, 'db' | 'orgId'>, provider: DnsProvider) {
  const before = await readLinkDomainState(ctx, provider);
  const pending = before.rows.filter((row) => row.verified_at === null || row.failing_since !== null);
  if (pending.length === 0) return stripRows(before);
  const outcomes = await checkDomains(
    provider,
    pending.map((row) => ({ orgId: ctx.orgId, domain: row.domain, token: row.token })),
  );
  const failures = outcomes.flatMap((outcome) => (outcome.failure ? [outcome.failure] : []));
  const unavailable = failures.find((failure) => failure.kind === 'unavailable');
  if (unavailable && failures.length === outcomes.length) throw routeErrorOf(unavailable, 'DNS record');
  await recordChecks(ctx.db, outcomes);
  return stripRows(await readLinkDomainState(ctx, provider));
}

export function stripRows({ rows: _rows, ...state }: LinkDomainState & { rows: Row[] }): LinkDomainState {
  return state;
}
