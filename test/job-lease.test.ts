/**
 * Jobs that stop without failing are picked up again: a delivery ends mid-job and its message
 * is gone (a Worker reloaded under it, an eviction, the wall-time limit), so the job stays open
 * with nothing to finish or fail it. The cron sweep re-sends a job whose lease has expired; the
 * checkpoint makes the re-run safe; after MAX_LEASE_RESENDS re-sends the job fails with a reason
 * for its creator. The sweep runs through the Worker's scheduled() export with a queue that
 * records what it is sent (and delivers nothing), so each test hands the messages on itself.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { importJobs, leads } from '../src/db/schema';
import worker from '../src/index';
import { observeStatements, withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { MAX_LEASE_RESENDS, QUEUED_JOB_DEADLINE_SECONDS, sweepExpiredLeases } from '../src/jobs/lease-sweep';
import { claimJob } from '../src/jobs/lifecycle';
import type { JobMessage } from '../src/jobs/messages';
import { IMPORT_STALLED_REASON } from '../src/modules/imports/import-job';
import { importJobSpec } from '../src/modules/imports/job-progress';
import { call, signupOrganization, type SignedUp } from './helpers/api';
import { asOrganization, csvOf, deliverJobs, leadRows, unqueuedImportJob } from './cross-tenant/fixtures/jobs';
import { bucketFailingAfter } from './helpers/failing-bucket';

/** Runs the cron trigger with a jobs queue that records what is sent; answers what it sent for `orgId`. */
async function sweep(orgId: number): Promise<JobMessage[]> {
  const sent: JobMessage[] = [];
  const queue = {
    send: async (body: JobMessage) => void sent.push(body),
    sendBatch: async (messages: Iterable<MessageSendRequest<JobMessage>>) => {
      for (const message of messages) sent.push(message.body);
    },
  } as unknown as Queue<JobMessage>;
  await worker.scheduled(createScheduledController({ cron: '* * * * *' }), { ...env, JOBS: queue });
  return sent.filter((message) => message.orgId === orgId);
}

async function jobState(orgId: number, jobId: number) {
  const [job] = await asOrganization(orgId, (tx) => tx.select().from(importJobs).where(eq(importJobs.id, jobId)));
  return job;
}

/** A delivery picks the job's message up and claims it (then stops: its lease runs out later). */
async function claimedByADelivery(orgId: number, jobId: number) {
  const claim = await withOwnDatabase(readConfig(env), (db) => claimJob(db, importJobSpec, { orgId, jobId }));
  expect(claim?.job).toMatchObject({ status: 'running', leaseResentAt: null });
}

/** A job a delivery claimed and that stopped: running, its lease run out. */
async function claimedAndStopped(orgId: number, jobId: number) {
  await asOrganization(orgId, (tx) =>
    tx
      .update(importJobs)
      .set({ status: 'running', startedAt: sql`now()`, leaseExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(importJobs.id, jobId)),
  );
}

/** What a lease that ran out looks like: the last heartbeat was longer ago than the lease. */
async function expireLease(orgId: number, jobId: number) {
  await asOrganization(orgId, (tx) =>
    tx.update(importJobs).set({ leaseExpiresAt: sql`now() - interval '1 second'` }).where(eq(importJobs.id, jobId)),
  );
}

describe('job leases', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('Leases');
  });

  it('re-sends an import that stopped mid-file once its lease expires, and it finishes with every row exactly once', async () => {
    const count = 6_000;
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(count, `lease-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };

    // The consumer stops mid-file, and its message is never delivered again (the queue lost it).
    const stopping = { ...env, FILES: bucketFailingAfter(env.FILES, 400 * 1024, 1) };
    await deliverJobs([message], 1, stopping);
    const stopped = await jobState(owner.orgId, jobId);
    expect(stopped.status).toBe('running');
    expect(stopped.checkpointRow).toBeGreaterThan(1);
    expect(stopped.checkpointRow).toBeLessThan(count + 1);
    expect(stopped.leaseExpiresAt?.getTime()).toBeGreaterThan(Date.now());

    // While the lease holds, the sweep leaves the job to whoever holds it.
    expect(await sweep(owner.orgId)).toEqual([]);

    await expireLease(owner.orgId, jobId);
    expect(await sweep(owner.orgId)).toEqual([message]);
    const resent = await jobState(owner.orgId, jobId);
    expect(resent).toMatchObject({ status: 'running', leaseResends: 1 });
    // The re-sent message gets a fresh lease: the next sweep does not send it again.
    expect(resent.leaseExpiresAt?.getTime()).toBeGreaterThan(Date.now());
    expect(await sweep(owner.orgId)).toEqual([]);

    const delivered = await deliverJobs([message]);
    expect(delivered.explicitAcks).toHaveLength(1);
    const done = await jobState(owner.orgId, jobId);
    expect(done).toMatchObject({
      status: 'completed',
      processedRows: count,
      createdCount: count,
      failedCount: 0,
      checkpointRow: count + 1,
      error: null,
      leaseExpiresAt: null,
    });
    const [stats] = await asOrganization(owner.orgId, (tx) =>
      tx
        .select({
          total: sql<number>`count(*)::int`,
          distinctRows: sql<number>`count(distinct ${leads.importRow})::int`,
        })
        .from(leads)
        .where(and(eq(leads.organizationId, owner.orgId), eq(leads.importJobId, jobId))),
    );
    expect(stats).toEqual({ total: count, distinctRows: count });
    // A job that has ended holds no lease and is never swept.
    await expireLease(owner.orgId, jobId);
    expect(await sweep(owner.orgId)).toEqual([]);
  });

  it('fails a claimed job that keeps stopping after the bound, telling its creator once; a late message does nothing', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(2, `stall-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    // A delivery claimed it, then stopped (as the first test's did): running, its lease run out.
    await claimedAndStopped(owner.orgId, jobId);
    for (let resend = 1; resend <= MAX_LEASE_RESENDS; resend++) {
      expect(await sweep(owner.orgId)).toEqual([message]);
      expect(await jobState(owner.orgId, jobId)).toMatchObject({ status: 'running', leaseResends: resend });
      // Each re-sent message is picked up, and that delivery stops too.
      await claimedByADelivery(owner.orgId, jobId);
      await expireLease(owner.orgId, jobId);
    }
    expect(await sweep(owner.orgId)).toEqual([]);
    const failed = await jobState(owner.orgId, jobId);
    expect(failed).toMatchObject({ status: 'failed', error: IMPORT_STALLED_REASON, leaseExpiresAt: null });
    expect(failed.finishedAt).toEqual(expect.any(Date));
    expect(await sweep(owner.orgId)).toEqual([]);

    const listed = await call('GET', '/api/notification/list', { token: owner.token, query: { limit: 100 } });
    const notices = (listed.body.data as { data: Record<string, unknown>; title: string }[]).filter(
      (notice) => notice.data.import_job_id === jobId,
    );
    expect(notices).toEqual([
      expect.objectContaining({
        title: 'Import of unqueued.csv failed',
        data: { import_job_id: jobId, status: 'failed' },
      }),
    ]);
    // A message still in flight finds the job ended and does nothing.
    const late = await deliverJobs([message]);
    expect(late.explicitAcks).toHaveLength(1);
    expect(await jobState(owner.orgId, jobId)).toMatchObject({ status: 'failed', createdCount: 0 });
  });

  it('a claimed job whose re-sent message waits unclaimed in a backed-up queue is re-sent with backoff and keeps its stall budget; it runs once picked up', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(2, `backlog-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    // Claimed once; the isolate died; the sweep re-sends it (one re-send spent: it did stop).
    await claimedAndStopped(owner.orgId, jobId);
    expect(await sweep(owner.orgId)).toEqual([message]);
    const resent = await jobState(owner.orgId, jobId);
    expect(resent).toMatchObject({ status: 'running', leaseResends: 1 });
    // The re-sent message sits in the queue an hour, nobody claiming it: far more expiries than the budget.
    await asOrganization(owner.orgId, (tx) =>
      tx.update(importJobs).set({ leaseResentAt: sql`now() - interval '1 hour'` }).where(eq(importJobs.id, jobId)),
    );
    for (let expiry = 1; expiry <= MAX_LEASE_RESENDS + 3; expiry++) {
      await expireLease(owner.orgId, jobId);
      expect(await sweep(owner.orgId)).toEqual([message]);
      const waiting = await jobState(owner.orgId, jobId);
      expect(waiting).toMatchObject({ status: 'running', leaseResends: 1, error: null, finishedAt: null });
      // Backoff from the re-send: the next one after as long as the message has waited (capped at an hour).
      const wait = ((waiting.leaseExpiresAt?.getTime() ?? 0) - Date.now()) / 1000;
      expect(wait).toBeGreaterThan(3000);
      expect(wait).toBeLessThanOrEqual(3600);
      expect(await sweep(owner.orgId)).toEqual([]);
    }
    // Picked up at last (the message and a re-send both): the import runs once, to the end.
    const delivered = await deliverJobs([message, message]);
    expect(delivered.explicitAcks).toHaveLength(2);
    expect(await jobState(owner.orgId, jobId)).toMatchObject({
      status: 'completed',
      createdCount: 2,
      error: null,
      leaseResentAt: null,
    });
  });

  it('a claimed job picked up again after its re-send spends its stall budget when it stops again', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(2, `again-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    await claimedAndStopped(owner.orgId, jobId);
    expect(await sweep(owner.orgId)).toEqual([message]);
    await claimedByADelivery(owner.orgId, jobId);
    await expireLease(owner.orgId, jobId);
    expect(await sweep(owner.orgId)).toEqual([message]);
    expect(await jobState(owner.orgId, jobId)).toMatchObject({ status: 'running', leaseResends: 2 });
  });

  it('fails a claimed job whose re-sent message was never picked up within a day of the re-send, saying so', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(2, `resent-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    await claimedAndStopped(owner.orgId, jobId);
    expect(await sweep(owner.orgId)).toEqual([message]);
    await asOrganization(owner.orgId, (tx) =>
      tx
        .update(importJobs)
        .set({
          leaseResentAt: sql`now() - interval '${sql.raw(String(QUEUED_JOB_DEADLINE_SECONDS + 60))} seconds'`,
          leaseExpiresAt: sql`now() - interval '1 second'`,
        })
        .where(eq(importJobs.id, jobId)),
    );
    expect(await sweep(owner.orgId)).toEqual([]);
    const failed = await jobState(owner.orgId, jobId);
    expect(failed).toMatchObject({ status: 'failed', leaseExpiresAt: null, leaseResends: 1 });
    expect(failed.error).toMatch(/never picked up/);
    expect(failed.error).not.toBe(IMPORT_STALLED_REASON);
  });

  it('re-sends a job never claimed (waiting in a backed-up queue) with backoff, without using up its stall budget', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(2, `wait-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    // Never claimed: the job's lease runs from its creation.
    expect(await sweep(owner.orgId)).toEqual([]);
    await asOrganization(owner.orgId, (tx) =>
      tx.update(importJobs).set({ createdAt: sql`now() - interval '1 hour'` }).where(eq(importJobs.id, jobId)),
    );
    // Far more expiries than the stall budget: each one re-sends the message, the job still waits.
    let previousWait = 0;
    for (let expiry = 1; expiry <= MAX_LEASE_RESENDS + 3; expiry++) {
      expect(await sweep(owner.orgId)).toEqual([message]);
      const waiting = await jobState(owner.orgId, jobId);
      expect(waiting).toMatchObject({ status: 'queued', leaseResends: 0, error: null, finishedAt: null });
      // Backoff: the next re-send waits at least as long as the job has waited (capped at an hour), not a minute.
      const wait = ((waiting.leaseExpiresAt?.getTime() ?? 0) - Date.now()) / 1000;
      expect(wait).toBeGreaterThan(3000);
      expect(wait).toBeLessThanOrEqual(3600);
      expect(wait).toBeGreaterThanOrEqual(previousWait - 60);
      previousWait = wait;
      expect(await sweep(owner.orgId)).toEqual([]);
      await expireLease(owner.orgId, jobId);
    }
    // The original message and a re-sent one both arrive: the import runs once.
    const delivered = await deliverJobs([message, message]);
    expect(delivered.explicitAcks).toHaveLength(2);
    expect(await jobState(owner.orgId, jobId)).toMatchObject({ status: 'completed', createdCount: 2, error: null });
    const [imported] = await asOrganization(owner.orgId, (tx) =>
      tx
        .select({ total: sql<number>`count(*)::int` })
        .from(leads)
        .where(and(eq(leads.organizationId, owner.orgId), eq(leads.importJobId, jobId))),
    );
    expect(imported.total).toBe(2);
  });

  it('backs off from the lease: a job waiting a few minutes is re-sent again after as long as it has waited', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(1, `soon-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    await asOrganization(owner.orgId, (tx) =>
      tx.update(importJobs).set({ createdAt: sql`now() - interval '10 minutes'` }).where(eq(importJobs.id, jobId)),
    );
    expect(await sweep(owner.orgId)).toEqual([message]);
    const waiting = await jobState(owner.orgId, jobId);
    const wait = ((waiting.leaseExpiresAt?.getTime() ?? 0) - Date.now()) / 1000;
    expect(wait).toBeGreaterThan(590);
    expect(wait).toBeLessThanOrEqual(600);
  });

  it('fails a job never picked up within a day, with a reason that says so, telling its creator once', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(2, `never-${crypto.randomUUID().slice(0, 8)}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    await asOrganization(owner.orgId, (tx) =>
      tx
        .update(importJobs)
        .set({ createdAt: sql`now() - interval '${sql.raw(String(QUEUED_JOB_DEADLINE_SECONDS + 60))} seconds'` })
        .where(eq(importJobs.id, jobId)),
    );
    expect(await sweep(owner.orgId)).toEqual([]);
    const failed = await jobState(owner.orgId, jobId);
    expect(failed).toMatchObject({ status: 'failed', leaseExpiresAt: null, startedAt: null });
    expect(failed.error).toMatch(/never picked up/);
    expect(failed.error).not.toBe(IMPORT_STALLED_REASON);
    expect(await sweep(owner.orgId)).toEqual([]);
    const listed = await call('GET', '/api/notification/list', { token: owner.token, query: { limit: 100 } });
    const notices = (listed.body.data as { data: Record<string, unknown> }[]).filter(
      (notice) => notice.data.import_job_id === jobId,
    );
    expect(notices).toHaveLength(1);
    const late = await deliverJobs([message]);
    expect(late.explicitAcks).toHaveLength(1);
    expect(await jobState(owner.orgId, jobId)).toMatchObject({ status: 'failed', createdCount: 0 });
  });

  it('fails every stalled job of a kind in a fixed number of statements: 5 cost what 1 costs, each failed and its creator told once', async () => {
    const noQueue = { sendBatch: async () => {} } as unknown as Queue<JobMessage>;
    /** One sweep on its own pool, counting the statements it sends; answers the count and what it failed. */
    const countedSweep = async () => {
      let count = 0;
      // The import kind's statements (and the notices): other kinds' tables, and jobs other test
      // files leave due meanwhile, do not move the count.
      const stop = observeStatements((text) => void (/import_jobs|notifications/.test(text) && count++), {
        pools: true,
      });
      try {
        const swept = await withOwnDatabase(readConfig(env), (db) => sweepExpiredLeases(db, noQueue));
        return { count, failed: swept.failed };
      } finally {
        stop();
      }
    };
    /** `n` imports a delivery claimed, that stopped after every re-send: the next sweep fails them. */
    const stalledJobs = async (n: number) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        const jobId = await unqueuedImportJob(owner, csvOf(leadRows(1, `count-${crypto.randomUUID().slice(0, 8)}`)));
        await claimedAndStopped(owner.orgId, jobId);
        await asOrganization(owner.orgId, (tx) =>
          tx.update(importJobs).set({ leaseResends: MAX_LEASE_RESENDS }).where(eq(importJobs.id, jobId)),
        );
        ids.push(jobId);
      }
      return ids;
    };
    await countedSweep(); // whatever earlier tests left open is settled first
    const one = await stalledJobs(1);
    const sweptOne = await countedSweep();
    const five = await stalledJobs(5);
    const sweptFive = await countedSweep();
    expect(sweptOne.failed).toBeGreaterThanOrEqual(1); // other test files' jobs may fall due too
    expect(sweptFive.failed).toBeGreaterThanOrEqual(5);
    expect(sweptFive.count).toBe(sweptOne.count);

    const listed = await call('GET', '/api/notification/list', { token: owner.token, query: { limit: 100 } });
    const notices = listed.body.data as { data: Record<string, unknown> }[];
    for (const jobId of [...one, ...five]) {
      expect(await jobState(owner.orgId, jobId)).toMatchObject({
        status: 'failed',
        error: IMPORT_STALLED_REASON,
        leaseExpiresAt: null,
        finishedAt: expect.any(Date),
      });
      expect(notices.filter((notice) => notice.data.import_job_id === jobId)).toEqual([
        expect.objectContaining({ data: { import_job_id: jobId, status: 'failed' } }),
      ]);
    }
  });
});
