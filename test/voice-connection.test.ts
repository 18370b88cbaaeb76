/**
 * Connecting a Twilio account checks the credentials with Twilio first (GET
 * /2010-04-01/Accounts/{AccountSid}.json, Basic auth; fetch mocked): accepted ones are stored,
 * refused ones are a 422 naming auth_token, an unknown or closed account a 422 naming account_sid,
 * Twilio down or throttling a 503 provider_unavailable with Retry-After; nothing is stored then.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connections } from '../src/db/schema';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { mockTwilioAccount } from './helpers/voice';

const SID = `AC${'c'.repeat(32)}`;
const TOKEN = 'twilio-auth-token-verify-0001';

let admin: SignedUp;

beforeAll(async () => {
  admin = await signupOrganization('Voice connection');
});

afterEach(() => vi.restoreAllMocks());

const connect = () =>
  call('POST', '/api/voice/connection', { token: admin.token, body: { account_sid: SID, auth_token: TOKEN } });

const liveConnections = () =>
  inOrganization(admin.orgId, (tx) =>
    tx
      .select({ id: connections.id })
      .from(connections)
      .where(
        and(eq(connections.organizationId, admin.orgId), eq(connections.kind, 'voice'), isNull(connections.deletedAt)),
      ),
  );

describe('connecting a Twilio account', () => {
  it('reads the Account resource with Basic auth before storing the credentials', async () => {
    const fetched = mockTwilioAccount(() =>
      Response.json({ sid: SID, friendly_name: 'Acme', status: 'active', type: 'Full' }),
    );
    const response = await connect();
    expect(response.status, response.text).toBe(200);
    const twilioCalls = fetched.mock.calls.filter(([input]) => String(input).startsWith('https://api.twilio.com/'));
    expect(twilioCalls).toHaveLength(1);
    const request = new Request(twilioCalls[0][0] as string, twilioCalls[0][1] as RequestInit);
    expect(request.method).toBe('GET');
    expect(request.url).toBe(`https://api.twilio.com/2010-04-01/Accounts/${SID}.json`);
    expect(request.headers.get('authorization')).toBe(`Basic ${btoa(`${SID}:${TOKEN}`)}`);
    expect(await liveConnections()).toHaveLength(1);
  });

  it('refused credentials (401) are a 422 naming auth_token, and nothing is stored', async () => {
    const fresh = await signupOrganization('Voice refused');
    mockTwilioAccount(() => Response.json({ code: 20003, message: 'Authenticate', status: 401 }, { status: 401 }));
    const response = await call('POST', '/api/voice/connection', {
      token: fresh.token,
      body: { account_sid: SID, auth_token: 'wrong' },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('auth_token');
    expect(response.text).not.toContain('Authenticate');
    const stored = await inOrganization(fresh.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.organizationId, fresh.orgId)),
    );
    expect(stored).toEqual([]);
  });

  it('an unknown or closed account is a 422 naming account_sid, and the old connection stays', async () => {
    const before = await liveConnections();
    mockTwilioAccount(() => Response.json({ status: 404 }, { status: 404 }));
    const unknown = await connect();
    expectFailure(unknown, 422, 'validation_error');
    expect(unknown.body.error.code).toBe('account_sid');
    vi.restoreAllMocks();
    mockTwilioAccount(() => Response.json({ sid: SID, status: 'closed' }));
    const closed = await connect();
    expectFailure(closed, 422, 'validation_error');
    expect(closed.body.error.code).toBe('account_sid');
    expect(closed.body.error.message).toContain('closed');
    expect(await liveConnections()).toEqual(before);
  });

  it('Twilio down or throttling is a 503 provider_unavailable with Retry-After; nothing changes', async () => {
    const before = await liveConnections();
    mockTwilioAccount(() => new Response('busy', { status: 503, headers: { 'retry-after': '7' } }));
    const down = await connect();
    expectFailure(down, 503, 'service_unavailable');
    expect(down.body.error.code).toBe('provider_unavailable');
    expect(down.headers.get('retry-after')).toBe('7');
    vi.restoreAllMocks();
    mockTwilioAccount(() => new Response('slow down', { status: 429 }));
    const throttled = await connect();
    expectFailure(throttled, 503, 'service_unavailable');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await liveConnections()).toEqual(before);
  });
});

describe('GET /api/voice/connection', () => {
  it('answers the live connection as connecting did, never a secret; 404 without one, and for another organization', async () => {
    const owner = await signupOrganization('Voice connection read');
    const none = await call('GET', '/api/voice/connection', { token: owner.token });
    expectFailure(none, 404, 'not_found');
    expect(none.body.error.message).toContain('local simulator');

    mockTwilioAccount(() => Response.json({ sid: SID, friendly_name: 'Acme', status: 'active', type: 'Full' }));
    const secrets = {
      auth_token: 'twilio-auth-token-read-0002',
      api_key_sid: `SK${'d'.repeat(32)}`,
      api_key_secret: 'twilio-api-key-secret-read-0003',
      twiml_app_sid: `AP${'e'.repeat(32)}`,
      vapi_api_key: 'vapi-key-read-0004',
      vapi_phone_number_id: 'vapi-number-0005',
      vapi_webhook_secret: 'vapi-webhook-secret-read-0006',
    };
    const connected = await call('POST', '/api/voice/connection', {
      token: owner.token,
      body: { account_sid: SID, ...secrets },
    });
    expect(connected.status, connected.text).toBe(200);
    vi.restoreAllMocks();

    const read = await call('GET', '/api/voice/connection', { token: owner.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toEqual(connected.body.data);
    expect(read.body.data).toMatchObject({ account_sid: SID, browser_calling: true, agent_calling: true });
    for (const [field, secret] of Object.entries(secrets)) {
      if (field.endsWith('_sid') || field === 'vapi_phone_number_id') continue;
      expect(read.text, field).not.toContain(secret);
    }

    // Another organization without a connection: 404, nothing of this one's.
    const stranger = await signupOrganization('Voice connection stranger');
    const theirs = await call('GET', '/api/voice/connection', { token: stranger.token });
    expectFailure(theirs, 404, 'not_found');
    expect(theirs.text).not.toContain(SID);
  });
});
