/**
 * The lifecycle steps for jobs run whole in one transaction without a claim (src/jobs/lifecycle.ts:
 * lockJobs, completeOpenJobs): only open jobs complete, each creator is told once, in one
 * insert, and a second run (a redelivered message) changes nothing and tells nobody again.
 * The scoring job, their one user today, has no notice, so the notice is checked here with a
 * spec that has one, read back through the creator's notification list.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { leadScoringJobs } from '../src/db/schema';
import { completeOpenJobs, type JobSpec, lockJobs } from '../src/jobs/lifecycle';
import { NOTIFICATION_TYPES } from '../src/modules/notifications';
import { call, type SignedUp, signupOrganization } from './helpers/api';
import { inOrganization } from './helpers/leads';

const spec: JobSpec<typeof leadScoringJobs> = {
  table: leadScoringJobs,
  leaseSeconds: 60,
  notice: {
    typeId: NOTIFICATION_TYPES.importFinished,
    completed: (job) => ({ title: `Job ${job.id} done`, data: { job_id: job.id, scored: job.scoredCount } }),
    failed: (job) => ({ title: `Job ${job.id} failed`, data: { job_id: job.id } }),
  },
};

async function job(owner: SignedUp, status: string, createdBy: number | null): Promise<number> {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx
      .insert(leadScoringJobs)
      .values({
        organizationId: owner.orgId,
        leadIds: [1, 2, 3],
        status,
        createdBy,
        finishedAt: status === 'completed' ? sql`now() - interval '1 hour'` : null,
        leaseExpiresAt: status === 'running' ? sql`now() + interval '1 minute'` : null,
      })
      .returning({ id: leadScoringJobs.id }),
  );
  return row.id;
}

/** Runs the jobs whole, as a together-delivery does: lock, then complete the open ones. */
const runWhole = (owner: SignedUp, ids: number[]) =>
  inOrganization(owner.orgId, async (tx) => {
    const locked = await lockJobs(tx, spec, owner.orgId, ids);
    const done = await completeOpenJobs(tx, spec, owner.orgId, ids, {
      scoredCount: sql`cardinality(${leadScoringJobs.leadIds})`,
    });
    return { locked: locked.map((row) => row.id).sort(), done: done.map((row) => row.id).sort() };
  });

async function titles(owner: SignedUp): Promise<string[]> {
  const response = await call<{ data: { title: string; type_id: number }[] }>('GET', '/api/notification/list', {
    token: owner.token,
    query: { limit: 100 },
  });
  expect(response.status).toBe(200);
  return response.body.data
    .filter((row) => row.type_id === NOTIFICATION_TYPES.importFinished)
    .map((row) => row.title)
    .sort();
}

describe('jobs run whole in one transaction (lockJobs, completeOpenJobs)', () => {
  let owner: SignedUp;
  let other: SignedUp;
  beforeAll(async () => {
    owner = await signupOrganization('Lifecycle');
    other = await signupOrganization('Lifecycle other');
  });

  it('completes only the open jobs, each with its own values, and tells each creator once', async () => {
    const queued = await job(owner, 'queued', owner.userId);
    const running = await job(owner, 'running', owner.userId);
    const ended = await job(owner, 'completed', owner.userId);
    const orphan = await job(owner, 'queued', null);
    const foreign = await job(other, 'queued', other.userId);
    const ids = [queued, running, ended, orphan, foreign];

    const first = await runWhole(owner, ids);
    expect(first.locked).toEqual([queued, running, ended, orphan].sort());
    expect(first.done).toEqual([queued, running, orphan].sort());

    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select().from(leadScoringJobs).where(inArray(leadScoringJobs.id, ids)),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of [queued, running, orphan]) {
      const row = byId.get(id);
      expect(row?.status).toBe('completed');
      expect(row?.scoredCount).toBe(3);
      expect(row?.startedAt).not.toBeNull();
      expect(row?.finishedAt).not.toBeNull();
      expect(row?.leaseExpiresAt).toBeNull();
    }
    // The job that had ended keeps its ending; the other organization's is not even visible.
    expect(byId.get(ended)?.scoredCount).toBe(0);
    expect(byId.has(foreign)).toBe(false);
    expect(await titles(owner)).toEqual([`Job ${queued} done`, `Job ${running} done`].sort());

    // A redelivered message finds nothing open: no change, no second notice.
    const again = await runWhole(owner, ids);
    expect(again.done).toEqual([]);
    expect(await titles(owner)).toEqual([`Job ${queued} done`, `Job ${running} done`].sort());

    const [theirs] = await inOrganization(other.orgId, (tx) =>
      tx.select().from(leadScoringJobs).where(eq(leadScoringJobs.id, foreign)),
    );
    expect(theirs.status).toBe('queued');
    expect(await titles(other)).toEqual([]);
  });
});
