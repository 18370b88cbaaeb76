/**
 * Signals for one lead recorded at once by different writers: the tracking consumer, a completed
 * call and a mail reply, each next to a signal posted through the API. Every writer takes the lead's
 * intent-score lock before its rescoring (intent/scoring.ts), so the second rescoring sees both
 * signals. PostgreSQL only: PGlite runs one transaction at a time, so these pass there anyway.
 */
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { leadIntentScores } from '../src/db/schema';
import { recordSignal } from '../src/modules/intent/service';
import { recordReplies } from '../src/modules/mail/replies';
import type { ConnectionRow } from '../src/providers/connections';
import type { InboxMessage } from '../src/providers/mail/interface';
import { recordHits } from '../src/modules/tracking/hits';
import { tokenHash } from '../src/modules/tracking/token';
import { endCall } from '../src/modules/voice/call-progress';
import { ENGAGED_CALL_SECONDS } from '../src/modules/voice/pricing';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { asTenant, inOrganization } from './helpers/leads';
import { addLocalAccount, requestRecordingJobs } from './helpers/mail';
import { leadWithPhone, topUp } from './helpers/voice';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Signal races');
  await topUp(owner, 5);
});

async function skipOnPglite(context: TestContext) {
  const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
  if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
}

/**
 * Runs `write(recorded)`, which calls `recorded()` once its signal is in and keeps its
 * transaction open 1 s after, and `other` meanwhile; answers once both committed.
 */
async function atOnce(write: (recorded: () => void) => Promise<unknown>, other: () => Promise<unknown>) {
  let recorded: () => void = () => {};
  const isIn = new Promise<void>((resolve) => {
    recorded = resolve;
  });
  const first = write(recorded);
  await isIn;
  await Promise.all([first, other()]);
}

const storedScore = async (leadId: number) => {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx.select().from(leadIntentScores).where(eq(leadIntentScores.leadId, leadId)),
  );
  return row.score;
};

const alertsOf = async (leadId: number) => {
  const response = await call('GET', '/api/intent-alert/list', { token: owner.token, query: { lead_id: leadId } });
  expect(response.status, response.text).toBe(200);
  return response.body.data as unknown[];
};

const hold = () => new Promise((resolve) => setTimeout(resolve, 1_000));

describe('signals of one lead recorded at once', () => {
  it('a tracking batch and an API signal both count', async (context) => {
    await skipOnPglite(context);
    const leadId = await leadWithPhone(owner, null, 'Tracked');
    const token = `race.${crypto.randomUUID()}`;
    const click = {
      kind: 'click' as const,
      hitId: crypto.randomUUID(),
      orgId: owner.orgId,
      leadId,
      tokenHash: await tokenHash(token),
      campaign: null,
      targetUrl: 'https://example.com/pricing',
      at: new Date().toISOString(),
    };
    // A demo request (40) posted while the consumer's batch (a click, 10) is still open.
    await atOnce(
      (recorded) =>
        inOrganization(owner.orgId, async (tx) => {
          await recordHits(tx, owner.orgId, [click]);
          recorded();
          await hold();
        }),
      () => asTenant(owner, (ctx) => recordSignal(ctx, { lead_id: leadId, signal_type: 'demo_requested' }, 'api')),
    );
    expect(await storedScore(leadId)).toBeCloseTo(50, 0);
  });

  it('a completed call and an API signal both count: the lead turns hot with one alert', async (context) => {
    await skipOnPglite(context);
    const leadId = await leadWithPhone(owner, '+14155550178', 'Called');
    const placed = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
      token: owner.token,
      body: { system_prompt: 'Hi', lead_id: leadId },
    });
    expect(placed.status, placed.text).toBe(202);
    const endedAt = new Date();
    // The call's conversation (25) is recorded while a demo request (40) is posted.
    await atOnce(
      (recorded) =>
        inOrganization(owner.orgId, async (tx) => {
          await endCall(tx, { orgId: owner.orgId, userId: owner.userId }, placed.body.data.id, {
            status: 'completed',
            durationSec: ENGAGED_CALL_SECONDS + 15,
            answeredAt: new Date(endedAt.getTime() - (ENGAGED_CALL_SECONDS + 15) * 1000),
            endedAt,
            transcript: null,
          });
          recorded();
          await hold();
        }),
      () => asTenant(owner, (ctx) => recordSignal(ctx, { lead_id: leadId, signal_type: 'demo_requested' }, 'api')),
    );
    expect(await storedScore(leadId)).toBeCloseTo(65, 0);
    expect(await alertsOf(leadId)).toHaveLength(1);
  });

  it('a mail reply and an API signal both count: the lead turns hot with one alert', async (context) => {
    await skipOnPglite(context);
    const leadId = await leadWithPhone(owner, null, 'Replied');
    const address = `rep-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const connectionId = await addLocalAccount(owner, address);
    const sent = `<${crypto.randomUUID()}@example.com>`;
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`insert into mail_messages (organization_id, connection_id, direction, status, rfc_message_id,
          from_address, to_addresses, subject, body_text, lead_id)
        values (${owner.orgId}, ${connectionId}, 'outbound', 'sent', ${sent}, ${address}, array['lead@example.com'],
          'Hello', 'Hi', ${leadId})`),
    );
    const reply: InboxMessage = {
      id: `reply-${crypto.randomUUID()}`,
      thread_id: null,
      message_id: `<${crypto.randomUUID()}@example.com>`,
      in_reply_to: sent,
      references: [sent],
      from: { address: 'lead@example.com', name: null },
      to: [address],
      cc: [],
      reply_to: [],
      subject: 'Re: Hello',
      snippet: 'Yes, let us talk',
      date: new Date().toISOString(),
      is_read: false,
      automated: null,
    };
    const connection = { id: connectionId, organizationId: owner.orgId, identity: address } as unknown as ConnectionRow;
    // The reply (25) is recorded while a demo request (40) is posted.
    await atOnce(
      (recorded) =>
        inOrganization(owner.orgId, async (tx) => {
          expect(await recordReplies(tx, connection, [reply])).toEqual([leadId]);
          recorded();
          await hold();
        }),
      () => asTenant(owner, (ctx) => recordSignal(ctx, { lead_id: leadId, signal_type: 'demo_requested' }, 'api')),
    );
    expect(await storedScore(leadId)).toBeCloseTo(65, 0);
    expect(await alertsOf(leadId)).toHaveLength(1);
  });
});
