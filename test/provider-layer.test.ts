/**
 * The provider layer's core, generic across kinds: sealed credentials (no plaintext at rest, key
 * rotation, another organization's ciphertext does not open), the meaning of provider failures,
 * and OAuth refresh (once under concurrency, invalid_grant → needs_reconnect and one notice).
 * The network is mocked at fetch; the database is the real one.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { connections, notifications } from '../src/db/schema';
import { readConfig } from '../src/env';
import { poolWriter, RECONNECT_NOTICE_TYPE, sealCredentials } from '../src/providers/connections';
import { jobHandlers } from '../src/jobs/dispatch';
import {
  ConnectionNeedsReconnect,
  failureOf,
  PROVIDER_TIMEOUT_MS,
  ProviderFailure,
  providerFetch,
  retryAfterSeconds,
} from '../src/providers/failures';
import { accessToken } from '../src/providers/oauth';
import { keyringOf, openSecret, sealSecret, SecretUnreadable } from '../src/providers/secrets';
import { signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';

let org: SignedUp;

beforeAll(async () => {
  org = await signupOrganization('Providers');
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function insertGmailConnection(options: { expired: boolean; refreshToken?: string | null }) {
  const sealed = await sealCredentials(env, org.orgId, {
    access_token: 'ya29.stale-access-token',
    refresh_token: options.refreshToken === undefined ? '1//refresh-token-secret' : options.refreshToken,
  });
  const [row] = await inOrganization(org.orgId, (tx) =>
    tx
      .insert(connections)
      .values({
        organizationId: org.orgId,
        kind: 'mail',
        provider: 'gmail',
        identity: `${crypto.randomUUID().slice(0, 8)}@example.com`,
        ownerId: org.userId,
        ...sealed,
        tokenExpiresAt: new Date(Date.now() + (options.expired ? -60_000 : 3_600_000)),
      })
      .returning(),
  );
  return row;
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

describe('sealed credentials', () => {
  it('seals with a key id, opens with the same organization only, and keeps no plaintext', async () => {
    const keyring = await keyringOf(env);
    const { sealed, keyId } = await sealSecret(keyring, 7, { password: 'hunter2-smtp-password' });
    expect(sealed.startsWith(`v1.${keyId}.`)).toBe(true);
    expect(sealed).not.toContain('hunter2');
    expect(atob(sealed.split('.')[3].replace(/-/g, '+').replace(/_/g, '/'))).not.toContain('hunter2');
    await expect(openSecret(keyring, 7, sealed)).resolves.toEqual({ password: 'hunter2-smtp-password' });
    await expect(openSecret(keyring, 8, sealed)).rejects.toBeInstanceOf(SecretUnreadable);
  });

  it('rotates: a value sealed under the previous key still opens, new values use the new key', async () => {
    const old = await keyringOf({ CREDENTIALS_KEY: 'the-old-credentials-key-of-32-bytes-or-more' });
    const { sealed } = await sealSecret(old, 1, { access_token: 'a' });
    const rotated = await keyringOf({
      CREDENTIALS_KEY: 'the-new-credentials-key-of-32-bytes-or-more',
      CREDENTIALS_KEYS_PREVIOUS: 'the-old-credentials-key-of-32-bytes-or-more',
    });
    await expect(openSecret(rotated, 1, sealed)).resolves.toEqual({ access_token: 'a' });
    expect((await sealSecret(rotated, 1, {})).keyId).toBe(rotated.current.id);
    expect(rotated.current.id).not.toBe(old.current.id);
    const withoutOld = await keyringOf({ CREDENTIALS_KEY: 'the-new-credentials-key-of-32-bytes-or-more' });
    await expect(openSecret(withoutOld, 1, sealed)).rejects.toThrow(/not configured/);
  });

  it('refuses to work without a usable key, and logs why without any secret', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => keyringOf({})).toThrow(/no credentials key/);
    expect(() => keyringOf({ CREDENTIALS_KEY: 'short' })).toThrow(/no credentials key/);
    expect(log.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/CREDENTIALS_KEY is not set/);
    expect(log.mock.calls.map((call) => String(call[0])).join('\n')).not.toContain('short"');
  });
});

describe('provider failures', () => {
  it('429 and 5xx are temporary with Retry-After; 401/403 are auth; the body is never kept', async () => {
    const throttled = await failureOf(
      'gmail',
      jsonResponse(429, { error: { message: 'secret-body-text' } }, { 'retry-after': '12' }),
      'send',
    );
    expect(throttled).toMatchObject({ kind: 'unavailable', status: 429, retryAfterSeconds: 12 });
    expect(throttled.message).not.toContain('secret-body-text');
    expect((await failureOf('gmail', new Response('x', { status: 503 }), 'send')).kind).toBe('unavailable');
    expect((await failureOf('gmail', new Response('x', { status: 401 }), 'send')).kind).toBe('auth');
    expect((await failureOf('gmail', new Response('x', { status: 403 }), 'send')).kind).toBe('auth');
    expect((await failureOf('gmail', new Response('x', { status: 404 }), 'message')).kind).toBe('not_found');
    expect((await failureOf('gmail', new Response('x', { status: 400 }), 'send')).kind).toBe('rejected');
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT'))).toBe(60);
    expect(retryAfterSeconds('soon')).toBe(30);
  });
});

describe('a provider that never answers', () => {
  /** fetch as a provider that accepts the request and never answers: it ends only when aborted. */
  const silentProvider = () => {
    const calls: AbortSignal[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(
      (_input, init) =>
        new Promise((_resolve, reject) => {
          const signal = init?.signal as AbortSignal;
          calls.push(signal);
          signal.addEventListener('abort', () => reject(new DOMException('The operation was aborted', 'AbortError')));
        }),
    );
    return calls;
  };

  it('is given up on after PROVIDER_TIMEOUT_MS as a temporary failure (retried), not waited on for ever', async () => {
    const calls = silentProvider();
    vi.useFakeTimers();
    try {
      const answer = providerFetch('vapi', 'https://api.vapi.ai/call', { method: 'POST' });
      const failure = answer.catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(PROVIDER_TIMEOUT_MS - 1);
      expect(calls[0].aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await failure;
      expect(error).toBeInstanceOf(ProviderFailure);
      expect(error).toMatchObject({
        kind: 'unavailable',
        provider: 'vapi',
        status: null,
        reason: `vapi did not answer within ${PROVIDER_TIMEOUT_MS / 1000} s; try again later`,
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops waiting well inside every job’s lease, so no delivery still waits on a provider when another takes the job over', () => {
    for (const [kind, handler] of Object.entries(jobHandlers)) {
      expect(handler.leaseSeconds * 1000, kind).toBeGreaterThanOrEqual(2 * PROVIDER_TIMEOUT_MS);
    }
  });

  it('an answer in time is passed on, and the deadline no longer runs once it came', async () => {
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (_input, init) => {
      const signal = init?.signal as AbortSignal;
      return new Response(JSON.stringify({ aborted: signal.aborted }), { status: 200 });
    });
    const response = await providerFetch('hubspot', 'https://api.hubapi.com/x', {}, 20);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await response.json()).toEqual({ aborted: false });
  });
});

describe('OAuth refresh', () => {
  function withWriter<T>(work: (writer: ReturnType<typeof poolWriter>) => Promise<T>) {
    return withOwnDatabase(readConfig(env), (db) => work(poolWriter(db)));
  }

  it('uses a fresh token as stored, without calling the token endpoint', async () => {
    const connection = await insertGmailConnection({ expired: false });
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const token = await withWriter((writer) => accessToken({ env, writer }, connection, 'google'));
    expect(token).toBe('ya29.stale-access-token');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('refreshes an expired token once for concurrent callers, at Google’s token endpoint, and stores it sealed', async () => {
    const connection = await insertGmailConnection({ expired: true });
    const requests: { url: string; body: string }[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      requests.push({ url: request.url, body: new TextDecoder().decode(await request.arrayBuffer()) });
      return jsonResponse(200, { access_token: 'ya29.fresh-token', expires_in: 3599, token_type: 'Bearer' });
    });
    const tokens = await withWriter((writer) =>
      Promise.all([1, 2, 3].map(() => accessToken({ env, writer }, connection, 'google'))),
    );
    expect(tokens).toEqual(['ya29.fresh-token', 'ya29.fresh-token', 'ya29.fresh-token']);
    expect(requests).toHaveLength(1);
    expect(requests[0].url).toBe('https://oauth2.googleapis.com/token');
    const form = new URLSearchParams(requests[0].body);
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: '1//refresh-token-secret',
      client_id: 'test-google-client',
      client_secret: 'test-google-client-secret',
    });
    // A caller still holding the stale row (another isolate) waits on the lock and takes the stored token.
    const again = await withWriter((writer) => accessToken({ env, writer }, connection, 'google'));
    expect(again).toBe('ya29.fresh-token');
    expect(requests).toHaveLength(1);
    const [stored] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, connection.id)),
    );
    expect(stored.secret).not.toContain('ya29');
    expect(stored.secret).not.toContain('refresh-token-secret');
    expect(JSON.stringify(stored)).not.toContain('fresh-token');
    expect(stored.tokenExpiresAt?.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('invalid_grant marks the connection needs_reconnect and notifies its owner once', async () => {
    const connection = await insertGmailConnection({ expired: true });
    vi.spyOn(globalThis, 'fetch').mockImplementation(async () =>
      jsonResponse(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
    );
    const log = vi.spyOn(console, 'error');
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(withWriter((writer) => accessToken({ env, writer }, connection, 'google'))).rejects.toBeInstanceOf(
        ConnectionNeedsReconnect,
      );
    }
    const [stored] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(connections).where(eq(connections.id, connection.id)),
    );
    expect(stored.state).toBe('needs_reconnect');
    expect(stored.lastError).toMatch(/invalid_grant/);
    const notices = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, org.userId), eq(notifications.typeId, RECONNECT_NOTICE_TYPE))),
    );
    expect(notices.filter((notice) => notice.data.connection_id === connection.id)).toHaveLength(1);
    expect(log.mock.calls.map((call) => String(call[0])).join('\n')).not.toContain('refresh-token-secret');
  });

  it('a token that expired without a refresh token needs a reconnect', async () => {
    const connection = await insertGmailConnection({ expired: true, refreshToken: null });
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    await expect(withWriter((writer) => accessToken({ env, writer }, connection, 'google'))).rejects.toBeInstanceOf(
      ConnectionNeedsReconnect,
    );
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
