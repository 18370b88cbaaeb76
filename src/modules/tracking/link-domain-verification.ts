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
          'checked_at', ${v.checkedAt}, 'last_error', ${v.lastError}))
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

interface Outcome {
  domain: string;
  verified: boolean;
  error: string | null;
}

function explain(check: TxtCheck, name: string, value: string, provider: DnsProvider): string {
  const local = provider.local
    ? ' (local DNS provider: only reserved names such as *.test, *.example and example.com carry the record)'
    : '';
  if (check.nameMissing || check.records === 0)
    return `No TXT record found at ${name}; publish one holding ${value}${local}`;
  return `The ${check.records} TXT record(s) at ${name} do not include ${value}${local}`;
}

/**
 * Checks every listed domain not yet verified, in parallel (at most the list's 50), and records
 * each outcome. When the provider answered none of them (down, throttled, SERVFAIL), nothing is
 * recorded and the route answers 503 with Retry-After; when it answered some, a domain it could not
 * look up keeps the reason as its last error, so one broken zone does not block the others.
 */
export async function verifyLinkDomains(ctx: Pick<TenantContext, 'db' | 'orgId'>, provider: DnsProvider) {
  const before = await readLinkDomainState(ctx, provider);
  const pending = before.rows.filter((row) => row.verified_at === null);
  if (pending.length === 0) return stripRows(before);
  const settled = await Promise.allSettled(
    pending.map((row) => provider.checkTxt(recordName(row.domain), recordValue(row.token))),
  );
  const failures: ProviderFailure[] = [];
  const outcomes: Outcome[] = settled.map((result, at) => {
    const row = pending[at];
    if (result.status === 'fulfilled') {
      const check = result.value;
      const error = check.found ? null : explain(check, recordName(row.domain), recordValue(row.token), provider);
      return { domain: row.domain, verified: check.found, error };
    }
    if (!(result.reason instanceof ProviderFailure)) throw result.reason;
    failures.push(result.reason);
    return { domain: row.domain, verified: false, error: result.reason.reason };
  });
  const unavailable = failures.find((failure) => failure.kind === 'unavailable');
  if (unavailable && failures.length === outcomes.length) throw routeErrorOf(unavailable, 'DNS record');
  const v = linkDomainVerifications;
  await ctx.db.execute(sql`
    update ${v} set
      ${bare(v.verifiedAt)} = case when checked.verified then now() else ${v.verifiedAt} end,
      ${bare(v.checkedAt)} = now(),
      ${bare(v.lastError)} = checked.error
    from unnest(
      ${sql.param(outcomes.map((outcome) => outcome.domain))}::text[],
      ${sql.param(outcomes.map((outcome) => outcome.verified))}::boolean[],
      ${sql.param(outcomes.map((outcome) => outcome.error))}::text[]
    ) as checked(domain, verified, error)
    where ${v.organizationId} = ${ctx.orgId} and ${v.domain} = checked.domain and ${v.verifiedAt} is null`);
  return stripRows(await readLinkDomainState(ctx, provider));
}

export function stripRows({ rows: _rows, ...state }: LinkDomainState & { rows: Row[] }): LinkDomainState {
  return state;
}
