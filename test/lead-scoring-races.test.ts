/**
 * Two scorings of one lead at once (PostgreSQL only: PGlite runs one transaction at a time, so
 * this passes there whatever the locks). A scoring reads its leads under their row lock and writes
 * in the same transaction, so an older scoring cannot write a score computed from data a newer one
 * already replaced.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../src/db/client';
import { currentModel } from '../src/modules/lead-scoring/model';
import { scoreLeadBatch } from '../src/modules/lead-scoring/score-leads';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { settleLeadScoring } from './helpers/scoring';

let owner: SignedUp;

beforeAll(async () => {
  owner = await signupOrganization('Scoring races');
});

/** Scores one lead in its own transaction; `paused` (when given) holds it between its read and its write. */
function scoreLead(leadId: number, paused?: { reached: () => void; release: Promise<void> }) {
  return inOrganization(owner.orgId, async (tx) => {
    const db = paused
      ? ({
          execute: async (query: Parameters<Queryable['execute']>[0]) => {
            const result = await tx.execute(query);
            const first = (result.rows as Record<string, unknown>[])[0];
            if (first && 'engagement_points' in first) {
              paused.reached();
              await paused.release;
            }
            return result;
          },
        } as unknown as Queryable)
      : tx;
    return scoreLeadBatch(db, owner.orgId, await currentModel(tx, owner.orgId), sql`l.id = ${leadId}`);
  });
}

const scoreOf = (leadId: number) =>
  inOrganization(owner.orgId, (tx) =>
    tx.execute<{ score: number }>(sql`select score from leads where id = ${leadId}`),
  ).then((result) => Number(result.rows[0].score));

describe('lead scoring at once', () => {
  it('an older scoring that finishes last does not overwrite the newer score', async (context) => {
    const version = await inOrganization(owner.orgId, (tx) => tx.execute<{ v: string }>(sql`select version() as v`));
    if (/emscripten|wasm/i.test(version.rows[0].v)) context.skip();
    const added = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Stale', last_name: 'Score', job_title: 'Engineer' },
    });
    expect(added.status, added.text).toBe(201);
    const leadId = added.body.data.id as number;
    await settleLeadScoring(owner);
    const engineer = await scoreOf(leadId);

    let reached: () => void = () => {};
    const atWrite = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The older scoring read the lead as an engineer, and is held before its write.
    const older = scoreLead(leadId, { reached, release: released });
    await atWrite;
    // Meanwhile the lead becomes a CEO and a newer scoring scores that.
    const newer = inOrganization(owner.orgId, (tx) =>
      tx.execute(sql`update leads set job_title = 'CEO' where id = ${leadId}`),
    ).then(() => scoreLead(leadId));
    await new Promise((resolve) => setTimeout(resolve, 700));
    release();
    await Promise.all([older, newer]);
    const final = await scoreOf(leadId);
    // What scoring the lead as it is now writes.
    await scoreLead(leadId);
    expect(final).toBe(await scoreOf(leadId));
    expect(final).toBeGreaterThan(engineer);
  });
});
