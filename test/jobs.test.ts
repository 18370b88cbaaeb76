/**
 * Job handling shared by every kind: retries counted by the queue (message.attempts), the
 * dead-letter consumer that ends a job the queue gave up on, and whom a job runs as once its
 * creator is gone. Messages are handed to the Worker's own queue() export, as miniflare would.
 */
import { createMessageBatch, getQueueResult, createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { exportJobs, importJobs, roles } from '../src/db/schema';
import { readConfig } from '../src/env';
import worker from '../src/index';
import type { JobMessage } from '../src/jobs/messages';
import { DEAD_LETTER_QUEUE } from '../src/jobs/runner';
import { EXPORT_DEAD_LETTER_REASON } from '../src/modules/exports/export-job';
import { isTransientFault, TransientFault } from '../src/jobs/faults';
import { jobTenantContext } from '../src/jobs/lifecycle';
import { claimExportJob } from '../src/modules/exports/job-progress';
import { hasRole } from '../src/db/tenant';
import { IMPORT_DEAD_LETTER_REASON } from '../src/modules/imports/import-job';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { asOrganization, csvOf, leadRows, unqueuedImportJob } from './cross-tenant/fixtures/jobs';

async function deliver(
  queue: string,
  messages: JobMessage[],
  options: { attempts?: number; bindings?: typeof env } = {},
) {
  const batch = createMessageBatch<JobMessage>(
    queue,
    messages.map((body, index) => ({
      id: `jobs-test-${crypto.randomUUID()}-${index}`,
      timestamp: new Date(),
      attempts: options.attempts ?? 1,
      body,
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, options.bindings ?? env);
  return getQueueResult(batch, ctx);
}

async function exportJob(owner: SignedUp, values: Partial<typeof exportJobs.$inferInsert> = {}): Promise<number> {
  const [job] = await asOrganization(owner.orgId, (tx) =>
    tx
      .insert(exportJobs)
      .values({ organizationId: owner.orgId, exportType: 'companies', createdBy: owner.userId, ...values })
      .returning({ id: exportJobs.id }),
  );
  return job.id;
}

async function notificationsAbout(owner: SignedUp, key: 'import_job_id' | 'export_id', id: number) {
  const response = await call('GET', '/api/notification/list', { token: owner.token, query: { limit: 100 } });
  expect(response.status, response.text).toBe(200);
  return (response.body.data as { type_id: number; title: string; data: Record<string, unknown> }[]).filter(
    (notice) => notice.data[key] === id,
  );
}

/** The real bucket, except that every read fails: a dependency down for the whole delivery. */
const unreadableBucket = {
  get: async () => Promise.reject(new Error('storage unavailable (test)')),
  head: async () => null,
} as unknown as R2Bucket;

describe('job handling', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('Jobs');
  });

  it('retries a failing import for as long as the queue delivers it, counting attempts from the queue', async () => {
    const jobId = await unqueuedImportJob(owner, csvOf(leadRows(3, `jobs-${crypto.randomUUID()}`)));
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    // Attempt 6 was "the last one" when the job kept its own counter; now only the queue decides.
    const result = await deliver('lead-management-jobs', [message], {
      attempts: 6,
      bindings: { ...env, FILES: unreadableBucket },
    });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toHaveLength(1);
    const [job] = await asOrganization(owner.orgId, (tx) =>
      tx.select().from(importJobs).where(eq(importJobs.id, jobId)),
    );
    expect(job.status).toBe('running');
    expect(job.error).toBe('attempt 6 failed, retrying: an internal error');
    expect(job.options).toEqual({ duplicate_mode: 'skip', format: 'csv' });
  });

  describe('the dead-letter consumer', () => {
    it('fails an import the queue gave up on with a reason for the user, and notifies its creator once', async () => {
      const jobId = await unqueuedImportJob(owner, csvOf(leadRows(3, `jobs-${crypto.randomUUID()}`)), {
        status: 'running',
        error: 'attempt 6 failed, retrying: duplicate key value violates unique constraint "leads_pkey"',
      });
      const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
      const first = await deliver(DEAD_LETTER_QUEUE, [message]);
      const again = await deliver(DEAD_LETTER_QUEUE, [message], { attempts: 2 });
      expect(first.explicitAcks).toHaveLength(1);
      expect(again.explicitAcks).toHaveLength(1);
      const listed = await call('GET', '/api/import-job/list', { token: owner.token, query: { limit: 100 } });
      const job = listed.body.data.find((candidate: { id: number }) => candidate.id === jobId);
      expect(job).toMatchObject({
        status: 'failed',
        error: IMPORT_DEAD_LETTER_REASON,
        finished_at: expect.any(String),
      });
      expect(job.error).not.toMatch(/constraint|duplicate key/);
      const notices = await notificationsAbout(owner, 'import_job_id', jobId);
      expect(notices).toEqual([
        expect.objectContaining({
          type_id: 2,
          title: 'Import of unqueued.csv failed',
          data: { import_job_id: jobId, status: 'failed' },
        }),
      ]);
    });

    it('fails an export the queue gave up on, and notifies its creator once', async () => {
      const jobId = await exportJob(owner);
      const message: JobMessage = { kind: 'export', orgId: owner.orgId, jobId };
      await deliver(DEAD_LETTER_QUEUE, [message, message]);
      const listed = await call('GET', '/api/exports/list', { token: owner.token, query: { limit: 100 } });
      const job = listed.body.data.find((candidate: { id: number }) => candidate.id === jobId);
      expect(job).toMatchObject({ status: 'failed', error: EXPORT_DEAD_LETTER_REASON, download_url: null });
      const notices = await notificationsAbout(owner, 'export_id', jobId);
      expect(notices).toEqual([expect.objectContaining({ type_id: 3, data: { export_id: jobId, status: 'failed' } })]);
    });

    it('leaves a job that ended meanwhile as it is, and acknowledges a message whose job does not exist', async () => {
      const jobId = await exportJob(owner, { status: 'completed', processedRows: 5, totalRows: 5 });
      const result = await deliver(DEAD_LETTER_QUEUE, [
        { kind: 'export', orgId: owner.orgId, jobId },
        { kind: 'lead-import', orgId: owner.orgId, jobId: 2_000_000_000 },
      ]);
      expect(result.explicitAcks).toHaveLength(2);
      const [job] = await asOrganization(owner.orgId, (tx) =>
        tx.select().from(exportJobs).where(eq(exportJobs.id, jobId)),
      );
      expect(job).toMatchObject({ status: 'completed', error: null });
      expect(await notificationsAbout(owner, 'export_id', jobId)).toEqual([]);
    });
  });

  describe('retry policies', () => {
    /** The real bucket, except that starting an upload fails with `message` (R2 ends its messages with the code). */
    const bucketRefusingUploads = (message: string) =>
      ({
        head: (key: string) => env.FILES.head(key),
        get: (key: string) => env.FILES.get(key),
        delete: (keys: string | string[]) => env.FILES.delete(keys),
        createMultipartUpload: async () => Promise.reject(new Error(message)),
      }) as unknown as R2Bucket;

    async function exportState(jobId: number) {
      const [job] = await asOrganization(owner.orgId, (tx) =>
        tx.select().from(exportJobs).where(eq(exportJobs.id, jobId)),
      );
      return job;
    }

    it('retries an export whose storage was briefly unavailable, and the retry completes it', async () => {
      const jobId = await exportJob(owner);
      const message: JobMessage = { kind: 'export', orgId: owner.orgId, jobId };
      const unavailable = bucketRefusingUploads(
        'createMultipartUpload: We encountered an internal error. Please try again. (10001)',
      );
      const first = await deliver('lead-management-jobs', [message], { bindings: { ...env, FILES: unavailable } });
      expect(first.explicitAcks).toEqual([]);
      expect(first.retryMessages).toHaveLength(1);
      expect(await exportState(jobId)).toMatchObject({
        status: 'running',
        error: 'attempt 1 failed, retrying: an internal error',
      });
      expect(await notificationsAbout(owner, 'export_id', jobId)).toEqual([]);

      const second = await deliver('lead-management-jobs', [message], { attempts: 2 });
      expect(second.explicitAcks).toHaveLength(1);
      expect(await exportState(jobId)).toMatchObject({ status: 'completed', error: null, leaseExpiresAt: null });
      const notices = await notificationsAbout(owner, 'export_id', jobId);
      expect(notices).toEqual([
        expect.objectContaining({ type_id: 3, data: expect.objectContaining({ status: 'completed' }) }),
      ]);
    });

    it('fails an export at once on a fault no retry mends, with a reason for the user, and tells its creator once', async () => {
      const jobId = await exportJob(owner);
      const message: JobMessage = { kind: 'export', orgId: owner.orgId, jobId };
      const refusing = bucketRefusingUploads('createMultipartUpload: the object key is not valid (10020)');
      const result = await deliver('lead-management-jobs', [message, message], {
        bindings: { ...env, FILES: refusing },
      });
      expect(result.explicitAcks).toHaveLength(2);
      expect(result.retryMessages).toEqual([]);
      expect(await exportState(jobId)).toMatchObject({
        status: 'failed',
        error: 'The export failed: an internal error. Please request it again.',
        leaseExpiresAt: null,
      });
      const notices = await notificationsAbout(owner, 'export_id', jobId);
      expect(notices).toEqual([expect.objectContaining({ type_id: 3, data: { export_id: jobId, status: 'failed' } })]);
    });

    it('tells a transient fault (a lost connection, a refused one, storage unavailable) from a permanent one', () => {
      const transient = [
        { code: '08006' },
        { code: '57P01' },
        new Error('Failed query: select 1', { cause: new Error('Connection terminated unexpectedly') }),
        new Error('connect ECONNREFUSED 127.0.0.1:5432'),
        new Error('put: Reduce your concurrent request rate for the same object. (10058)'),
        new TransientFault('the provider answered 503'),
      ];
      const permanent = [
        { code: '23505' },
        { code: '22P02' },
        new Error('export type unknown'),
        new Error('put: Your metadata headers exceed the maximum allowed metadata size. (10012)'),
      ];
      expect(transient.map(isTransientFault)).toEqual(transient.map(() => true));
      expect(permanent.map(isTransientFault)).toEqual(permanent.map(() => false));
    });
  });

  describe('whom a job runs as', () => {
    it('acts as the job itself, with no role even when an admin started it, and credits its creator', async () => {
      const [adminRole] = await asOrganization(owner.orgId, (tx) =>
        tx
          .select({ id: roles.id })
          .from(roles)
          .where(and(eq(roles.organizationId, owner.orgId), eq(roles.name, 'admin'))),
      );
      const added = await call('POST', '/api/user/add', {
        token: owner.token,
        body: {
          first_name: 'Temp',
          last_name: 'Admin',
          email: uniqueEmail('temp-admin'),
          phone_no: '+15550199',
          password: 'password123',
          role_id: adminRole.id,
        },
      });
      expect(added.status, added.text).toBe(201);
      const creatorId: number = added.body.data.id;
      const contextAs = async (createdBy: number | null) => {
        const jobId = await exportJob(owner, { createdBy });
        const handle = openDatabase(readConfig(env));
        try {
          const claim = await claimExportJob(handle.db, { orgId: owner.orgId, jobId });
          if (!claim) throw new Error('not claimed');
          const ctx = jobTenantContext(claim, handle.db);
          return {
            actor: ctx.actor,
            userId: ctx.userId,
            admin: hasRole(ctx.actor, ['admin']),
            rep: hasRole(ctx.actor, ['sales_rep']),
          };
        } finally {
          await handle.close();
        }
      };
      const asAdminsJob = await contextAs(creatorId);
      expect(asAdminsJob).toMatchObject({
        actor: { kind: 'job', createdBy: creatorId },
        userId: creatorId,
        admin: false,
        rep: false,
      });
      const deleted = await call('POST', '/api/user/delete', { token: owner.token, body: { user_id: creatorId } });
      expect(deleted.status, deleted.text).toBe(200);
      expect(await contextAs(creatorId)).toMatchObject({ actor: { kind: 'job' }, userId: creatorId, admin: false });
      expect(await contextAs(null)).toMatchObject({
        actor: { kind: 'job', createdBy: null },
        userId: null,
        admin: false,
      });
    });
  });
});
