/**
 * Export files' retention (modules/exports/retention.ts): EXPORT_FILE_RETENTION_DAYS after an
 * export finished, the minute cron deletes its file (the stored file's row and the R2 object) in
 * every organization; the job stays, completed, without a file, its download a 410
 * `export_expired`. A younger export keeps its file; a sweep twice changes nothing more. With R2
 * failing, the export keeps its file and the other retention sweeps still run.
 *
 * Test files share one database, and another file's cron run may sweep the same rows at any
 * moment, so the tests assert what is left, never how many rows a sweep reported.
 */
import { env } from 'cloudflare:workers';
import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { exportJobs, storedFiles } from '../src/db/schema';
import { readConfig } from '../src/env';
import { EXPORT_FILE_RETENTION_DAYS, sweepExpiredExports } from '../src/modules/exports/retention';
import { runRetentionSweeps } from '../src/retention-sweeps';
import { call, randomIp, type SignedUp, signupOrganization } from './helpers/api';
import { runMinuteCron } from './helpers/cron';
import { asOrganization, download, exportAndWait } from './cross-tenant/fixtures/jobs';

const owner = <T>(work: Parameters<typeof withOwnDatabase<T>>[1]) => withOwnDatabase(readConfig(env), work);
const sweep = (batch?: number) => owner((db) => sweepExpiredExports(db, env.FILES, batch));

interface ExportJob {
  id: number;
  file_id: number | null;
  download_url: string | null;
  expires_at: string | null;
  finished_at: string;
  status: string;
}

async function completedExport(user: SignedUp): Promise<ExportJob & { storageKey: string }> {
  const job: ExportJob = await exportAndWait(user, { export_type: 'leads' });
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const [file] = await asOrganization(user.orgId, (tx) =>
    tx
      .select({ key: storedFiles.storageKey })
      .from(storedFiles)
      .where(eq(storedFiles.id, job.file_id as number)),
  );
  return { ...job, storageKey: file.key };
}

/** Moves the export's end `days` into the past. */
function finishedDaysAgo(user: SignedUp, id: number, days: number) {
  return asOrganization(user.orgId, (tx) =>
    tx
      .update(exportJobs)
      .set({ finishedAt: sql`now() - make_interval(days => ${days})` })
      .where(eq(exportJobs.id, id)),
  );
}

async function listed(user: SignedUp, id: number): Promise<ExportJob> {
  const response = await call('GET', '/api/exports/list', { token: user.token, query: { limit: 100 } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.find((job: ExportJob) => job.id === id);
}

function login(user: SignedUp, password: string) {
  return call('POST', '/api/auth/login', {
    body: { email: user.email, password },
    headers: { 'cf-connecting-ip': randomIp() },
  });
}

let first: SignedUp;
let second: SignedUp;

beforeAll(async () => {
  [first, second] = await Promise.all([
    signupOrganization('Export retention'),
    signupOrganization('Export retention 2'),
  ]);
  for (const user of [first, second]) {
    const lead = await call('POST', '/api/lead/add', {
      token: user.token,
      body: { first_name: 'Kept', last_name: 'Awhile', email: `kept-${user.orgId}@example.com` },
    });
    expect(lead.status, lead.text).toBe(201);
  }
});

describe('export file retention', () => {
  it('shows when a completed export’s file expires', async () => {
    const job = await completedExport(first);
    expect(job.download_url).toBe(`/api/exports/download/${job.id}`);
    expect(Date.parse(job.expires_at as string) - Date.parse(job.finished_at)).toBe(
      EXPORT_FILE_RETENTION_DAYS * 86_400_000,
    );
  });

  it('deletes the file of an export past its days, in every organization; the job stays and its download is a 410', async () => {
    const old = await completedExport(first);
    const recent = await completedExport(first);
    const theirs = await completedExport(second);
    await finishedDaysAgo(first, old.id, EXPORT_FILE_RETENTION_DAYS + 1);
    await finishedDaysAgo(first, recent.id, EXPORT_FILE_RETENTION_DAYS - 1);
    await finishedDaysAgo(second, theirs.id, EXPORT_FILE_RETENTION_DAYS + 2);

    await sweep();

    // The old exports' files are gone: the R2 objects and the stored files' rows.
    expect(await env.FILES.head(old.storageKey)).toBeNull();
    expect(await env.FILES.head(theirs.storageKey)).toBeNull();
    const files = await owner((db) =>
      db
        .select({ id: storedFiles.id })
        .from(storedFiles)
        .where(inArray(storedFiles.id, [old.file_id, recent.file_id, theirs.file_id] as number[])),
    );
    expect(files.map((file) => file.id)).toEqual([recent.file_id]);
    const storedDownload = await call('GET', `/api/storage-file/download/${old.file_id}`, { token: first.token });
    expect(storedDownload.status).toBe(404);

    // The job stays, completed, without its file.
    const expired = await listed(first, old.id);
    expect(expired).toMatchObject({ status: 'completed', file_id: null, download_url: null });
    expect(Date.parse(expired.expires_at as string)).toBeLessThan(Date.now());
    const gone = await download(first, old.id);
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({
      success: false,
      error: { type: 'gone', code: 'export_expired', details: { expired_at: expired.expires_at } },
    });
    expect((await download(second, theirs.id)).status).toBe(410);

    // The younger export keeps its file.
    expect(await listed(first, recent.id)).toMatchObject({ file_id: recent.file_id });
    const kept = await download(first, recent.id);
    expect(kept.status).toBe(200);
    expect(await kept.text()).toContain('Awhile');

    // Another organization's expired export is still a 404 to this one.
    expect((await download(first, theirs.id)).status).toBe(404);

    // A second sweep finds nothing more of these.
    await sweep();
    expect(await listed(first, recent.id)).toMatchObject({ file_id: recent.file_id });
  });

  it('works through more than a batch, and runs on the minute cron', async () => {
    const due = [await completedExport(second), await completedExport(second)];
    for (const job of due) await finishedDaysAgo(second, job.id, EXPORT_FILE_RETENTION_DAYS + 1);
    await sweep(1);
    for (const job of due) expect(await listed(second, job.id)).toMatchObject({ file_id: null });

    const last = await completedExport(second);
    await finishedDaysAgo(second, last.id, EXPORT_FILE_RETENTION_DAYS + 1);
    await runMinuteCron();
    expect(await listed(second, last.id)).toMatchObject({ file_id: null, download_url: null });
    expect(await env.FILES.head(last.storageKey)).toBeNull();
  });

  it('R2 failing during the sweep: the export keeps its file, the other sweeps still run, and the next run expires it', async () => {
    const job = await completedExport(first);
    const failure = await login(first, 'wrong password');
    expect(failure.status).toBe(401);
    await owner((db) =>
      db.execute(
        sql`update login_failures set failed_at = now() - interval '1 day' where email_key = ${first.email.toLowerCase()}`,
      ),
    );
    const unavailable = {
      delete: async () => {
        throw new Error('R2 is unavailable');
      },
    } as unknown as R2Bucket;

    // Aged just before the run, which sweeps export files first: another test file's cron has
    // next to no time to expire it in between.
    await finishedDaysAgo(first, job.id, EXPORT_FILE_RETENTION_DAYS + 1);
    await expect(runRetentionSweeps({ ...env, FILES: unavailable })).rejects.toThrow('retention sweeps failed');
    expect(await listed(first, job.id)).toMatchObject({ file_id: job.file_id, download_url: expect.any(String) });
    expect(await env.FILES.head(job.storageKey)).not.toBeNull();
    // The sweep after it in the list ran all the same.
    const failures = await owner((db) =>
      db.execute(sql`select 1 from login_failures where email_key = ${first.email.toLowerCase()}`),
    );
    expect(failures.rows).toHaveLength(0);

    await runRetentionSweeps(env);
    expect(await listed(first, job.id)).toMatchObject({ file_id: null, download_url: null });
    expect(await env.FILES.head(job.storageKey)).toBeNull();
  });
});
