/**
 * Link domains count for direct click redirects only once verified by a DNS TXT record: an
 * organization that lists a domain it does not control mints interstitial links, never 302s from
 * our host. The DNS-over-HTTPS adapter is tested against the resolver's JSON wire format (fetch
 * mocked), the routes with the local provider (reserved names carry the record) and with the
 * adapter behind a mocked resolver.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { linkDomainVerifications } from '../src/db/schema';
import { readConfig } from '../src/env';
import worker from '../src/index';
import { runLinkDomainRechecks } from '../src/modules/tracking';
import { recordChecks } from '../src/modules/tracking/link-domain-verification';
import { CLOUDFLARE_DOH_URL, dnsOverHttps, txtValue } from '../src/providers/dns/doh';
import { isReservedName, localDns } from '../src/providers/dns/local';
import { dnsProviderFor } from '../src/providers/dns/select';
import { ProviderFailure } from '../src/providers/failures';
import {
  addMember,
  type ApiResponse,
  call,
  expectFailure,
  fetchWorker,
  signupOrganization,
  type SignedUp,
} from './helpers/api';
import { json, mockFetch } from './helpers/fetch-mock';
import { runMinuteCron } from './helpers/cron';
import { createLead, inOrganization } from './helpers/leads';
import { statementsOf } from './helpers/statements';

afterEach(() => vi.restoreAllMocks());

const migration0098 = import.meta.glob<string>('../drizzle/0098_link_domain_verifications.sql', {
  query: '?raw',
  import: 'default',
  eager: true,
});

const onResolver = (url: string) => url.startsWith(CLOUDFLARE_DOH_URL);

/** A TXT answer as Cloudflare's resolver sends it: each record's character-strings quoted. */
function txtAnswer(name: string, ...records: string[]) {
  return json(200, {
    Status: 0,
    TC: false,
    RD: true,
    RA: true,
    AD: false,
    CD: false,
    Question: [{ name: `${name}.`, type: 16 }],
    Answer: records.map((data) => ({ name: `${name}.`, type: 16, TTL: 300, data })),
  });
}

const status = (name: string, rcode: number) =>
  json(200, { Status: rcode, TC: false, RD: true, RA: true, AD: false, CD: false, Question: [{ name, type: 16 }] });

describe('the DNS-over-HTTPS adapter (JSON API)', () => {
  const name = '_lead-verify.brand.com';
  const value = 'lead-verification=abc123';
  /** The failure the adapter's check throws (its test fails if the check answers). */
  const refusal = () =>
    dnsOverHttps()
      .checkTxt(name, value)
      .then(
        () => null as never,
        (error) => error,
      );

  it('asks the resolver for the TXT records with accept: application/dns-json and finds the value', async () => {
    const seen = mockFetch([txtAnswer(name, '"v=spf1 -all"', `"${value}"`)]);
    const check = await dnsOverHttps().checkTxt(name, value);
    expect(check).toEqual({ found: true, nameMissing: false, records: 2 });
    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].url).toBe('https://cloudflare-dns.com/dns-query?name=_lead-verify.brand.com&type=TXT');
    expect(seen[0].headers.get('accept')).toBe('application/dns-json');
  });

  it('joins a record’s several strings, resolves escapes, ignores a CNAME on the way, reads unquoted data', async () => {
    mockFetch([
      json(200, {
        Status: 0,
        Answer: [
          { name: `${name}.`, type: 5, TTL: 300, data: 'verify.host.net.' },
          { name: 'verify.host.net.', type: 16, TTL: 300, data: '"lead-verification=" "abc" "123"' },
        ],
      }),
    ]);
    expect(await dnsOverHttps().checkTxt(name, value)).toEqual({ found: true, nameMissing: false, records: 1 });
    expect(txtValue('"a \\"quoted\\" word" "\\059 and \\\\"')).toBe('a "quoted" word; and \\');
    expect(txtValue('lead-verification=abc123')).toBe(value);
  });

  it('does not take a record that only contains the value, nor another value', async () => {
    mockFetch([txtAnswer(name, `"x${value}"`, '"lead-verification=abc1234"')]);
    expect(await dnsOverHttps().checkTxt(name, value)).toEqual({ found: false, nameMissing: false, records: 2 });
  });

  it('answers NXDOMAIN (Status 3) as a missing name, NOERROR without answers as no record', async () => {
    mockFetch([status(name, 3), status(name, 0)]);
    expect(await dnsOverHttps().checkTxt(name, value)).toEqual({ found: false, nameMissing: true, records: 0 });
    expect(await dnsOverHttps().checkTxt(name, value)).toEqual({ found: false, nameMissing: false, records: 0 });
  });

  it('takes SERVFAIL (Status 2), a 5xx, a 429 and no answer at all as the resolver being unavailable', async () => {
    const failures: ProviderFailure[] = [];
    mockFetch([status(name, 2), new Response('down', { status: 503 }), json(429, {}, { 'retry-after': '7' })], {
      exhausted: 'throw',
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      failures.push(await refusal());
    }
    vi.restoreAllMocks();
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('network down'));
    failures.push(await refusal());
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ProviderFailure);
      expect(failure.kind).toBe('unavailable');
    }
    expect(failures[0].reason).toContain('SERVFAIL');
    expect(failures[2].retryAfterSeconds).toBe(7);
  });

  it('refuses another RCODE (REFUSED) as a rejection, not an outage', async () => {
    mockFetch([status(name, 5)]);
    const failure = await refusal();
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect(failure.kind).toBe('rejected');
  });

  it('uses the configured resolver URL (Google speaks the same JSON)', async () => {
    const seen = mockFetch([txtAnswer(name, value)]);
    const provider = dnsProviderFor({ DNS_PROVIDER: 'doh', DNS_OVER_HTTPS_URL: 'https://dns.google/resolve' });
    expect(await provider.checkTxt(name, value)).toMatchObject({ found: true });
    expect(seen[0].url).toBe('https://dns.google/resolve?name=_lead-verify.brand.com&type=TXT');
  });
});

describe('the local DNS provider and the choice of provider', () => {
  it('finds the record at reserved names only, offline, and says it is local', async () => {
    const seen = mockFetch([new Response('never', { status: 500 })]);
    for (const reserved of [
      '_lead-verify.shop.test',
      '_lead-verify.example.com',
      '_lead-verify.a.example',
      'x.localhost',
    ]) {
      expect(isReservedName(reserved), reserved).toBe(true);
      expect((await localDns.checkTxt(reserved, 'v')).found).toBe(true);
    }
    for (const real of ['_lead-verify.brand.com', '_lead-verify.example.com.evil.net', '_lead-verify.notexample.com']) {
      expect(isReservedName(real), real).toBe(false);
      expect(await localDns.checkTxt(real, 'v')).toEqual({ found: false, nameMissing: true, records: 0 });
    }
    expect(localDns.local).toBe(true);
    expect(seen).toHaveLength(0);
  });

  it('is local under LOCAL_PROVIDERS or DNS_PROVIDER=local, DNS over HTTPS otherwise (a typo too)', () => {
    expect(dnsProviderFor({ LOCAL_PROVIDERS: 'true' }).name).toBe('local');
    expect(dnsProviderFor({ DNS_PROVIDER: 'local' }).name).toBe('local');
    expect(dnsProviderFor({}).name).toBe('doh');
    expect(dnsProviderFor({ LOCAL_PROVIDERS: 'true', DNS_PROVIDER: 'doh' }).name).toBe('doh');
    expect(dnsProviderFor({ DNS_PROVIDER: 'lokal' }).name).toBe('doh');
  });
});

async function mintClick(owner: SignedUp, leadId: number, target: string) {
  const response = await call('POST', '/api/tracking/tokens', {
    token: owner.token,
    body: { lead_id: leadId, target_url: target },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.click_url as string;
}

async function clickStatus(url: string) {
  const response = await fetchWorker(new Request(url, { redirect: 'manual' }));
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get('location') };
}

const listDomains = (owner: SignedUp, domains: string[]) =>
  call('POST', '/api/organization/link-domains', { token: owner.token, body: { link_domains: domains } });
const verify = (owner: { token: string }) =>
  call('POST', '/api/organization/link-domains/verify', { token: owner.token });
const readDomains = (owner: { token: string }) => call('GET', '/api/organization/link-domains', { token: owner.token });

describe('link domains verified by DNS', () => {
  let owner: SignedUp;
  let leadId: number;

  beforeAll(async () => {
    owner = await signupOrganization('Verified links');
    leadId = await createLead(owner);
  });

  it('lists a domain unverified with the TXT record to publish, and its links show the interstitial until verified', async () => {
    const listed = await listDomains(owner, ['example.com', 'brand-new-phish.com']);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.link_domains).toEqual(['example.com', 'brand-new-phish.com']);
    expect(listed.body.data.dns_provider).toBe('local');
    const [example, phish] = listed.body.data.verifications;
    expect(example).toEqual({
      domain: 'example.com',
      verified: false,
      verified_at: null,
      record_type: 'TXT',
      record_name: '_lead-verify.example.com',
      record_value: expect.stringMatching(/^lead-verification=[0-9a-f]{32}$/),
      checked_at: null,
      last_error: null,
      record_missing_since: null,
    });
    expect(phish.record_value).not.toBe(example.record_value);
    expect((await readDomains(owner)).body.data).toEqual(listed.body.data);

    // Listed but not verified: no 302 from our host.
    const mintedBefore = await mintClick(owner, leadId, 'https://example.com/pricing');
    expect(await clickStatus(mintedBefore)).toEqual({ status: 200, location: null });

    const checked = await verify(owner);
    expect(checked.status, checked.text).toBe(200);
    const [nowExample, nowPhish] = checked.body.data.verifications;
    expect(nowExample).toMatchObject({ domain: 'example.com', verified: true, last_error: null });
    expect(Date.parse(nowExample.verified_at)).not.toBeNaN();
    expect(nowExample.checked_at).toBe(nowExample.verified_at);
    expect(nowPhish).toMatchObject({ domain: 'brand-new-phish.com', verified: false, verified_at: null });
    expect(nowPhish.last_error).toContain('No TXT record found at _lead-verify.brand-new-phish.com');
    expect(nowPhish.last_error).toContain('local DNS provider');
    expect(nowPhish.checked_at).not.toBeNull();

    // Verified: links minted from now on redirect directly, its subdomains too; the other does not.
    expect(await clickStatus(await mintClick(owner, leadId, 'https://example.com/pricing'))).toEqual({
      status: 302,
      location: 'https://example.com/pricing',
    });
    expect((await clickStatus(await mintClick(owner, leadId, 'https://docs.example.com/a'))).status).toBe(302);
    expect((await clickStatus(await mintClick(owner, leadId, 'https://brand-new-phish.com/login'))).status).toBe(200);
    // The link minted before keeps what was signed into it.
    expect(await clickStatus(mintedBefore)).toEqual({ status: 200, location: null });
  });

  it('keeps a staying domain’s token and verification when the list is replaced; a removed one listed again starts over', async () => {
    const before = (await readDomains(owner)).body.data.verifications;
    const replaced = await listDomains(owner, ['example.com', 'shop.test']);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.data.verifications[0]).toEqual(before[0]);
    expect(replaced.body.data.verifications[1]).toMatchObject({ domain: 'shop.test', verified: false });

    const dropped = await listDomains(owner, ['shop.test']);
    expect(dropped.body.data.verifications.map((row: { domain: string }) => row.domain)).toEqual(['shop.test']);
    expect((await clickStatus(await mintClick(owner, leadId, 'https://example.com/p'))).status).toBe(200);

    const again = await listDomains(owner, ['shop.test', 'example.com']);
    expect(again.body.data.verifications[1]).toMatchObject({
      domain: 'example.com',
      verified: false,
      checked_at: null,
    });
    expect(again.body.data.verifications[1].record_value).not.toBe(before[0].record_value);
    expect((await clickStatus(await mintClick(owner, leadId, 'https://example.com/p'))).status).toBe(200);
    await verify(owner);
    expect((await clickStatus(await mintClick(owner, leadId, 'https://example.com/p'))).status).toBe(302);
  });

  it('lets only admins replace the list or verify; members read it', async () => {
    const member = await addMember(owner);
    const before = (await readDomains(owner)).body.data;
    expectFailure(await verify(member), 403, 'forbidden');
    expectFailure(
      await call('POST', '/api/organization/link-domains', { token: member.token, body: { link_domains: ['x.test'] } }),
      403,
      'forbidden',
    );
    const read = await readDomains(member);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(before);
  });

  it('keeps organizations apart: another organization’s token, verification and checks are its own', async () => {
    const first = await signupOrganization('Lists first');
    const second = await signupOrganization('Lists second');
    const firstLead = await createLead(first);
    const firstListed = await listDomains(first, ['example.org']);
    const secondListed = await listDomains(second, ['example.org', 'other.test']);
    expect(secondListed.body.data.verifications[0].record_value).not.toBe(
      firstListed.body.data.verifications[0].record_value,
    );
    // The second verifies its own rows only: the first's stay unchecked and its links unverified.
    const checked = await verify(second);
    expect(checked.body.data.link_domains).toEqual(['example.org', 'other.test']);
    expect(checked.body.data.verifications.every((row: { verified: boolean }) => row.verified)).toBe(true);
    const firstRead = await readDomains(first);
    expect(firstRead.body.data).toEqual(firstListed.body.data);
    expect((await clickStatus(await mintClick(first, firstLead, 'https://example.org/a'))).status).toBe(200);
    // The first's token is not in the second's answer, nor the other way round.
    expect(checked.text).not.toContain(firstListed.body.data.verifications[0].record_value);
    expect(firstRead.text).not.toContain(checked.body.data.verifications[0].record_value);
  });
});

/** A request to the Worker configured with the DNS-over-HTTPS provider (the tests run the local one). */
async function callWithResolver(method: string, path: string, token: string) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(new URL(path, 'http://lead.test'), {
      method,
      headers: { authorization: `Bearer ${token}`, 'cf-connecting-ip': '10.9.8.7' },
    }) as Request<unknown, IncomingRequestCfProperties>,
    { ...env, DNS_PROVIDER: 'doh' },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('verifying through the DNS-over-HTTPS resolver', () => {
  it('verifies the domain whose record holds the value, and says why another is not', async () => {
    const owner = await signupOrganization('Resolver');
    const listed = await listDomains(owner, ['brand.com', 'elsewhere.com', 'gone.com']);
    const [brand, elsewhere] = listed.body.data.verifications;
    const seen = mockFetch(
      [
        (request) => {
          const asked = new URL(request.url).searchParams.get('name') ?? '';
          if (asked === brand.record_name) return txtAnswer(asked, `"${brand.record_value}"`);
          if (asked === elsewhere.record_name) return txtAnswer(asked, '"lead-verification=someone-else"');
          return status(`${asked}.`, 3);
        },
      ],
      { only: onResolver },
    );
    const checked = await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token);
    expect(checked.status).toBe(200);
    expect(checked.body.data.dns_provider).toBe('doh');
    expect(seen.map((request) => new URL(request.url).searchParams.get('name')).sort()).toEqual([
      '_lead-verify.brand.com',
      '_lead-verify.elsewhere.com',
      '_lead-verify.gone.com',
    ]);
    const [nowBrand, nowElsewhere, nowGone] = checked.body.data.verifications;
    expect(nowBrand).toMatchObject({ verified: true, last_error: null });
    expect(nowElsewhere.last_error).toBe(
      `The 1 TXT record(s) at _lead-verify.elsewhere.com do not include ${elsewhere.record_value}`,
    );
    expect(nowGone.last_error).toContain('No TXT record found at _lead-verify.gone.com');

    // A verified domain is not looked up again.
    const again = mockFetch([status('x.', 3)], { only: onResolver });
    await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token);
    expect(again.map((request) => new URL(request.url).searchParams.get('name')).sort()).toEqual([
      '_lead-verify.elsewhere.com',
      '_lead-verify.gone.com',
    ]);
  });

  it('answers 503 with Retry-After and records nothing when the resolver answers none; keeps the reason when it answers some', async () => {
    const owner = await signupOrganization('Resolver down');
    await listDomains(owner, ['brand.com', 'broken-zone.com']);
    const before = (await readDomains(owner)).body.data;
    mockFetch([json(503, {}, { 'retry-after': '12' })], { only: onResolver });
    const down = await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token);
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('provider_unavailable');
    expect(down.headers.get('retry-after')).toBe('12');
    expect((await readDomains(owner)).body.data).toEqual(before);

    vi.restoreAllMocks();
    mockFetch(
      [
        (request) => {
          const asked = new URL(request.url).searchParams.get('name') as string;
          return asked.includes('broken-zone') ? status(`${asked}.`, 2) : status(`${asked}.`, 3);
        },
      ],
      { only: onResolver },
    );
    const partial = await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token);
    expect(partial.status).toBe(200);
    const [brand, broken] = partial.body.data.verifications;
    expect(brand.last_error).toContain('No TXT record found');
    expect(broken.last_error).toContain('SERVFAIL');
    expect(broken.checked_at).not.toBeNull();
  });
});

describe('the daily re-check of verified domains', () => {
  const resolverEnv = () => ({ ...env, DNS_PROVIDER: 'doh' }) as typeof env;
  /** Looks the organization's domains up as the minute cron does, its verified ones due (last checked a day ago). */
  async function recheckDue(orgIds: number[], failingFor?: { domain: string; hours: number }) {
    for (const orgId of orgIds)
      await inOrganization(orgId, async (tx) => {
        await tx
          .update(linkDomainVerifications)
          .set({ checkedAt: sql`now() - interval '25 hours'` })
          .where(eq(linkDomainVerifications.organizationId, orgId));
        if (failingFor)
          await tx
            .update(linkDomainVerifications)
            .set({ failingSince: sql`now() - make_interval(hours => ${failingFor.hours})` })
            .where(
              and(
                eq(linkDomainVerifications.organizationId, orgId),
                eq(linkDomainVerifications.domain, failingFor.domain),
              ),
            );
      });
    return runLinkDomainRechecks(resolverEnv());
  }
  /** A resolver holding the record of each domain in `published` (by its value) and no other. */
  const resolverWith = (published: Map<string, string>) =>
    mockFetch(
      [
        (request) => {
          const asked = new URL(request.url).searchParams.get('name') ?? '';
          const value = published.get(asked);
          return value ? txtAnswer(asked, `"${value}"`) : status(`${asked}.`, 3);
        },
      ],
      { only: onResolver },
    );
  const askedNames = (seen: { url: string }[]) =>
    seen.map((request) => new URL(request.url).searchParams.get('name')).sort();
  const linkNotices = async (user: { token: string }) =>
    (await call('GET', '/api/notification/list', { token: user.token, query: { limit: 100 } })).body.data.filter(
      (notice: { type_id: number }) => notice.type_id === 8,
    );

  it('keeps a domain whose record stays; one whose record is gone for 3 days loses its verification and its admins (and only they) are told once', async () => {
    const owner = await signupOrganization('Recheck');
    const member = await addMember(owner);
    const secondAdmin = await addMember(owner, { role: 'admin' });
    const other = await signupOrganization('Recheck other');
    const leadId = await createLead(owner);
    const listed = (await listDomains(owner, ['lapsed-brand.com', 'steady-brand.com'])).body.data.verifications;
    const otherListed = (await listDomains(other, ['other-brand.com'])).body.data.verifications;
    const everyRecord = new Map(
      [...listed, ...otherListed].map((row: { record_name: string; record_value: string }) => [
        row.record_name,
        row.record_value,
      ]),
    );
    resolverWith(everyRecord);
    await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token);
    await callWithResolver('POST', '/api/organization/link-domains/verify', other.token);
    vi.restoreAllMocks();
    const verifiedAt = (await readDomains(owner)).body.data.verifications.map(
      (row: { verified_at: string }) => row.verified_at,
    );
    expect(verifiedAt.every((at: string | null) => at !== null)).toBe(true);

    // The lapsed domain's record is gone; the others stay.
    const published = new Map(everyRecord);
    published.delete('_lead-verify.lapsed-brand.com');
    const seen = resolverWith(published);
    await recheckDue([owner.orgId, other.orgId]);
    expect(askedNames(seen)).toEqual([
      '_lead-verify.lapsed-brand.com',
      '_lead-verify.other-brand.com',
      '_lead-verify.steady-brand.com',
    ]);
    const [lapsed, steady] = (await readDomains(owner)).body.data.verifications;
    // Missing once: it stays verified for now, and says since when the record is missing.
    expect(lapsed).toMatchObject({ domain: 'lapsed-brand.com', verified: true, verified_at: verifiedAt[0] });
    expect(lapsed.last_error).toContain('No TXT record found at _lead-verify.lapsed-brand.com');
    expect(Date.parse(lapsed.record_missing_since)).toBe(Date.parse(lapsed.checked_at));
    expect(steady).toMatchObject({
      verified: true,
      verified_at: verifiedAt[1],
      last_error: null,
      record_missing_since: null,
    });
    expect(Date.parse(steady.checked_at)).toBeGreaterThan(Date.parse(verifiedAt[1]));
    expect((await clickStatus(await mintClick(owner, leadId, 'https://lapsed-brand.com/a'))).status).toBe(302);

    // Checked a moment ago: a run now looks nothing of theirs up.
    const early = resolverWith(published);
    await runLinkDomainRechecks(resolverEnv());
    expect(askedNames(early).filter((name) => name?.endsWith('-brand.com'))).toEqual([]);

    // Still missing three days after it was first found missing: no longer verified.
    vi.restoreAllMocks();
    resolverWith(published);
    const result = await recheckDue([owner.orgId, other.orgId], { domain: 'lapsed-brand.com', hours: 73 });
    expect(result.unverified.map((row) => [Number(row.organization_id), row.domain])).toEqual([
      [owner.orgId, 'lapsed-brand.com'],
    ]);
    const [gone, kept] = (await readDomains(owner)).body.data.verifications;
    expect(gone).toMatchObject({ verified: false, verified_at: null, record_missing_since: null });
    expect(gone.last_error).toContain('No TXT record found at _lead-verify.lapsed-brand.com');
    expect(kept).toMatchObject({ verified: true, record_missing_since: null });
    expect((await readDomains(other)).body.data.verifications[0]).toMatchObject({ verified: true, last_error: null });
    // Links minted from now on show the interstitial; the steady domain still redirects.
    expect(await clickStatus(await mintClick(owner, leadId, 'https://lapsed-brand.com/a'))).toEqual({
      status: 200,
      location: null,
    });
    expect((await clickStatus(await mintClick(owner, leadId, 'https://steady-brand.com/a'))).status).toBe(302);

    // The admins of its organization are told, once; a member and the other organization are not.
    await recheckDue([owner.orgId]);
    const notices = await linkNotices(owner);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      title: 'Link domain no longer verified: lapsed-brand.com',
      data: { domain: 'lapsed-brand.com', days_missing: 3 },
    });
    expect(notices[0].data.reason).toContain('No TXT record found');
    expect((await linkNotices(secondAdmin)).map((notice: { title: string }) => notice.title)).toEqual([
      'Link domain no longer verified: lapsed-brand.com',
    ]);
    expect(await linkNotices(member)).toEqual([]);
    expect(await linkNotices(other)).toEqual([]);
  });

  it('runs on the minute cron: a verified domain due for its daily lookup is looked up by the cron trigger', async () => {
    const owner = await signupOrganization('Recheck cron');
    const listed = (await listDomains(owner, ['cron-brand.com'])).body.data.verifications;
    resolverWith(new Map([[listed[0].record_name, listed[0].record_value]]));
    await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token);
    vi.restoreAllMocks();
    await inOrganization(owner.orgId, (tx) =>
      tx
        .update(linkDomainVerifications)
        .set({ checkedAt: sql`now() - interval '25 hours'` })
        .where(eq(linkDomainVerifications.organizationId, owner.orgId)),
    );
    // The tests' deployment runs the local DNS provider, which finds no record at a real name.
    await runMinuteCron();
    const row = (await readDomains(owner)).body.data.verifications[0];
    expect(row).toMatchObject({ verified: true });
    expect(row.last_error).toContain('No TXT record found at _lead-verify.cron-brand.com');
    expect(Date.parse(row.record_missing_since)).toBe(Date.parse(row.checked_at));
  });

  it('records a lookup only for the token it looked up: a domain listed again meanwhile keeps its new token unverified', async () => {
    const owner = await signupOrganization('Recheck relisted');
    const tokenOf = (listed: ApiResponse) =>
      (listed.body.data.verifications[0].record_value as string).replace('lead-verification=', '');
    const before = tokenOf(await listDomains(owner, ['relisted-brand.com']));
    await listDomains(owner, []);
    const after = tokenOf(await listDomains(owner, ['relisted-brand.com']));
    expect(after).not.toBe(before);
    const found = (token: string) => ({
      orgId: owner.orgId,
      domain: 'relisted-brand.com',
      token,
      answered: true,
      found: true,
      error: null,
    });
    await inOrganization(owner.orgId, (tx) => recordChecks(tx, [found(before)]));
    expect((await readDomains(owner)).body.data.verifications[0]).toMatchObject({ verified: false, checked_at: null });
    await inOrganization(owner.orgId, (tx) => recordChecks(tx, [found(after)]));
    expect((await readDomains(owner)).body.data.verifications[0]).toMatchObject({ verified: true, last_error: null });
  });

  it('counts an unreachable resolver for nothing, and a record published again clears the failing through verify', async () => {
    const owner = await signupOrganization('Recheck flaky');
    const listed = (await listDomains(owner, ['flaky-brand.com'])).body.data.verifications;
    const record = new Map([[listed[0].record_name, listed[0].record_value]]);
    resolverWith(record);
    const verified = (await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token)).body.data
      .verifications[0];
    expect(verified.verified).toBe(true);
    vi.restoreAllMocks();

    // Already failing for four days, but the resolver cannot be reached: nothing changes but the reason.
    const failingSince = await inOrganization(owner.orgId, async (tx) => {
      const [row] = await tx
        .update(linkDomainVerifications)
        .set({ failingSince: sql`now() - interval '4 days'` })
        .where(eq(linkDomainVerifications.organizationId, owner.orgId))
        .returning({ at: linkDomainVerifications.failingSince });
      return row.at as Date;
    });
    mockFetch([json(503, {})], { only: onResolver });
    const result = await recheckDue([owner.orgId]);
    expect(result.unverified.filter((row) => Number(row.organization_id) === owner.orgId)).toEqual([]);
    const after = (await readDomains(owner)).body.data.verifications[0];
    expect(after).toMatchObject({ verified: true, verified_at: verified.verified_at });
    expect(Date.parse(after.record_missing_since)).toBe(failingSince.getTime());
    expect(after.last_error).toContain('unavailable');
    expect(await linkNotices(owner)).toEqual([]);

    // Verify looks the failing domain up again (a verified one otherwise is not): found, it is cleared.
    vi.restoreAllMocks();
    const seen = resolverWith(record);
    const cleared = (await callWithResolver('POST', '/api/organization/link-domains/verify', owner.token)).body.data
      .verifications[0];
    expect(askedNames(seen)).toEqual(['_lead-verify.flaky-brand.com']);
    expect(cleared).toMatchObject({
      verified: true,
      verified_at: verified.verified_at,
      record_missing_since: null,
      last_error: null,
    });
  });
});

describe('migration 0098', () => {
  it('gives every domain already listed a row of its own, with a fresh token, unverified (no grandfathering)', async () => {
    const before = await signupOrganization('Listed before 0098');
    const [statements] = Object.values(migration0098).map((text) => text.split('--> statement-breakpoint'));
    const rolledBack = new Error('rolled back');
    let rows: { domain: string; token: string; verified_at: unknown; checked_at: unknown }[] = [];
    // The table's owner, in a transaction rolled back after: the list as it was before 0098 (no
    // verification table), then the migration.
    await withOwnDatabase(readConfig(env), (db) =>
      db.transaction(async (tx) => {
        await tx.execute(
          sql`update organizations set link_domains = array['old-brand.com', 'shop.example'] where id = ${before.orgId}`,
        );
        await tx.execute(sql`drop table link_domain_verifications`);
        for (const statement of statements) await tx.execute(sql.raw(statement));
        rows = (
          await tx.execute<(typeof rows)[number]>(
            sql`select domain, token, verified_at, checked_at from link_domain_verifications
              where organization_id = ${before.orgId} order by domain`,
          )
        ).rows;
        throw rolledBack;
      }),
    ).catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
    expect(rows).toEqual([
      { domain: 'old-brand.com', token: expect.stringMatching(/^[0-9a-f]{32}$/), verified_at: null, checked_at: null },
      { domain: 'shop.example', token: expect.stringMatching(/^[0-9a-f]{32}$/), verified_at: null, checked_at: null },
    ]);
    expect(rows[0].token).not.toBe(rows[1].token);
  });
});

describe('round trips', () => {
  it('minting a click link still sends 2 statements: the scope, the lead check with the verified link domains', async () => {
    const owner = await signupOrganization('Mint trips');
    const leadId = await createLead(owner);
    await listDomains(owner, ['example.com']);
    await verify(owner);
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/tracking/tokens', {
        token: owner.token,
        body: { lead_id: leadId, target_url: 'https://example.com/a' },
      }),
    );
    expect(response.status).toBe(201);
    expect(statements).toHaveLength(2);
    expect((await clickStatus(response.body.data.click_url)).status).toBe(302);
  });

  it('GET sends 2 and the replace 3: the scope, one write of list and verifications, one read', async () => {
    const owner = await signupOrganization('Domain trips');
    const read = await statementsOf(() => readDomains(owner));
    expect(read.statements).toHaveLength(2);
    const replaced = await statementsOf(() => listDomains(owner, ['a.test', 'b.test']));
    expect(replaced.response.status).toBe(200);
    expect(replaced.statements).toHaveLength(3);
  });
});
