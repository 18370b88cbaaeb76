/**
 * The delivery log's retention: the cron's sweep deletes finished deliveries (completed, failed,
 * cancelled) older than WEBHOOK_DELIVERY_RETENTION_DAYS with their attempts, in every
 * organization, a batch at a time; a delivery still queued or running, or younger, stays.
 *
 * Test files share one database, and another file's cron run may sweep the same rows at any
 * moment, so the tests assert what is left, never how many rows a sweep reported.
 */
import { env } from 'cloudflare:workers';
import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { webhookAttempts, webhookDeliveries } from '../src/db/schema';
import { readConfig } from '../src/env';
import { sweepWebhookDeliveries, WEBHOOK_DELIVERY_RETENTION_DAYS } from '../src/modules/webhooks/retention';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';

let first: SignedUp;
let second: SignedUp;

async function endpointOf(owner: SignedUp): Promise<number> {
  const response = await call('POST', '/api/webhooks', {
    token: owner.token,
    body: { url: 'https://hooks.example.test/retention', events: ['lead.created'] },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id;
}

/** A delivery written `ageDays` ago, in `status`, with `attempts` rows in the log. */
async function delivery(owner: SignedUp, endpointId: number, ageDays: number, status: string, attempts = 1) {
  return inOrganization(owner.orgId, async (tx) => {
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({
        organizationId: owner.orgId,
        endpointId,
        eventType: 'lead.created',
        messageId: `msg_${crypto.randomUUID()}`,
        payload: { type: 'lead.created', data: { id: 1 } },
        status,
        attempts,
        createdAt: sql`now() - make_interval(days => ${ageDays})`,
      })
      .returning({ id: webhookDeliveries.id });
    if (attempts > 0) {
      await tx.insert(webhookAttempts).values(
        Array.from({ length: attempts }, (_, n) => ({
          organizationId: owner.orgId,
          endpointId,
          deliveryId: row.id,
          attempt: n + 1,
          statusCode: 500,
          latencyMs: 12,
        })),
      );
    }
    return row.id;
  });
}

async function remaining(owner: SignedUp, ids: number[]) {
  return inOrganization(owner.orgId, async (tx) => ({
    deliveries: (
      await tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids))
    )
      .map((row) => row.id)
      .sort((a, b) => a - b),
    attempts: (
      await tx
        .select({ deliveryId: webhookAttempts.deliveryId })
        .from(webhookAttempts)
        .where(inArray(webhookAttempts.deliveryId, ids))
    ).map((row) => row.deliveryId),
  }));
}

const sweep = (batch?: number) => withOwnDatabase(readConfig(env), (db) => sweepWebhookDeliveries(db, batch));

beforeAll(async () => {
  [first, second] = await Promise.all([signupOrganization('Retention'), signupOrganization('Retention other')]);
});

describe('webhook delivery retention', () => {
  it('deletes finished deliveries past the retention with their attempts, in every organization; keeps open and younger ones', async () => {
    const endpoint = await endpointOf(first);
    const otherEndpoint = await endpointOf(second);
    const old = WEBHOOK_DELIVERY_RETENTION_DAYS + 1;
    const young = WEBHOOK_DELIVERY_RETENTION_DAYS - 1;
    const completed = await delivery(first, endpoint, old, 'completed', 2);
    const failed = await delivery(first, endpoint, old, 'failed', 8);
    const cancelled = await delivery(first, endpoint, old, 'cancelled', 0);
    const stillQueued = await delivery(first, endpoint, old, 'queued', 3);
    const running = await delivery(first, endpoint, old, 'running', 1);
    const recent = await delivery(first, endpoint, young, 'completed', 1);
    const theirs = await delivery(second, otherEndpoint, old, 'completed', 1);

    await sweep();

    const mine = await remaining(first, [completed, failed, cancelled, stillQueued, running, recent]);
    expect(mine.deliveries).toEqual([stillQueued, running, recent].sort((a, b) => a - b));
    expect(mine.attempts.filter((id) => [completed, failed, cancelled].includes(id))).toEqual([]);
    expect(mine.attempts.filter((id) => id === stillQueued)).toHaveLength(3);
    expect(mine.attempts.filter((id) => id === recent)).toHaveLength(1);
    expect(await remaining(second, [theirs])).toEqual({ deliveries: [], attempts: [] });

    // The attempt log the API reads has lost the deleted deliveries' attempts only.
    const log = await call('GET', `/api/webhooks/${endpoint}/attempts`, { token: first.token, query: { limit: 100 } });
    expect(log.status, log.text).toBe(200);
    expect(new Set(log.body.data.map((row: { delivery_id: number }) => row.delivery_id))).toEqual(
      new Set([stillQueued, running, recent]),
    );
  });

  it('works through more than a batch, a statement per batch, until none is left', async () => {
    const endpoint = await endpointOf(first);
    const old = await Promise.all(
      Array.from({ length: 5 }, () => delivery(first, endpoint, WEBHOOK_DELIVERY_RETENTION_DAYS + 3, 'completed')),
    );
    await sweep(2);
    expect(await remaining(first, old)).toEqual({ deliveries: [], attempts: [] });
    const [{ left }] = await inOrganization(first.orgId, (tx) =>
      tx
        .select({ left: sql<number>`count(*)::int` })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.endpointId, endpoint)),
    );
    expect(left).toBe(0);
  });
});
