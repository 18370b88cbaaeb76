/**
 * Ended jobs no route shows (src/jobs/ended-jobs.ts): lead-scoring, calendar sync and mail-send
 * jobs that ended more than ENDED_JOB_RETENTION_DAYS ago are deleted by the minute cron, in every
 * organization; younger ones and open ones (queued, running) stay. A mail-send job's messages stay.
 *
 * Test files share one database, and another file's cron run may sweep the same rows at any
 * moment, so the tests assert what is left, never how many rows a sweep reported.
 */
import { env } from 'cloudflare:workers';
import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { calendarSyncJobs, leadScoringJobs, mailMessages, mailSendJobs } from '../src/db/schema';
import { readConfig } from '../src/env';
import { ENDED_JOB_RETENTION_DAYS, sweepEndedJobs } from '../src/jobs/ended-jobs';
import type { JobMessage } from '../src/jobs/messages';
import { call, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';
import { runMinuteCron } from './helpers/cron';
import { inOrganization } from './helpers/leads';
import { addLocalAccount, deliverJobs, requestRecordingJobs } from './helpers/mail';

const sweep = (batch?: number) => withOwnDatabase(readConfig(env), (db) => sweepEndedJobs(db, batch));

/** `finished_at` so many days ago, or null (an open job). */
const endedDaysAgo = (days: number | null) => (days === null ? null : sql`now() - make_interval(days => ${days})`);

async function scoringJob(owner: SignedUp, status: string, days: number | null): Promise<number> {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx
      .insert(leadScoringJobs)
      .values({
        organizationId: owner.orgId,
        leadIds: [1],
        status,
        finishedAt: endedDaysAgo(days),
        createdAt: sql`now() - make_interval(days => 30)`,
      })
      .returning({ id: leadScoringJobs.id }),
  );
  return row.id;
}

async function syncJob(owner: SignedUp, connectionId: number, status: string, days: number | null): Promise<number> {
  const [row] = await inOrganization(owner.orgId, (tx) =>
    tx
      .insert(calendarSyncJobs)
      .values({ organizationId: owner.orgId, connectionId, status, finishedAt: endedDaysAgo(days) })
      .returning({ id: calendarSyncJobs.id }),
  );
  return row.id;
}

async function left(owner: SignedUp, ids: { scoring: number[]; sync: number[] }) {
  return inOrganization(owner.orgId, async (tx) => ({
    scoring: (
      await tx.select({ id: leadScoringJobs.id }).from(leadScoringJobs).where(inArray(leadScoringJobs.id, ids.scoring))
    )
      .map((row) => row.id)
      .sort((a, b) => a - b),
    sync: (
      await tx
        .select({ id: calendarSyncJobs.id })
        .from(calendarSyncJobs)
        .where(inArray(calendarSyncJobs.id, ids.sync.length ? ids.sync : [0]))
    )
      .map((row) => row.id)
      .sort((a, b) => a - b),
  }));
}

let first: SignedUp;
let second: SignedUp;
let calendarId: number;

beforeAll(async () => {
  [first, second] = await Promise.all([signupOrganization('Ended jobs'), signupOrganization('Ended jobs 2')]);
  const connected = await call('POST', '/api/calendar/connections/add', {
    token: first.token,
    body: { provider: 'local' },
  });
  expect(connected.status, connected.text).toBe(201);
  calendarId = connected.body.data.id;
});

describe('ended jobs no route shows', () => {
  it('deletes those that ended more than the retention ago, in every organization; keeps younger and open ones', async () => {
    const old = ENDED_JOB_RETENTION_DAYS + 1;
    const young = ENDED_JOB_RETENTION_DAYS - 1;
    const scoring = {
      completed: await scoringJob(first, 'completed', old),
      failed: await scoringJob(first, 'failed', old),
      recent: await scoringJob(first, 'completed', young),
      queued: await scoringJob(first, 'queued', null),
      running: await scoringJob(first, 'running', null),
    };
    const sync = {
      completed: await syncJob(first, calendarId, 'completed', old),
      recent: await syncJob(first, calendarId, 'completed', young),
      running: await syncJob(first, calendarId, 'running', null),
    };
    const theirs = await scoringJob(second, 'completed', old);

    await sweep();

    expect(await left(first, { scoring: Object.values(scoring), sync: Object.values(sync) })).toEqual({
      scoring: [scoring.recent, scoring.queued, scoring.running].sort((a, b) => a - b),
      sync: [sync.recent, sync.running].sort((a, b) => a - b),
    });
    expect(await left(second, { scoring: [theirs], sync: [] })).toEqual({ scoring: [], sync: [] });
  });

  it('works through more than a batch, and runs on the minute cron', async () => {
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await scoringJob(second, 'completed', ENDED_JOB_RETENTION_DAYS + 2));
    await sweep(2);
    expect(await left(second, { scoring: ids, sync: [] })).toEqual({ scoring: [], sync: [] });

    const last = await syncJob(first, calendarId, 'failed', ENDED_JOB_RETENTION_DAYS + 1);
    await runMinuteCron();
    expect(await left(first, { scoring: [], sync: [last] })).toEqual({ scoring: [], sync: [] });
  });

  it('deletes an ended mail-send job and keeps its message, sent, with the job no longer named', async () => {
    const configId = await addLocalAccount(first, uniqueEmail('rep'));
    const sendOne = async (subject: string) => {
      const response = await requestRecordingJobs('POST', '/api/inbox/send', {
        token: first.token,
        body: { config_id: configId, to: uniqueEmail('buyer'), subject, body: 'Hello' },
      });
      expect(response.status, response.text).toBe(202);
      await deliverJobs(response.sent);
      return {
        messageId: response.body.data.id as number,
        jobId: (response.sent[0] as Extract<JobMessage, { kind: 'mail-send' }>).jobId,
      };
    };
    const old = await sendOne('Sent long ago');
    const recent = await sendOne('Sent this week');
    await inOrganization(first.orgId, (tx) =>
      tx
        .update(mailSendJobs)
        .set({ finishedAt: endedDaysAgo(ENDED_JOB_RETENTION_DAYS + 1) })
        .where(eq(mailSendJobs.id, old.jobId)),
    );

    await sweep();

    const jobsLeft = await inOrganization(first.orgId, (tx) =>
      tx
        .select({ id: mailSendJobs.id, status: mailSendJobs.status })
        .from(mailSendJobs)
        .where(inArray(mailSendJobs.id, [old.jobId, recent.jobId])),
    );
    expect(jobsLeft).toEqual([{ id: recent.jobId, status: 'completed' }]);
    const messages = await inOrganization(first.orgId, (tx) =>
      tx
        .select({ id: mailMessages.id, status: mailMessages.status, sendJobId: mailMessages.sendJobId })
        .from(mailMessages)
        .where(inArray(mailMessages.id, [old.messageId, recent.messageId]))
        .orderBy(mailMessages.id),
    );
    expect(messages).toEqual([
      { id: old.messageId, status: 'sent', sendJobId: null },
      { id: recent.messageId, status: 'sent', sendJobId: recent.jobId },
    ]);
  });
});
