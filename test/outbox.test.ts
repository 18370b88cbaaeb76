/**
 * Effects only after commit: the job outbox and R2 clean-up on rollback, end to end with the
 * real database, queue and bucket. Requests go to the Worker's fetch handler with the real
 * bindings, except that the jobs queue is wrapped to record (or refuse) sends: the queue is an
 * outside effect, and what leaves through it is what these tests are about.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/client';
import { exportJobs, importJobs, jobOutbox, storedFiles } from '../src/db/schema';
import { readConfig } from '../src/env';
import worker from '../src/index';
import type { JobMessage } from '../src/jobs/messages';
import { randomIp, signupOrganization, type SignedUp } from './helpers/api';
import { asOrganization, csvOf, deliverJobs, leadRows } from './cross-tenant/fixtures/jobs';

/** The real jobs queue, recording what is sent; `refuseSend` makes every send throw (a queue outage). */
function recordingQueue(options: { refuseSend?: boolean } = {}) {
  const sent: JobMessage[] = [];
  const queue = {
    send: async (body: JobMessage) => {
      if (options.refuseSend) throw new Error('queue unavailable (test)');
      sent.push(body);
      await env.JOBS.send(body);
    },
    sendBatch: async (messages: Iterable<MessageSendRequest<JobMessage>>) => {
      if (options.refuseSend) throw new Error('queue unavailable (test)');
      const list = [...messages];
      sent.push(...list.map((message) => message.body));
      await env.JOBS.sendBatch(list);
    },
  } as unknown as Queue<JobMessage>;
  return { queue, sent };
}

/** One request through the Worker with `bindings`, waiting for its background work (waitUntil) too. */
/** POST /api/exports/create with a queue that records what it is sent. */
async function createExportRecordingSends(owner: SignedUp, exportType: string) {
  const jobs = recordingQueue();
  const body = JSON.stringify({ export_type: exportType });
  const response = await request(
    { ...env, JOBS: jobs.queue },
    owner,
    'POST',
    '/api/exports/create',
    body,
    'application/json',
  );
  return { jobs, response };
}

async function request(
  bindings: typeof env,
  owner: SignedUp,
  method: string,
  path: string,
  body: BodyInit,
  contentType?: string,
) {
  const headers: Record<string, string> = { authorization: `Bearer ${owner.token}`, 'cf-connecting-ip': randomIp() };
  if (contentType) headers['content-type'] = contentType;
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`http://lead.test${path}`, { method, headers, body }), bindings, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: JSON.parse(text), text };
}

function importForm(csv: string): FormData {
  const form = new FormData();
  form.set('file', new File([csv], 'leads.csv', { type: 'text/csv' }));
  return form;
}

describe('the job outbox', () => {
  let owner: SignedUp;
  let handle: DatabaseHandle;

  /** Outbox rows of the organization, read as the owner role (the sweep's view). */
  const outboxRows = () => handle.db.select().from(jobOutbox).where(eq(jobOutbox.organizationId, owner.orgId));

  beforeAll(async () => {
    owner = await signupOrganization('Outbox');
    handle = openDatabase(readConfig(env));
  });

  afterAll(async () => {
    await handle.close();
  });

  it('sends the job message once the request has committed, and leaves no outbox row behind', async () => {
    const { jobs, response } = await createExportRecordingSends(owner, 'companies');
    expect(response.status, response.text).toBe(202);
    expect(jobs.sent).toEqual([{ kind: 'export', orgId: owner.orgId, jobId: response.body.data.id }]);
    expect(await outboxRows()).toEqual([]);
  });

  describe('a request that fails after writing its job', () => {
    // A real database failure at the last possible moment: COMMIT itself fails, after the upload
    // is in R2 and the file, job and outbox rows are written and the send is registered. A
    // deferred constraint trigger (for this organization only, so parallel test files are
    // unaffected) refuses the outbox row when the transaction commits.
    const trigger = () => `test_refuse_outbox_${owner.orgId}`;

    beforeAll(async () => {
      await handle.db.execute(
        sql.raw(
          `create function ${trigger()}() returns trigger language plpgsql as $$ begin raise exception 'outbox refused by test trigger'; end $$`,
        ),
      );
      await handle.db.execute(
        sql.raw(
          `create constraint trigger ${trigger()} after insert on job_outbox deferrable initially deferred for each row when (new.organization_id = ${owner.orgId}) execute function ${trigger()}()`,
        ),
      );
    });

    afterAll(async () => {
      await handle.db.execute(sql.raw(`drop trigger if exists ${trigger()} on job_outbox`));
      await handle.db.execute(sql.raw(`drop function if exists ${trigger()}()`));
    });

    it('an import sends nothing, keeps no job or file row, and leaves no object in R2', async () => {
      const jobs = recordingQueue();
      const response = await request(
        { ...env, JOBS: jobs.queue },
        owner,
        'POST',
        '/api/lead/lead-imports',
        importForm(csvOf(leadRows(3, 'rolled-back'))),
      );
      expect(response.status, response.text).toBe(500);
      expect(response.text).not.toMatch(/outbox refused/);
      expect(jobs.sent).toEqual([]);
      const [jobsLeft, filesLeft] = await asOrganization(owner.orgId, (tx) =>
        Promise.all([
          tx.select().from(importJobs).where(eq(importJobs.organizationId, owner.orgId)),
          tx.select().from(storedFiles).where(eq(storedFiles.organizationId, owner.orgId)),
        ]),
      );
      expect(jobsLeft).toEqual([]);
      expect(filesLeft).toEqual([]);
      const objects = await env.FILES.list({ prefix: `${owner.orgId}/import/` });
      expect(objects.objects.map((object) => object.key)).toEqual([]);
      expect(await outboxRows()).toEqual([]);
    });

    it('an export sends nothing and keeps no job', async () => {
      const { jobs, response } = await createExportRecordingSends(owner, 'leads');
      expect(response.status, response.text).toBe(500);
      expect(jobs.sent).toEqual([]);
      const left = await asOrganization(owner.orgId, (tx) =>
        tx.select().from(exportJobs).where(eq(exportJobs.exportType, 'leads')),
      );
      expect(left).toEqual([]);
    });
  });

  it('keeps the message when the send after commit fails, and the cron sweep delivers it', async () => {
    const failing = recordingQueue({ refuseSend: true });
    // The organization's other outbox rows are not this test's: a lead's scoring row stays until
    // the scoring job deletes it (consumerDeletes), as the rows of the import's own leads do once
    // the swept message runs it in the background (here its send fails, so it surely stays).
    // The test reads its own row only.
    const other = await request(
      { ...env, JOBS: failing.queue },
      owner,
      'POST',
      '/api/lead/add',
      JSON.stringify({ first_name: 'Other', last_name: 'Row' }),
      'application/json',
    );
    expect(other.status, other.text).toBe(201);
    const response = await request(
      { ...env, JOBS: failing.queue },
      owner,
      'POST',
      '/api/lead/lead-imports',
      importForm(csvOf(leadRows(4, `swept-${crypto.randomUUID().slice(0, 8)}`))),
    );
    expect(response.status, response.text).toBe(202);
    const jobId: number = response.body.data.id;
    const message: JobMessage = { kind: 'lead-import', orgId: owner.orgId, jobId };
    const isThisJob = (sent: JobMessage) => sent.kind === message.kind && sent.jobId === jobId;
    /** This import's outbox rows (the organization may have others). */
    const importRows = async () => (await outboxRows()).filter((row) => isThisJob(row.message as JobMessage));
    expect((await importRows()).map((row) => row.message)).toEqual([message]);

    // A sweep right away leaves a row this young alone: its own request may still be sending it.
    const sweeper = recordingQueue();
    const sweep = async () => {
      await worker.scheduled(createScheduledController({ cron: '* * * * *' }), { ...env, JOBS: sweeper.queue });
    };
    await sweep();
    expect(sweeper.sent).not.toContainEqual(message);
    expect(await importRows()).toHaveLength(1);

    await handle.db.execute(
      sql`update job_outbox set created_at = now() - interval '1 minute'
        where organization_id = ${owner.orgId} and message->>'kind' = ${message.kind} and (message->>'jobId')::bigint = ${jobId}`,
    );
    await sweep();
    expect(sweeper.sent.filter(isThisJob)).toEqual([message]);
    expect(await importRows()).toEqual([]);
    await sweep();
    expect(sweeper.sent.filter(isThisJob)).toHaveLength(1);

    // The swept message is an ordinary job message: the consumer runs the import.
    // (miniflare may deliver the same message meanwhile; the claim makes that harmless).
    await deliverJobs([message]);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [job] = await asOrganization(owner.orgId, (tx) =>
        tx.select().from(importJobs).where(eq(importJobs.id, jobId)),
      );
      if (job.status !== 'running' || Date.now() > deadline) {
        expect(job).toMatchObject({ status: 'completed', createdCount: 4 });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
});
