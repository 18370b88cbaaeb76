/**
 * A request transaction that commits with its handler's last statement (`ctx.commitWithNext`,
 * core/database.ts and db/client.ts): what runAsTenant does with it. A handler that fails after
 * that statement leaves its writes committed, and the after-commit effects run, not the
 * after-rollback ones; with an Idempotency-Key the stored response is the transaction's last
 * statement, so the handler is not offered it. The connection-level behaviour (the COMMIT in the
 * statement's round trip, a failing statement committing nothing, a statement after it refused)
 * is in test/session-scope.test.ts; the routes' budgets in test/round-trips.test.ts.
 */
import { z } from '@hono/zod-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineRoute, jsonBody } from '../src/core/routes';
import { leads } from '../src/db/schema';
import { signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { postToProbe, probeApp } from './helpers/probe';
import { and, eq, like } from 'drizzle-orm';

let org: SignedUp;
const seen = new Map<string, string[]>();

beforeAll(async () => {
  org = await signupOrganization('Commit with next');
});

// A test-only route built with defineRoute and the real chain: two lead inserts, the second
// announced as the last statement, then an answer or a failure.
const probe = probeApp();
probe.openapi(
  defineRoute({
    method: 'post',
    path: '/probe/commit-with-next',
    operationId: 'probeCommitWithNext',
    description: 'A test-only route whose last statement carries its COMMIT',
    auth: 'bearer',
    request: { body: jsonBody(z.object({ name: z.string(), fail: z.boolean() })) },
    responses: { 201: { description: 'Created' } },
  }),
  async (c) => {
    const { db, orgId, userId, effects, commitWithNext } = c.var.tenant;
    const { name, fail } = c.req.valid('json');
    const outcomes: string[] = [];
    seen.set(name, outcomes);
    effects?.afterCommit(async () => void outcomes.push('after commit'));
    effects?.afterRollback(async () => void outcomes.push('after rollback'));
    const lead = (lastName: string) => ({
      organizationId: orgId,
      firstName: 'Probe',
      lastName,
      status: 1,
      createdBy: userId,
    });
    await db.insert(leads).values(lead(`${name} first`));
    commitWithNext?.();
    await db.insert(leads).values(lead(`${name} last`));
    if (fail) throw new Error('the handler failed after its last statement');
    return c.json({ success: true, data: { offered: commitWithNext !== undefined } }, 201);
  },
);

const post = (body: { name: string; fail: boolean }, headers: Record<string, string> = {}) =>
  postToProbe(probe, '/probe/commit-with-next', body, { authorization: `Bearer ${org.token}`, ...headers });

const leadsNamed = (name: string) =>
  inOrganization(org.orgId, async (tx) =>
    (
      await tx
        .select({ lastName: leads.lastName })
        .from(leads)
        .where(and(eq(leads.organizationId, org.orgId), like(leads.lastName, `${name} %`)))
        .orderBy(leads.id)
    ).map((row) => row.lastName),
  );

describe('a handler whose last statement commits the request (ctx.commitWithNext)', () => {
  it('is offered it on a write without an Idempotency-Key, and both writes commit', async () => {
    const name = `Probe ${crypto.randomUUID().slice(0, 8)}`;
    const created = await post({ name, fail: false });
    expect(created.status, created.text).toBe(201);
    expect(JSON.parse(created.text).data).toEqual({ offered: true });
    expect(await leadsNamed(name)).toEqual([`${name} first`, `${name} last`]);
    expect(seen.get(name)).toEqual(['after commit']);
  });

  it('failing after that statement, answers the failure but keeps its writes and runs the after-commit effects', async () => {
    const name = `Probe ${crypto.randomUUID().slice(0, 8)}`;
    const failed = await post({ name, fail: true });
    expect(failed.status, failed.text).toBe(500);
    expect(await leadsNamed(name)).toEqual([`${name} first`, `${name} last`]);
    expect(seen.get(name)).toEqual(['after commit']);
  });

  it('is not offered it with an Idempotency-Key: the stored response commits with the writes, and a retry replays it', async () => {
    const name = `Probe ${crypto.randomUUID().slice(0, 8)}`;
    const key = crypto.randomUUID();
    const created = await post({ name, fail: false }, { 'idempotency-key': key });
    expect(created.status, created.text).toBe(201);
    expect(JSON.parse(created.text).data).toEqual({ offered: false });
    const replay = await post({ name, fail: false }, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await leadsNamed(name)).toEqual([`${name} first`, `${name} last`]);
  });
});
