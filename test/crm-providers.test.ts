/**
 * The HubSpot CRM v3 adapter against its documented wire format, with the network mocked at
 * fetch: the exact requests (URL with limit, after, the explicit properties list; method;
 * Authorization) and HubSpot's documented answers replayed (account details, properties,
 * collection pages with paging.next.after), 429s waited out as Retry-After or HubSpot's
 * rate-limit headers say, and the local data set's determinism, duplicates and bad rows.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkChatCredential } from '../src/providers/chat/connect-check';
import { ProviderFailure } from '../src/providers/failures';
import { hubspotCrm, rateLimitWait } from '../src/providers/crm/hubspot';
import { localCrm } from '../src/providers/crm/local';
import { LOCAL_COMPANIES, LOCAL_CONTACTS, localContact } from '../src/providers/crm/local-data';
import { json, mockFetch } from './helpers/fetch-mock';

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
      ? { paging: { next: { after, link: `https://api.hubapi.com/crm/v3/objects/contacts?after=${after}` } } }
      : {}),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('HubSpot CRM v3 adapter', () => {
  it('proves a token with GET /account-info/v3/details: the portal is the identity', async () => {
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
        url: 'https://api.hubapi.com/account-info/v3/details',
        method: 'GET',
        authorization: `Bearer ${await token()}`,
        contentType: null,
        body: '',
      },
    ]);
  });

  it('reads properties with GET /crm/v3/properties/{type}, hidden ones left out', async () => {
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
    expect(seen[0].url).toBe('https://api.hubapi.com/crm/v3/properties/companies');
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
      'https://api.hubapi.com/crm/v3/objects/contacts?limit=100&properties=firstname%2Cemail&archived=false',
      // HubSpot pages hold at most 100 records.
      'https://api.hubapi.com/crm/v3/objects/contacts?limit=100&after=3&properties=firstname%2Clastname&archived=false',
    ]);
    expect(seen.every((request) => request.url.includes('/search'))).toBe(false);
  });

  it('waits out a 429 as Retry-After says, then asks again', async () => {
    const seen = mockFetch([
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
    ]);
    const slept: number[] = [];
    const page = await hubspotCrm(token, async (ms) => void slept.push(ms)).listPage('contacts', {
      limit: 10,
      properties: ['email'],
    });
    expect(slept).toEqual([2000]);
    expect(seen).toHaveLength(2);
    expect(page.records.map((record) => record.id)).toEqual(['9']);
  });

  it('without Retry-After, waits HubSpot’s rate-limit interval; the daily limit goes back to the queue', async () => {
    const burst = new Headers({
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
      'x-hubspot-ratelimit-max': '100',
      'x-hubspot-ratelimit-remaining': '0',
    });
    expect(rateLimitWait(burst)).toBe(10);
    mockFetch([
      json(429, { status: 'error', policyName: 'TEN_SECONDLY_ROLLING' }, Object.fromEntries(burst)),
      json(200, contactsPage(['4'], null)),
    ]);
    const slept: number[] = [];
    await hubspotCrm(token, async (ms) => void slept.push(ms)).listPage('contacts', {
      limit: 10,
      properties: ['email'],
    });
    expect(slept).toEqual([10_000]);

    vi.restoreAllMocks();
    mockFetch([
      json(
        429,
        { status: 'error', policyName: 'DAILY' },
        { 'x-hubspot-ratelimit-daily': '250000', 'x-hubspot-ratelimit-daily-remaining': '0' },
      ),
    ]);
    const error = await hubspotCrm(token, async () => {
      throw new Error('must not sleep an hour inside a delivery');
    })
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
