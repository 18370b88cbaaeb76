/**
 * The HubSpot CRM adapter (2026-03 APIs) against its documented wire format, with the network mocked at
 * fetch: the exact requests (URL with limit, after, the explicit properties list; method;
 * Authorization) and HubSpot's documented answers replayed (account details, properties,
 * collection pages with paging.next.after), a 429 failed at once with the wait Retry-After or
 * HubSpot's rate-limit headers say (never slept on), an OAuth connection's access token renewed
 * at HubSpot's token endpoint (invalid_grant: needs_reconnect), and the local data set's
 * determinism, duplicates and bad rows.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { connections, notifications } from '../src/db/schema';
import { readConfig } from '../src/env';
import { checkChatCredential } from '../src/providers/chat/connect-check';
import { openCredentials, poolWriter, RECONNECT_NOTICE_TYPE, sealCredentials } from '../src/providers/connections';
import { crmProviderFor } from '../src/providers/crm/select';
import { ConnectionNeedsReconnect, PROVIDER_TIMEOUT_MS, ProviderFailure } from '../src/providers/failures';
import { hubspotCrm, rateLimitWait } from '../src/providers/crm/hubspot';
import { localCrm } from '../src/providers/crm/local';
import { LOCAL_COMPANIES, LOCAL_CONTACTS, localContact } from '../src/providers/crm/local-data';
import { signupOrganization, type SignedUp } from './helpers/api';
import { json, mockFetch } from './helpers/fetch-mock';
import { inOrganization } from './helpers/leads';

const token = async () => 'pat-na1-11111111-2222-3333-4444-555555555555';

/** A page as HubSpot documents CollectionResponseSimplePublicObjectWithAssociationsForwardPaging. */
function contactsPage(ids: string[], after: string | null) {
  return {
    results: ids.map((id) => ({
      id,
      properties: {
        createdate: '2025-03-15T14:30:00Z',
        email: `person${id}@example.com`,
        firstname: `First${id}`,
        hs_object_id: id,
        lastmodifieddate: '2025-03-16T10:00:00Z',
      },
      createdAt: '2025-03-15T14:30:00Z',
      updatedAt: '2025-03-16T10:00:00Z',
      archived: false,
    })),
    ...(after
      ? { paging: { next: { after, link: `https://api.hubapi.com/crm/objects/2026-03/contacts?after=${after}` } } }
      : {}),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('HubSpot CRM adapter (2026-03 APIs)', () => {
  it('proves a token with GET /account-info/2026-03/details: the portal is the identity', async () => {
    const seen = mockFetch([
      json(200, {
        portalId: 62515,
        accountType: 'STANDARD',
        timeZone: 'US/Eastern',
        companyCurrency: 'USD',
        uiDomain: 'app.hubspot.com',
        dataHostingLocation: 'na1',
      }),
    ]);
    expect(await hubspotCrm(token).verify()).toEqual({ identity: 'portal 62515', displayName: 'app.hubspot.com' });
    expect(seen).toEqual([
      {
        url: 'https://api.hubapi.com/account-info/2026-03/details',
        method: 'GET',
        authorization: `Bearer ${await token()}`,
        contentType: null,
        body: '',
      },
    ]);
  });

  it('reads properties with GET /crm/properties/2026-03/{type}, hidden ones left out', async () => {
    const seen = mockFetch([
      json(200, {
        results: [
          {
            name: 'firstname',
            label: 'First Name',
            type: 'string',
            fieldType: 'text',
            groupName: 'contactinformation',
            hidden: false,
            options: [],
          },
          {
            name: 'hs_lead_status',
            label: 'Lead Status',
            type: 'enumeration',
            fieldType: 'radio',
            groupName: 'sales_properties',
            hidden: false,
            options: [{ label: 'New', value: 'NEW' }],
          },
          { name: 'hs_internal', label: 'Internal', type: 'string', fieldType: 'text', groupName: 'x', hidden: true },
        ],
      }),
    ]);
    expect(await hubspotCrm(token).properties('companies')).toEqual([
      { name: 'firstname', label: 'First Name', type: 'string' },
      { name: 'hs_lead_status', label: 'Lead Status', type: 'enumeration' },
    ]);
    expect(seen[0].url).toBe('https://api.hubapi.com/crm/properties/2026-03/companies');
    expect(seen[0].method).toBe('GET');
  });

  it('lists objects with limit, after and an explicit properties list, paging by paging.next.after', async () => {
    const seen = mockFetch([json(200, contactsPage(['1', '2'], '3')), json(200, contactsPage(['3'], null))]);
    const crm = hubspotCrm(token);
    const first = await crm.listPage('contacts', { limit: 100, properties: ['firstname', 'email'] });
    expect(first).toEqual({
      records: [
        {
          id: '1',
          properties: { firstname: 'First1', email: 'person1@example.com' },
          updatedAt: '2025-03-16T10:00:00Z',
        },
        {
          id: '2',
          properties: { firstname: 'First2', email: 'person2@example.com' },
          updatedAt: '2025-03-16T10:00:00Z',
        },
      ],
      next: '3',
      total: null,
    });
    const last = await crm.listPage('contacts', {
      after: first.next,
      limit: 250,
      properties: ['firstname', 'lastname'],
    });
    expect(last.next).toBeNull();
    expect(last.records[0].properties).toEqual({ firstname: 'First3', lastname: null });
    expect(seen.map((request) => request.url)).toEqual([
      'https://api.hubapi.com/crm/objects/2026-03/contacts?limit=100&properties=firstname%2Cemail&archived=false',
      // HubSpot pages hold at most 100 records.
      'https://api.hubapi.com/crm/objects/2026-03/contacts?limit=100&after=3&properties=firstname%2Clastname&archived=false',
    ]);
    expect(seen.every((request) => request.url.includes('/search'))).toBe(false);
  });

  it('fails a 429 at once with Retry-After’s wait, asking once and never sleeping', async () => {
    const seen = mockFetch(
      [
        json(
          429,
          {
            status: 'error',
            message: 'You have reached your secondly limit.',
            errorType: 'RATE_LIMIT',
            policyName: 'SECONDLY',
          },
          { 'retry-after': '2' },
        ),
        json(200, contactsPage(['9'], null)),
      ],
      { exhausted: 'throw' },
    );
    const timer = vi.spyOn(globalThis, 'setTimeout');
    const error = await hubspotCrm(token)
      .listPage('contacts', { limit: 10, properties: ['email'] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderFailure);
    expect(error).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 2 });
    expect(error.reason).toBe('hubspot is rate limiting (429 on contacts); try again later');
    expect(seen).toHaveLength(1);
    // No sleep: the one timer is the call's own deadline (providerFetch), cleared when HubSpot answered.
    expect(timer.mock.calls.map(([, ms]) => ms)).toEqual([PROVIDER_TIMEOUT_MS]);
  });

  it('without Retry-After, the wait is HubSpot’s rate-limit interval, or an hour for the daily limit', async () => {
    const burst = new Headers({
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
      'x-hubspot-ratelimit-max': '100',
      'x-hubspot-ratelimit-remaining': '0',
    });
    expect(rateLimitWait(burst)).toBe(10);
    const seen = mockFetch([
      json(429, { status: 'error', policyName: 'TEN_SECONDLY_ROLLING' }, Object.fromEntries(burst)),
      json(200, contactsPage(['4'], null)),
    ]);
    const throttled = await hubspotCrm(token)
      .listPage('contacts', { limit: 10, properties: ['email'] })
      .catch((caught) => caught);
    expect(throttled).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 10 });
    expect(seen).toHaveLength(1);

    vi.restoreAllMocks();
    mockFetch([
      json(
        429,
        { status: 'error', policyName: 'DAILY' },
        { 'x-hubspot-ratelimit-daily': '250000', 'x-hubspot-ratelimit-daily-remaining': '0' },
      ),
    ]);
    const error = await hubspotCrm(token)
      .listPage('contacts', { limit: 10, properties: ['email'] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderFailure);
    expect(error).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 3600 });
  });

  it('a refused token is an auth failure without HubSpot’s body', async () => {
    mockFetch([
      json(401, {
        status: 'error',
        message: 'Authentication credentials not found. secret-detail',
        category: 'INVALID_AUTHENTICATION',
      }),
    ]);
    const error = await hubspotCrm(token)
      .verify()
      .catch((caught) => caught);
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(String(error.reason)).not.toContain('secret-detail');
  });
});

describe('HubSpot OAuth connections', () => {
  const withWriter = <T>(work: (writer: ReturnType<typeof poolWriter>) => Promise<T>) =>
    withOwnDatabase(readConfig(env), (db) => work(poolWriter(db)));

  async function oauthConnection(org: SignedUp, expiresInMs: number) {
    const sealed = await sealCredentials(env, org.orgId, {
      access_token: 'hs-stale-access',
      refresh_token: 'hs-refresh-5e0f-secret',
    });
    const [row] = await inOrganization(org.orgId, (tx) =>
      tx
        .insert(connections)
        .values({
          organizationId: org.orgId,
          kind: 'crm',
          provider: 'hubspot',
          identity: `portal ${Math.floor(Math.random() * 1e9)}`,
          ownerId: org.userId,
          ...sealed,
          tokenExpiresAt: new Date(Date.now() + expiresInMs),
        })
        .returning(),
    );
    return row;
  }

  const readRow = (org: SignedUp, id: number) =>
    inOrganization(org.orgId, async (tx) => (await tx.select().from(connections).where(eq(connections.id, id)))[0]);

  const propertiesAnswer = () =>
    json(200, {
      results: [{ name: 'email', label: 'Email', type: 'string', fieldType: 'text', hidden: false }],
    });

  it('renews an expired access token with POST /oauth/2026-03/token (refresh_token grant, form-encoded body, nothing in the URL), seals it, and reads with it', async () => {
    const org = await signupOrganization('HubSpot OAuth refresh');
    const connection = await oauthConnection(org, -60_000);
    const seen = mockFetch(
      [
        // HubSpot's documented answer to a refresh (2026-03 OAuth API, "Refresh an access token").
        json(200, {
          access_token: 'CJSP5qf1KhICAQEYs-gDIIGOBii1',
          expires_in: 1800,
          refresh_token: 'hs-refresh-5e0f-secret',
          token_type: 'bearer',
          token_use: 'access_token',
          hub_id: 62515,
          user_id: 123,
          scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.companies.read'],
        }),
        propertiesAnswer(),
        propertiesAnswer(),
      ],
      { exhausted: 'throw' },
    );
    const properties = await withWriter(async (writer) => {
      const crm = crmProviderFor({ env, writer }, connection);
      const first = await crm.properties('contacts');
      // Kept while fresh: the next call asks the token endpoint nothing.
      await crm.properties('companies');
      return first;
    });
    expect(properties.map((property) => property.name)).toEqual(['email']);
    // The client id, secret and refresh token go in the form body only, never in the URL.
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST https://api.hubapi.com/oauth/2026-03/token',
      'GET https://api.hubapi.com/crm/properties/2026-03/contacts',
      'GET https://api.hubapi.com/crm/properties/2026-03/companies',
    ]);
    expect(seen[0].contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(seen[0].body))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'hs-refresh-5e0f-secret',
      client_id: 'test-hubspot-client',
      client_secret: 'test-hubspot-client-secret',
    });
    expect(seen[0].authorization).toBeNull();
    expect(seen[1].authorization).toBe('Bearer CJSP5qf1KhICAQEYs-gDIIGOBii1');
    expect(seen[2].authorization).toBe('Bearer CJSP5qf1KhICAQEYs-gDIIGOBii1');

    const stored = await readRow(org, connection.id);
    expect(stored.state).toBe('active');
    expect(JSON.stringify(stored)).not.toContain('CJSP5qf1');
    expect(JSON.stringify(stored)).not.toContain('hs-refresh');
    expect(await openCredentials(env, stored)).toEqual({
      access_token: 'CJSP5qf1KhICAQEYs-gDIIGOBii1',
      refresh_token: 'hs-refresh-5e0f-secret',
    });
    // HubSpot's 30 minutes, from its expires_in.
    const expiresIn = (stored.tokenExpiresAt?.getTime() ?? 0) - Date.now();
    expect(expiresIn).toBeGreaterThan(1_700_000);
    expect(expiresIn).toBeLessThanOrEqual(1_800_000);
  });

  it('uses a fresh OAuth token as stored; a private app token (no expiry) is never renewed', async () => {
    const org = await signupOrganization('HubSpot OAuth fresh');
    const fresh = await oauthConnection(org, 20 * 60_000);
    const seen = mockFetch([propertiesAnswer()]);
    await withWriter((writer) => crmProviderFor({ env, writer }, fresh).properties('contacts'));
    const privateApp = await oauthConnection(org, 0);
    await inOrganization(org.orgId, (tx) =>
      tx.update(connections).set({ tokenExpiresAt: null }).where(eq(connections.id, privateApp.id)),
    );
    await withWriter(async (writer) =>
      crmProviderFor({ env, writer }, { ...privateApp, tokenExpiresAt: null }).properties('contacts'),
    );
    expect(seen.map((request) => request.url)).toEqual([
      'https://api.hubapi.com/crm/properties/2026-03/contacts',
      'https://api.hubapi.com/crm/properties/2026-03/contacts',
    ]);
    expect(seen.every((request) => request.authorization === 'Bearer hs-stale-access')).toBe(true);
  });

  it('a refresh token HubSpot refuses (400 invalid_grant with its BAD_REFRESH_TOKEN status, or either alone) marks the connection needs_reconnect, its owner told once', async () => {
    const org = await signupOrganization('HubSpot OAuth revoked');
    for (const refusal of [
      // HubSpot's standardized OAuth error: RFC 6749's fields and its own older ones beside them.
      {
        error: 'invalid_grant',
        error_description: 'refresh token is invalid, expired or revoked',
        status: 'BAD_REFRESH_TOKEN',
        message: 'refresh token is invalid, expired or revoked',
      },
      { status: 'BAD_REFRESH_TOKEN', message: 'missing or invalid refresh token', correlationId: 'c0ffee' },
      { error: 'invalid_grant', error_description: 'refresh token is invalid, expired or revoked' },
    ]) {
      const connection = await oauthConnection(org, -60_000);
      const seen = mockFetch([json(400, refusal)]);
      const log = vi.spyOn(console, 'error');
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await withWriter((writer) =>
          crmProviderFor({ env, writer }, connection).properties('contacts'),
        ).catch((caught) => caught);
        expect(error).toBeInstanceOf(ConnectionNeedsReconnect);
      }
      // Marked on the first refusal: the second finds the mark and asks HubSpot nothing.
      expect(seen.map((request) => request.url)).toEqual(['https://api.hubapi.com/oauth/2026-03/token']);
      const stored = await readRow(org, connection.id);
      expect(stored.state).toBe('needs_reconnect');
      expect(stored.lastError).toMatch(/invalid_grant/);
      const notices = await inOrganization(org.orgId, (tx) =>
        tx
          .select()
          .from(notifications)
          .where(and(eq(notifications.userId, org.userId), eq(notifications.typeId, RECONNECT_NOTICE_TYPE))),
      );
      expect(notices.filter((notice) => notice.data.connection_id === connection.id)).toHaveLength(1);
      expect(log.mock.calls.map((call) => String(call[0])).join('\n')).not.toContain('hs-refresh');
      vi.restoreAllMocks();
    }
  });

  it('another refusal in HubSpot’s standard error shape fails the call naming its category, and leaves the grant alone', async () => {
    const org = await signupOrganization('HubSpot OAuth validation error');
    const connection = await oauthConnection(org, -60_000);
    // The token endpoint's documented error: HubSpot's standard shape, without an OAuth `error`.
    const seen = mockFetch([
      json(400, {
        message: 'Invalid input (details will vary based on the error)',
        correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
        category: 'VALIDATION_ERROR',
        links: { 'knowledge-base': 'https://www.hubspot.com/products/service/knowledge-base' },
      }),
    ]);
    const error = await withWriter((writer) =>
      crmProviderFor({ env, writer }, connection).properties('contacts'),
    ).catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderFailure);
    expect(error).toMatchObject({
      kind: 'rejected',
      provider: 'hubspot',
      status: 400,
      reason: 'hubspot refused the token refresh (VALIDATION_ERROR)',
    });
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST https://api.hubapi.com/oauth/2026-03/token',
    ]);
    // Not the user's grant: the connection stays active, nobody is told to reconnect.
    const stored = await readRow(org, connection.id);
    expect(stored.state).toBe('active');
    expect(await openCredentials(env, stored)).toEqual({
      access_token: 'hs-stale-access',
      refresh_token: 'hs-refresh-5e0f-secret',
    });
  });
});

describe('team-chat credential checks', () => {
  it('chat_a: POST auth.test with the bot token; ok:false invalid_auth is an auth failure', async () => {
    const seen = mockFetch([
      json(200, {
        ok: true,
        url: 'https://acme.slack.com/',
        team: 'Acme',
        user: 'leadbot',
        team_id: 'T12345',
        user_id: 'U1',
        bot_id: 'B1',
      }),
      json(200, { ok: false, error: 'invalid_auth' }),
    ]);
    expect(await checkChatCredential('chat_a', 'xoxb-1')).toEqual({ identity: 'T12345', displayName: 'Acme' });
    expect(seen[0]).toEqual({
      url: 'https://slack.com/api/auth.test',
      method: 'POST',
      authorization: 'Bearer xoxb-1',
      contentType: 'application/x-www-form-urlencoded',
      body: '',
    });
    await expect(checkChatCredential('chat_a', 'xoxb-2')).rejects.toMatchObject({ kind: 'auth' });
  });

  it('chat_b: GET Graph /me', async () => {
    const seen = mockFetch([json(200, { id: 'u1', displayName: 'Ada', userPrincipalName: 'ada@contoso.com' })]);
    expect(await checkChatCredential('chat_b', 'graph-token')).toEqual({
      identity: 'ada@contoso.com',
      displayName: 'Ada',
    });
    expect(seen[0].url).toBe('https://graph.microsoft.com/v1.0/me');
  });
});

describe('the local CRM data set', () => {
  it('is the same on every read: a few thousand records, paged by cursor', async () => {
    const crm = localCrm();
    const first = await crm.listPage('contacts', { limit: 100, properties: ['email', 'firstname'] });
    const again = await localCrm().listPage('contacts', { limit: 100, properties: ['email', 'firstname'] });
    expect(first).toEqual(again);
    expect(first.total).toBe(LOCAL_CONTACTS);
    expect(first.next).toBe('100');
    const companies = await crm.listPage('companies', { after: '500', limit: 100, properties: ['name'] });
    expect(companies.total).toBe(LOCAL_COMPANIES);
    expect(companies.records).toHaveLength(100);
    expect(companies.next).toBeNull();
    expect(LOCAL_CONTACTS + LOCAL_COMPANIES).toBeGreaterThan(3000);
  });

  it('holds duplicates and bad rows on purpose', () => {
    expect(localContact(30).properties.email).toBe(String(localContact(29).properties.email).toUpperCase());
    expect(localContact(45).properties.linkedin_url).toBe(localContact(43).properties.linkedin_url);
    expect(localContact(53).properties.email).toBe('not-an-email');
    expect(localContact(71).properties.lastname).toBeNull();
  });
});
