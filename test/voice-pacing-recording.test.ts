/**
 * Two promises of the calling issue, end to end on the local simulator:
 *   - the provider's calls per second (Twilio: 1 per account): each queued call gets a dialling
 *     turn a second after the organization's latest (even one already dialled), and the voice job
 *     defers a call whose turn is more than a few seconds away to its turn without dialling (a
 *     snooze: no queue retry spent; test/voice-campaign.test.ts runs a whole campaign);
 *   - a completed agent call's recording is in R2, its link downloads WAV audio through the app,
 *     and an expired or altered link is refused.
 */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { base64url } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { calls, storedFiles } from '../src/db/schema';
import { trackingSecrets } from '../src/modules/tracking';
import { recordingLink, RECORDING_LINK_SECONDS } from '../src/modules/voice/recording-link';
import { call, fetchWorker, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { deliverJobs, requestRecordingJobs } from './helpers/mail';
import { callRow, leadWithPhone, setCall, topUp } from './helpers/voice';

let org: SignedUp;
let leadId: number;

beforeAll(async () => {
  org = await signupOrganization('Pacing');
  await topUp(org, 50);
  leadId = await leadWithPhone(org, '+14155550142');
});

const initiate = () =>
  requestRecordingJobs('POST', '/api/call/agent/initiate', {
    token: org.token,
    body: { system_prompt: 'Book a demo of Acme CRM.', lead_id: leadId, first_message: 'Hi Grace, Acme here.' },
  });

describe('calls per second', () => {
  it('parallel calls get distinct turns a second apart', async () => {
    const placed = await Promise.all([initiate(), initiate(), initiate()]);
    expect(placed.map((response) => response.status)).toEqual([202, 202, 202]);
    const turns = (await Promise.all(placed.map((response) => callRow(org, response.body.data.id))))
      .map((row) => row.dialAfter.getTime())
      .sort((a, b) => a - b);
    expect(turns[1] - turns[0]).toBeGreaterThanOrEqual(1000);
    expect(turns[2] - turns[1]).toBeGreaterThanOrEqual(1000);
    // Out of the way of the next test: these calls are over.
    for (const response of placed) await setCall(org, response.body.data.id, { status: 'canceled' });
  });

  it('a call dialled a moment ago still holds its second', async () => {
    const first = await initiate();
    // Dialled and answered, as the job leaves it while the conversation runs.
    await setCall(org, first.body.data.id, { status: 'in-progress', startedAt: new Date() });
    const second = await initiate();
    const [a, b] = await Promise.all([callRow(org, first.body.data.id), callRow(org, second.body.data.id)]);
    expect(b.dialAfter.getTime() - a.dialAfter.getTime()).toBeGreaterThanOrEqual(1000);
    await setCall(org, first.body.data.id, { status: 'completed' });
    await setCall(org, second.body.data.id, { status: 'canceled' });
  });

  it('refuses a call whose turn would be more than the job waits for (24 h) away: 429 call_queue_full with the earliest time, nothing held or queued', async () => {
    const waiting = await initiate();
    expect(waiting.status, waiting.text).toBe(202);
    // The organization's queue reaches a day ahead (86 400 calls at 1 per second, as a campaign might).
    await setCall(org, waiting.body.data.id, { dialAfter: new Date(Date.now() + 24 * 3600_000) });
    const wallet = async () => (await call('GET', '/api/voice/wallet', { token: org.token })).body.data;
    const before = await wallet();
    const count = async () =>
      (
        await inOrganization(org.orgId, (tx) =>
          tx.select({ id: calls.id }).from(calls).where(eq(calls.organizationId, org.orgId)),
        )
      ).length;
    const callsBefore = await count();
    const refused = await initiate();
    expect(refused.status, refused.text).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limited', code: 'call_queue_full' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    // The turn it would have had is a day and a second away; it fits once 61 s or so have passed.
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expect(retryAfter).toBeLessThanOrEqual(65);
    const earliest = Date.parse(refused.body.error.details.earliest_at);
    expect(Math.abs(earliest - (Date.now() + retryAfter * 1000))).toBeLessThan(5_000);
    expect(refused.body.error.message).toContain(refused.body.error.details.earliest_at);
    expect(refused.sent).toEqual([]);
    expect(await count()).toBe(callsBefore);
    expect(await wallet()).toEqual(before);
    // The queue shorter again (that call's turn nearer): a new call is accepted.
    await setCall(org, waiting.body.data.id, { dialAfter: new Date(Date.now() + 3600_000) });
    const accepted = await initiate();
    expect(accepted.status, accepted.text).toBe(202);
    for (const id of [waiting.body.data.id, accepted.body.data.id]) await setCall(org, id, { status: 'canceled' });
  });

  it('the job defers a call whose turn is seconds away to its turn (no queue retry spent), and dials it when its turn has come', async () => {
    const queued = await initiate();
    const id = queued.body.data.id;
    await setCall(org, id, { dialAfter: new Date(Date.now() + 10_000) });
    const early = await deliverJobs(queued.sent);
    expect(early.retryMessages).toEqual([]);
    expect(early.explicitAcks).toHaveLength(1);
    // The job's message again, due at the turn (10 s, rounded up to whole seconds).
    expect(early.sent).toHaveLength(1);
    expect(early.sent[0].body).toEqual(queued.sent[0]);
    expect(early.sent[0].delaySeconds).toBeGreaterThanOrEqual(9);
    expect(early.sent[0].delaySeconds).toBeLessThanOrEqual(10);
    expect(await callRow(org, id)).toMatchObject({ status: 'queued', startedAt: null, providerCallId: null });
    await setCall(org, id, { dialAfter: new Date(Date.now() - 1000) });
    const due = await deliverJobs([early.sent[0].body]);
    expect(due.retryMessages).toEqual([]);
    expect((await callRow(org, id)).status).toBe('completed');
  });
});

describe('a recording, end to end', () => {
  it('is stored in R2 by the job and downloads as WAV through a short-lived link; expired or altered links are refused', async () => {
    const queued = await initiate();
    const id = queued.body.data.id as number;
    // Its turn has come (the pacing is the tests above'), so the delivery dials it at once.
    await setCall(org, id, { dialAfter: new Date(Date.now() - 1000) });
    await deliverJobs(queued.sent);
    const row = await callRow(org, id);
    expect(row.status).toBe('completed');
    expect(row.recordingFileId).not.toBeNull();

    const [file] = await inOrganization(org.orgId, (tx) =>
      tx
        .select()
        .from(storedFiles)
        .where(and(eq(storedFiles.organizationId, org.orgId), eq(storedFiles.id, row.recordingFileId as number))),
    );
    const stored = await env.FILES.get(file.storageKey);
    expect(stored).not.toBeNull();
    const storedBytes = new Uint8Array(await (stored as R2ObjectBody).arrayBuffer());

    const link = await call('GET', `/api/call/${id}/recording`, { token: org.token });
    expect(link.status).toBe(200);
    const expiresIn = Date.parse(link.body.data.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(RECORDING_LINK_SECONDS * 1000);
    const audio = await fetchWorker(new Request(new URL(link.body.data.url, 'http://lead.test')));
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    const bytes = new Uint8Array(await audio.arrayBuffer());
    const ascii = (from: number, to: number) => new TextDecoder().decode(bytes.slice(from, to));
    expect([ascii(0, 4), ascii(8, 12), ascii(12, 16)]).toEqual(['RIFF', 'WAVE', 'fmt ']);
    expect(bytes).toEqual(storedBytes);

    // Signed a moment longer ago than a link lives: expired.
    const secrets = trackingSecrets(env);
    const claims = { orgId: org.orgId, callId: id, fileId: file.id };
    const expired = await recordingLink(secrets, claims, Date.now() - (RECORDING_LINK_SECONDS + 5) * 1000);
    expect((await fetchWorker(new Request(new URL(expired.url, 'http://lead.test')))).status).toBe(404);
    // The payload changed under the old signature (another organization named): refused.
    const [encoded, signature] = (link.body.data.url as string).split('/').pop()?.split('.') ?? [];
    const payload = JSON.parse(new TextDecoder().decode(base64url.decode(encoded)));
    const altered = base64url.encode(JSON.stringify({ ...payload, o: payload.o + 1 }));
    const tampered = `/api/v1/call/recording/${altered}.${signature}`;
    expect((await fetchWorker(new Request(new URL(tampered, 'http://lead.test')))).status).toBe(404);
    // A fresh link for the same claims still works: only the expiry and the tampering were refused.
    const fresh = await recordingLink(secrets, claims);
    expect((await fetchWorker(new Request(new URL(fresh.url, 'http://lead.test')))).status).toBe(200);
  });
});
