/**
 * Connecting a Twilio account checks the credentials with Twilio first (GET
 * /2010-04-01/Accounts/{AccountSid}.json, Basic auth; fetch mocked): accepted ones are stored,
 * refused ones are a 422 naming auth_token, an unknown or closed account a 422 naming account_sid,
 * Twilio down or throttling a 503 provider_unavailable with Retry-After; nothing is stored then.
 * Disconnecting erases the credentials, and never leaves a call in progress waiting forever.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { calls, connections, voiceLedger } from '../src/db/schema';
import { DISCONNECTED_DURING_CALL } from '../src/modules/voice/account';
import { twilioSignature } from '../src/providers/voice/twilio-signature';
import { call, expectFailure, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { statementsOf } from './helpers/statements';
import { mockTwilioAccount, topUp } from './helpers/voice';

const SID = `AC${'c'.repeat(32)}`;
const TOKEN = 'twilio-auth-token-verify-0001';

let admin: SignedUp;

beforeAll(async () => {
  admin = await signupOrganization('Voice connection');
});

afterEach(() => vi.restoreAllMocks());

const connect = () =>
  call('POST', '/api/voice/connection', { token: admin.token, body: { account_sid: SID, auth_token: TOKEN } });

const liveConnections = () => liveConnectionsOf(admin);

const liveConnectionsOf = (org: SignedUp) =>
  inOrganization(org.orgId, (tx) =>
    tx
      .select({ id: connections.id })
      .from(connections)
      .where(
        and(eq(connections.organizationId, org.orgId), eq(connections.kind, 'voice'), isNull(connections.deletedAt)),
      ),
  );

/**
 * A call through the connection as it is once handed to the provider: by default an agent call
 * with its hold taken (the wallet's call_hold row written too).
 */
async function openCall(
  org: SignedUp,
  connectionId: number,
  options: {
    provider?: string;
    providerCallId?: string;
    status?: 'ringing' | 'in-progress';
    createdAt?: Date;
    reservedCents?: number;
  } = {},
) {
  const { provider = 'vapi', status = 'in-progress', createdAt, reservedCents = 50 } = options;
  return inOrganization(org.orgId, async (tx) => {
    const [row] = await tx
      .insert(calls)
      .values({
        organizationId: org.orgId,
        userId: org.userId,
        direction: 'outbound',
        kind: 'agent',
        fromNumber: '+14155550100',
        toNumber: '+14155550142',
        provider,
        connectionId,
        providerCallId: options.providerCallId ?? `${provider}-${crypto.randomUUID()}`,
        status,
        startedAt: createdAt ?? new Date(),
        reservedCents,
        ...(createdAt ? { createdAt } : {}),
      })
      .returning();
    if (reservedCents > 0) {
      await tx.insert(voiceLedger).values({
        organizationId: org.orgId,
        kind: 'call_hold',
        amountCents: -reservedCents,
        callId: row.id,
        note: 'hold',
      });
    }
    return row.id;
  });
}

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

describe('DELETE /api/voice/connection', () => {
  async function connected(name: string, authToken: string) {
    const org = await signupOrganization(name);
    const twilio = mockTwilioAccount();
    const response = await call('POST', '/api/voice/connection', {
      token: org.token,
      body: {
        account_sid: SID,
        auth_token: authToken,
        vapi_api_key: `vapi-key-${authToken}`,
        vapi_phone_number_id: 'pn-1',
        vapi_webhook_secret: `vapi-secret-${authToken}`,
      },
    });
    twilio.mockRestore();
    expect(response.status, response.text).toBe(200);
    return { org, connectionId: response.body.data.id as number };
  }

  const storedConnection = (org: SignedUp, id: number) =>
    inOrganization(org.orgId, async (tx) => (await tx.select().from(connections).where(eq(connections.id, id)))[0]);

  it('erases the credentials in one statement; calls go through the simulator and the old token signs nothing', async () => {
    const authToken = 'twilio-auth-token-disconnect-0007';
    const { org, connectionId } = await connected('Voice disconnect', authToken);
    const stranger = await signupOrganization('Voice disconnect stranger');

    // Another organization's DELETE finds no connection of its own and changes nothing here.
    expectFailure(await call('DELETE', '/api/voice/connection', { token: stranger.token }), 404, 'not_found');
    expect((await storedConnection(org, connectionId)).secret).not.toBeNull();

    const { response, statements } = await statementsOf(() =>
      call('DELETE', '/api/voice/connection', { token: org.token }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ success: true, message: 'Voice account disconnected' });
    expect(response.body.data).toEqual({ id: connectionId, calls_ended: 0 });
    // The scope, then the disconnect: no BEGIN/COMMIT around one statement.
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    expect(statements.some((text) => /^\s*(begin|commit)/i.test(text))).toBe(false);

    const stored = await storedConnection(org, connectionId);
    expect(stored).toMatchObject({ secret: null, secretKeyId: null, state: 'disabled' });
    expect(stored.deletedAt).not.toBeNull();
    expectFailure(await call('GET', '/api/voice/connection', { token: org.token }), 404, 'not_found');
    const token = await call('POST', '/api/call/voice-token', { token: org.token });
    expect(token.status, token.text).toBe(200);
    expect(token.body.data.provider).toBe('local');

    // Twilio's requests signed with the erased token are refused.
    const path = `/api/v1/voice/twilio/${org.orgId}`;
    const params = { CallSid: `CA${'7'.repeat(32)}`, CallStatus: 'ringing', Direction: 'inbound' };
    const signature = await twilioSignature(authToken, `http://lead.test${path}`, Object.entries(params));
    expectFailure(
      await call('POST', path, {
        rawBody: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      }),
      403,
      'forbidden',
    );

    // Nothing left to disconnect.
    expectFailure(await call('DELETE', '/api/voice/connection', { token: org.token }), 404, 'not_found');
  });

  it('a call in progress through it is a 409 that changes nothing; force fails it and releases its hold once', async () => {
    const { org, connectionId } = await connected('Voice disconnect busy', 'twilio-auth-token-busy-0008');
    await topUp(org, 5);
    const callId = await openCall(org, connectionId);
    const wallet = async () => (await call('GET', '/api/voice/wallet', { token: org.token })).body.data;
    expect(await wallet()).toMatchObject({ balance: 4.5, held: 0.5 });

    const refused = await call('DELETE', '/api/voice/connection', { token: org.token });
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'calls_in_progress', details: { calls_in_progress: 1 } });
    expect(refused.body.error.message).toContain('force=true');
    expect((await call('GET', '/api/voice/connection', { token: org.token })).status).toBe(200);
    expect((await storedConnection(org, connectionId)).secret).not.toBeNull();

    expectFailure(
      await call('DELETE', '/api/voice/connection', { token: org.token, query: { force: 'maybe' } }),
      400,
      'bad_request',
    );

    const forced = await call('DELETE', '/api/voice/connection', { token: org.token, query: { force: 'true' } });
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.data).toEqual({ id: connectionId, calls_ended: 1 });
    const ended = await call('GET', `/api/call/${callId}`, { token: org.token });
    expect(ended.body.data).toMatchObject({ status: 'failed', price: 0, duration_sec: 0 });
    const [row] = await inOrganization(org.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, callId)));
    expect(row.failureReason).toBe(DISCONNECTED_DURING_CALL);
    expect(row.endedAt).not.toBeNull();
    expect(await wallet()).toMatchObject({ balance: 5, held: 0 });

    // Released once: one release row for the call's one hold.
    const releases = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ n: sql<number>`count(*)::int` })
        .from(voiceLedger)
        .where(and(eq(voiceLedger.callId, callId), eq(voiceLedger.kind, 'call_release'))),
    );
    expect(releases[0].n).toBe(1);
  });

  it('a call open longer than any call lasts does not hold the disconnect back, and is failed with it', async () => {
    const { org, connectionId } = await connected('Voice disconnect stale', 'twilio-auth-token-stale-0009');
    await topUp(org, 5);
    const stale = await openCall(org, connectionId, { createdAt: new Date(Date.now() - 5 * 60 * 60 * 1000) });
    const response = await call('DELETE', '/api/voice/connection', { token: org.token });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ id: connectionId, calls_ended: 1 });
    const [row] = await inOrganization(org.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, stale)));
    expect(row.status).toBe('failed');
    expect((await call('GET', '/api/voice/wallet', { token: org.token })).body.data).toMatchObject({
      balance: 5,
      held: 0,
    });
  });
});

describe('connecting again', () => {
  const OTHER_SID = `AC${'f'.repeat(32)}`;

  it('one account connected several times at once (a double click) is one live connection', async () => {
    const org = await signupOrganization('Voice double connect');
    mockTwilioAccount();
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() =>
        call('POST', '/api/voice/connection', {
          token: org.token,
          body: { account_sid: SID, auth_token: 'twilio-auth-token-double-0001' },
        }),
      ),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
    expect(await liveConnectionsOf(org)).toHaveLength(1);
  });

  it('two different accounts connected at the same moment leave one live connection', async () => {
    mockTwilioAccount();
    for (let round = 0; round < 5; round++) {
      const org = await signupOrganization(`Voice race ${round}`);
      const answers = await Promise.all(
        [SID, OTHER_SID].map((accountSid, index) =>
          call('POST', '/api/voice/connection', {
            token: org.token,
            body: { account_sid: accountSid, auth_token: `twilio-auth-token-race-000${index}` },
          }),
        ),
      );
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      expect(await liveConnectionsOf(org), `round ${round}`).toHaveLength(1);
    }
  });

  it('the same account is reconnected in place: same id, new settings, and calls through it carry on', async () => {
    const org = await signupOrganization('Voice reconnect');
    const twilio = mockTwilioAccount();
    const first = await call('POST', '/api/voice/connection', {
      token: org.token,
      body: { account_sid: SID, auth_token: 'twilio-auth-token-first-0010' },
    });
    expect(first.status, first.text).toBe(200);
    const callId = await openCall(org, first.body.data.id, {
      provider: 'twilio',
      providerCallId: `CA${'9'.repeat(32)}`,
      reservedCents: 0,
    });
    const before = (
      await inOrganization(org.orgId, (tx) =>
        tx.select().from(connections).where(eq(connections.id, first.body.data.id)),
      )
    )[0];

    // Adding Vapi to the same account: no 409 for the call in progress, which keeps its connection.
    const again = await call('POST', '/api/voice/connection', {
      token: org.token,
      body: {
        account_sid: SID,
        auth_token: 'twilio-auth-token-second-0011',
        vapi_api_key: 'vapi-key-0012',
        vapi_phone_number_id: 'pn-2',
        vapi_webhook_secret: 'vapi-secret-0013',
      },
    });
    twilio.mockRestore();
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ id: first.body.data.id, agent_calling: true });
    const [after] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, first.body.data.id)),
    );
    expect(after.deletedAt).toBeNull();
    expect(after.secret).not.toBeNull();
    expect(after.secret).not.toBe(before.secret);
    expect(await liveConnectionsOf(org)).toHaveLength(1);
    const [ongoing] = await inOrganization(org.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, callId)));
    expect(ongoing).toMatchObject({ status: 'in-progress', connectionId: first.body.data.id });

    // Twilio's report of that call, signed with the account's token, is still heard.
    const path = `/api/v1/voice/twilio/${org.orgId}`;
    const params = { CallSid: `CA${'9'.repeat(32)}`, CallStatus: 'completed', CallDuration: '42' };
    const signature = await twilioSignature(
      'twilio-auth-token-second-0011',
      `http://lead.test${path}`,
      Object.entries(params),
    );
    const report = await call('POST', path, {
      rawBody: new URLSearchParams(params).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
    expect(report.status, report.text).toBe(200);
    const [reported] = await inOrganization(org.orgId, (tx) => tx.select().from(calls).where(eq(calls.id, callId)));
    expect(reported).toMatchObject({ status: 'completed', durationSec: 42 });
  });

  it('another account replaces it: 409 while calls through the old one are in progress, unless force', async () => {
    const org = await signupOrganization('Voice replace');
    const twilio = mockTwilioAccount();
    const first = await call('POST', '/api/voice/connection', {
      token: org.token,
      body: { account_sid: SID, auth_token: 'twilio-auth-token-old-0014' },
    });
    expect(first.status, first.text).toBe(200);
    await openCall(org, first.body.data.id, {
      provider: 'twilio',
      providerCallId: `CA${'8'.repeat(32)}`,
      status: 'ringing',
      reservedCents: 0,
    });
    const body = { account_sid: OTHER_SID, auth_token: 'twilio-auth-token-new-0015' };
    const refused = await call('POST', '/api/voice/connection', { token: org.token, body });
    expectFailure(refused, 409, 'conflict');
    expect(refused.body.error).toMatchObject({ code: 'calls_in_progress', details: { calls_in_progress: 1 } });
    expect((await call('GET', '/api/voice/connection', { token: org.token })).body.data.account_sid).toBe(SID);

    const replaced = await call('POST', '/api/voice/connection', { token: org.token, body: { ...body, force: true } });
    twilio.mockRestore();
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.data.id).not.toBe(first.body.data.id);
    expect(replaced.body.data.account_sid).toBe(OTHER_SID);
    const [old] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, first.body.data.id)),
    );
    expect(old).toMatchObject({ secret: null, state: 'disabled' });
    expect(await liveConnectionsOf(org)).toHaveLength(1);
    const open = await call('GET', '/api/call/list', { token: org.token, query: { status: 'ringing' } });
    expect(open.body.total).toBe(0);
  });
});
