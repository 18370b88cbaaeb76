/**
 * Explainable lead scoring (issue 20, spec Events rule 4): a new lead is scored by a job its
 * creation queued through the outbox, with fit, engagement and the factors behind the score;
 * an intent signal and a change to a scored field rescore it; an organization with enough won
 * and lost leads trains a model whose factors move scores the expected way; a redelivered
 * message changes nothing; scores and factors are in the lead export.
 */
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import Papa from 'papaparse';
import { desc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { intentSignals, jobOutbox, leadScoreModels, leadScoringJobs } from '../src/db/schema';
import { observeStatements } from '../src/db/client';
import worker from '../src/index';
import { MAX_LEASE_RESENDS } from '../src/jobs/lease-sweep';
import type { JobMessage } from '../src/jobs/messages';
import { CALL_SIGNAL_WEIGHT } from '../src/modules/intent/scoring';
import { fitLogistic, MIN_LOST, MIN_WON, predict, scheduleRetraining } from '../src/modules/lead-scoring';
import { endCall } from '../src/modules/voice/call-progress';
import { ENGAGED_CALL_SECONDS } from '../src/modules/voice/pricing';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { asOrganization, deliverJobs, download, exportAndWait } from './cross-tenant/fixtures/jobs';
import { requestRecordingJobs } from './helpers/mail';
import { completedAgentCall, leadWithPhone, topUp } from './helpers/voice';

interface Explanation {
  score: number;
  fit: number;
  engagement: number;
  model_version: number | null;
  model_kind: string;
  training_sample_size: number;
  positive_factors: { feature: string; contribution: number; value: number }[];
  negative_factors: { feature: string; contribution: number; value: number }[];
  scored_at: string;
}

async function addLead(owner: SignedUp, body: Record<string, unknown>) {
  const response = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: { first_name: 'Score', last_name: 'Person', email: uniqueEmail('score'), ...body },
  });
  if (response.status !== 201) throw new Error(`lead: ${response.status} ${response.text}`);
  return response.body.data as { id: number; score: number };
}

async function viewLead(owner: SignedUp, id: number) {
  const response = await call('GET', `/api/lead/view/${id}`, { token: owner.token });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

/** Reads the lead until `ready` holds (the local queue consumer scores within a few seconds). */
async function pollLead(owner: SignedUp, id: number, ready: (lead: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lead = await viewLead(owner, id);
    if (ready(lead)) return lead;
    if (Date.now() > deadline) throw new Error(`lead ${id} not scored in time: ${JSON.stringify(lead)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const scored = (lead: any) => Boolean(lead.ai_information?.score);

async function scoringJobsOf(owner: SignedUp) {
  return asOrganization(owner.orgId, (tx) =>
    tx
      .select()
      .from(leadScoringJobs)
      .where(eq(leadScoringJobs.organizationId, owner.orgId))
      .orderBy(desc(leadScoringJobs.id)),
  );
}

/** Delivers the messages in one queue batch, with the statements the batch's own pool connections sent. */
async function deliveredWithStatements(messages: JobMessage[]) {
  const statements: string[] = [];
  const own = new Set<number>();
  const stop = observeStatements(
    (text, connection, first) => {
      if (first) own.add(connection);
      if (own.has(connection)) statements.push(text);
    },
    { pools: true },
  );
  try {
    return { result: await deliverJobs(messages), statements };
  } finally {
    stop();
  }
}

describe('lead scoring', () => {
  let owner: SignedUp;

  beforeAll(async () => {
    owner = await signupOrganization('Scoring');
  });

  it('scores a new lead within seconds, with fit, engagement and the factors behind the score', async () => {
    const started = Date.now();
    const created = await addLead(owner, { job_title: 'VP Sales' });
    expect(created.score).toBe(0);
    const lead = await pollLead(owner, created.id, scored);
    expect(Date.now() - started).toBeLessThan(20_000);
    const explanation = lead.ai_information.score as Explanation;
    expect(lead.score).toBe(explanation.score);
    expect(lead.score).toBeGreaterThan(0);
    expect(lead.score).toBeLessThanOrEqual(100);
    expect(lead.fit_score).toBe(explanation.fit);
    expect(lead.engagement_score).toBe(0);
    expect(explanation).toMatchObject({ model_version: null, model_kind: 'default', training_sample_size: 0 });
    // A VP title is above the seniority reference point; no engagement is below its own.
    expect(explanation.positive_factors[0]).toMatchObject({ feature: 'title_seniority', value: 0.8 });
    expect(explanation.positive_factors[0].contribution).toBeCloseTo(1.5 * (0.8 - 0.4), 3);
    expect(explanation.negative_factors.map((factor) => factor.feature)).toContain('engagement');
    expect(lead.score_factors).toEqual({
      positive_factors: explanation.positive_factors,
      negative_factors: explanation.negative_factors,
    });
    const listed = await call('GET', '/api/lead/list', { token: owner.token, query: { search_value: lead.email } });
    expect(listed.body.data[0]).toMatchObject({ id: lead.id, score: lead.score, fit_score: lead.fit_score });
  });

  it('ranks a more senior title higher, and a redelivered job message changes nothing', async () => {
    const ceo = await pollLead(owner, (await addLead(owner, { job_title: 'Chief Executive Officer' })).id, scored);
    const analyst = await pollLead(owner, (await addLead(owner, { job_title: 'Analyst' })).id, scored);
    expect(ceo.score).toBeGreaterThan(analyst.score);
    expect(ceo.fit_score).toBeGreaterThan(analyst.fit_score);

    const [job] = (await scoringJobsOf(owner)).filter((row) => row.leadIds?.includes(analyst.id));
    // A job of one batch is claimed, scored and completed in one transaction: it ends completed
    // with its count, no lease left, and the outbox row its creator left to it deleted.
    expect(job).toMatchObject({ status: 'completed', scoredCount: 1, checkpointId: analyst.id, leaseExpiresAt: null });
    expect(job.startedAt).not.toBeNull();
    expect(job.finishedAt).not.toBeNull();
    const message: JobMessage = { kind: 'lead-scoring', orgId: owner.orgId, jobId: job.id };
    const outbox = await asOrganization(owner.orgId, (tx) =>
      tx
        .select()
        .from(jobOutbox)
        .where(
          sql`${jobOutbox.organizationId} = ${owner.orgId} and ${jobOutbox.message} = ${JSON.stringify(message)}::jsonb`,
        ),
    );
    expect(outbox).toEqual([]);
    const result = await deliverJobs([message, message], 2);
    expect(result.retryMessages).toEqual([]);
    const [after] = (await scoringJobsOf(owner)).filter((row) => row.id === job.id);
    expect(after).toMatchObject({ status: 'completed', scoredCount: job.scoredCount, finishedAt: job.finishedAt });
    const again = await viewLead(owner, analyst.id);
    expect(again.ai_information.score).toEqual(analyst.ai_information.score);
    expect(again.updated_at).toBe(analyst.updated_at);
  });

  it('runs the job a created or changed lead asks for in one transaction, without a claim of its own', async () => {
    const lead = await pollLead(owner, (await addLead(owner, { job_title: 'Director of Sales' })).id, scored);
    // A job for this lead, as a change to a scored field asks for one; delivered here.
    const [job] = await asOrganization(owner.orgId, (tx) =>
      tx
        .insert(leadScoringJobs)
        .values({ organizationId: owner.orgId, leadIds: [lead.id] })
        .returning(),
    );
    const { result, statements } = await deliveredWithStatements([
      { kind: 'lead-scoring', orgId: owner.orgId, jobId: job.id },
    ]);
    expect(result.retryMessages).toEqual([]);
    // BEGIN, the scope, the job's row locked, its outbox row, the model, the leads' facts, their
    // scores, the job completed, COMMIT: a claim in a transaction of its own added five more.
    expect(statements, statements.join('\n')).toHaveLength(9);
    expect(statements.filter((text) => /^\s*(begin|commit)/i.test(text))).toHaveLength(2);
    const [after] = (await scoringJobsOf(owner)).filter((row) => row.id === job.id);
    expect(after).toMatchObject({ status: 'completed', scoredCount: 1, checkpointId: lead.id, leaseExpiresAt: null });
  });

  it('keeps a small job whose message waits in a backed-up queue open past the stall budget, and scores it when it arrives', async () => {
    const lead = await pollLead(owner, (await addLead(owner, { job_title: 'Head of Growth' })).id, scored);
    // A job for this lead whose message waits in the queue (nothing delivers it here).
    const [job] = await asOrganization(owner.orgId, (tx) =>
      tx
        .insert(leadScoringJobs)
        .values({ organizationId: owner.orgId, leadIds: [lead.id], createdAt: sql`now() - interval '5 minutes'` })
        .returning(),
    );
    const message: JobMessage = { kind: 'lead-scoring', orgId: owner.orgId, jobId: job.id };
    const resent: JobMessage[] = [];
    for (let expiry = 1; expiry <= MAX_LEASE_RESENDS + 2; expiry++) {
      const sent: JobMessage[] = [];
      const queue = {
        send: async (body: JobMessage) => void sent.push(body),
        sendBatch: async (messages: Iterable<MessageSendRequest<JobMessage>>) => {
          for (const each of messages) sent.push(each.body);
        },
      } as unknown as Queue<JobMessage>;
      await worker.scheduled(createScheduledController({ cron: '* * * * *' }), { ...env, JOBS: queue });
      resent.push(...sent.filter((body) => body.orgId === owner.orgId && body.jobId === job.id));
      const [waiting] = (await scoringJobsOf(owner)).filter((row) => row.id === job.id);
      expect(waiting).toMatchObject({ status: 'queued', error: null, finishedAt: null });
      await asOrganization(owner.orgId, (tx) =>
        tx
          .update(leadScoringJobs)
          .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
          .where(eq(leadScoringJobs.id, job.id)),
      );
    }
    expect(resent).toEqual(Array(MAX_LEASE_RESENDS + 2).fill(message));
    const result = await deliverJobs([message, ...resent.slice(0, 2)]);
    expect(result.retryMessages).toEqual([]);
    const [after] = (await scoringJobsOf(owner)).filter((row) => row.id === job.id);
    expect(after).toMatchObject({ status: 'completed', scoredCount: 1, error: null });
  });

  it('scores the small jobs of one queue batch together, each completed with its own count; the others run alone', async () => {
    const [a, b, c, gone] = await Promise.all(
      ['Director of Sales', 'Analyst', 'Founder', 'Intern'].map(async (title) =>
        pollLead(owner, (await addLead(owner, { job_title: title })).id, scored),
      ),
    );
    const deleted = await call('DELETE', '/api/lead/delete', { token: owner.token, body: { ids: [gone.id] } });
    expect(deleted.status, deleted.text).toBe(200);
    const other = await signupOrganization('Scoring batch other');
    const theirs = await pollLead(other, (await addLead(other, { job_title: 'Chief Executive Officer' })).id, scored);
    const queue = (org: SignedUp, values: { leadIds: number[] | null; retrain?: boolean }[]) =>
      asOrganization(org.orgId, (tx) =>
        tx
          .insert(leadScoringJobs)
          .values(values.map((value) => ({ organizationId: org.orgId, ...value })))
          .returning(),
      );
    const [one, two, ofDeleted] = await queue(owner, [
      { leadIds: [a.id] },
      { leadIds: [b.id, c.id] },
      { leadIds: [gone.id] },
    ]);
    const message = (org: SignedUp, jobId: number): JobMessage => ({ kind: 'lead-scoring', orgId: org.orgId, jobId });

    // Three jobs of one organization: the statements of one job's transaction, not three times them.
    const { result, statements } = await deliveredWithStatements([
      message(owner, one.id),
      message(owner, two.id),
      message(owner, ofDeleted.id),
    ]);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(3);
    expect(statements, statements.join('\n')).toHaveLength(9);
    const rows = new Map((await scoringJobsOf(owner)).map((row) => [row.id, row]));
    const ended = { status: 'completed', error: null, leaseExpiresAt: null };
    expect(rows.get(one.id)).toMatchObject({ ...ended, scoredCount: 1, checkpointId: a.id });
    expect(rows.get(two.id)).toMatchObject({ ...ended, scoredCount: 2, checkpointId: Math.max(b.id, c.id) });
    // Its lead was deleted: nothing read, nothing scored, the job still ends.
    expect(rows.get(ofDeleted.id)).toMatchObject({ ...ended, scoredCount: 0, checkpointId: 0 });
    for (const id of [one.id, two.id, ofDeleted.id]) expect(rows.get(id)?.startedAt).not.toBeNull();

    // A batch of two organizations, a retraining (the claim path) and a job that ended already.
    const [retrain] = await queue(owner, [{ leadIds: null, retrain: true }]);
    const [theirJob] = await queue(other, [{ leadIds: [theirs.id] }]);
    const mixed = await deliverJobs([message(owner, retrain.id), message(other, theirJob.id), message(owner, one.id)]);
    expect(mixed.retryMessages).toEqual([]);
    expect(mixed.explicitAcks).toHaveLength(3);
    const after = new Map((await scoringJobsOf(owner)).map((row) => [row.id, row]));
    expect(after.get(retrain.id)).toMatchObject({ ...ended, retrain: false });
    expect(after.get(retrain.id)?.scoredCount).toBeGreaterThanOrEqual(3);
    expect(after.get(one.id)).toEqual(rows.get(one.id));
    const [theirRow] = (await scoringJobsOf(other)).filter((row) => row.id === theirJob.id);
    expect(theirRow).toMatchObject({ ...ended, scoredCount: 1, checkpointId: theirs.id });
  });

  it('rescores on a new intent signal (engagement) and on a change to a scored field (fit)', async () => {
    const lead = await pollLead(owner, (await addLead(owner, { job_title: 'Analyst' })).id, scored);
    const signal = await call('POST', '/api/intent-alert/signal', {
      token: owner.token,
      body: { lead_id: lead.id, signal_type: 'demo_requested' },
    });
    expect(signal.status, signal.text).toBe(201);
    const engaged = await pollLead(owner, lead.id, (now) => now.engagement_score > 0);
    expect(engaged.engagement_score).toBe(40);
    expect(engaged.score).toBeGreaterThan(lead.score);
    expect(engaged.fit_score).toBe(lead.fit_score);
    expect(engaged.ai_information.score.positive_factors[0]).toMatchObject({ feature: 'engagement', value: 0.4 });

    const updated = await call('POST', `/api/lead/update/${lead.id}`, {
      token: owner.token,
      body: { job_title: 'Founder & CEO' },
    });
    expect(updated.status, updated.text).toBe(200);
    const promoted = await pollLead(owner, lead.id, (now) => now.fit_score > lead.fit_score);
    expect(promoted.score).toBeGreaterThan(engaged.score);
  });

  it('exports score, fit, engagement and the factors', async () => {
    const lead = await pollLead(owner, (await addLead(owner, { job_title: 'Director of IT' })).id, scored);
    const job = await exportAndWait(owner, { export_type: 'leads' });
    expect(job.status, JSON.stringify(job)).toBe('completed');
    const csv = await (await download(owner, job.id)).text();
    const rows = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    }).data;
    const row = rows.find((candidate) => Number(candidate.id) === lead.id);
    expect(row).toMatchObject({
      score: String(lead.score),
      fit_score: String(lead.fit_score),
      engagement_score: '0',
    });
    expect(row?.score_factors).toMatch(/^title_seniority \+0\.3; engagement -0\.3/);
  });
});

describe('a completed outbound call counts as engagement', () => {
  let caller: SignedUp;

  beforeAll(async () => {
    caller = await signupOrganization('Scoring calls');
    await topUp(caller, 5);
  });

  /** Runs the newest scoring job of the lead (a call's signal leaves its message to the outbox sweep). */
  async function runScoringOf(leadId: number) {
    const [job] = (await scoringJobsOf(caller)).filter((row) => row.leadIds?.includes(leadId));
    await deliverJobs([{ kind: 'lead-scoring', orgId: caller.orgId, jobId: job.id }]);
  }

  it(`from ${ENGAGED_CALL_SECONDS} s on: the call's signal raises the lead's engagement and score; a shorter one changes nothing`, async () => {
    const leadId = await leadWithPhone(caller, '+14155550177', 'Callee');
    const before = await pollLead(caller, leadId, scored);
    expect(before.engagement_score).toBe(0);

    // Ended one second short of the threshold (as a provider's report would end it): no engagement.
    const short = await requestRecordingJobs('POST', '/api/call/agent/initiate', {
      token: caller.token,
      body: { system_prompt: 'Hi', lead_id: leadId },
    });
    expect(short.status, short.text).toBe(202);
    const endedAt = new Date();
    const ended = await asOrganization(caller.orgId, (tx) =>
      endCall(tx, { orgId: caller.orgId, userId: caller.userId }, short.body.data.id, {
        status: 'completed',
        durationSec: ENGAGED_CALL_SECONDS - 1,
        answeredAt: new Date(endedAt.getTime() - (ENGAGED_CALL_SECONDS - 1) * 1000),
        endedAt,
        transcript: null,
      }),
    );
    expect(ended?.status).toBe('completed');
    const signals = () =>
      asOrganization(caller.orgId, (tx) => tx.select().from(intentSignals).where(eq(intentSignals.leadId, leadId)));
    expect(await signals()).toEqual([]);

    // The simulator's call lasts 45 s: its signal is written with the call's end, and scoring follows.
    const callId = await completedAgentCall(caller, leadId);
    expect(await signals()).toEqual([
      expect.objectContaining({ signalType: 'manual', source: 'call', dedupeKey: `call:${callId}` }),
    ]);
    await runScoringOf(leadId);
    const engaged = await pollLead(caller, leadId, (now) => now.engagement_score > 0);
    expect(engaged.engagement_score).toBe(CALL_SIGNAL_WEIGHT);
    expect(engaged.score).toBeGreaterThan(before.score);
    expect(engaged.fit_score).toBe(before.fit_score);
    // Engagement 0.25 is above the default model's reference point (0.1): the conversation counts for the lead.
    const factors = (lead: any, side: 'positive_factors' | 'negative_factors') =>
      lead.ai_information.score[side].map((factor: { feature: string }) => factor.feature);
    expect(factors(before, 'negative_factors')).toContain('engagement');
    expect(factors(engaged, 'negative_factors')).not.toContain('engagement');
    expect(factors(engaged, 'positive_factors')).toContain('engagement');
  });
});

describe('learned weights', () => {
  it('fits an L2 logistic regression whose weight follows the feature the outcome depends on', () => {
    const rows: number[][] = [];
    const outcomes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const decisive = i % 2;
      const noise = ((i * 7919) % 13) / 12;
      rows.push([decisive, noise]);
      // Mostly decided by the first feature, with a few exceptions so the fit stays finite.
      outcomes.push(i % 20 === 0 || i % 20 === 11 ? 1 - decisive : decisive);
    }
    const fit = fitLogistic(rows, outcomes);
    expect(fit.features[0].weight).toBeGreaterThan(2);
    expect(Math.abs(fit.features[1].weight)).toBeLessThan(0.5);
    expect(fit.features[0].mean).toBeCloseTo(0.5, 5);
    const high = predict(fit, [1, 0.5]);
    const low = predict(fit, [0, 0.5]);
    expect(high.probability).toBeGreaterThan(0.8);
    expect(low.probability).toBeLessThan(0.2);
    // Contributions are w·(x − mean), and they add up to the logit.
    expect(high.contributions[0]).toBeCloseTo(fit.features[0].weight * 0.5, 6);
    expect(fit.intercept + high.contributions.reduce((a, b) => a + b, 0)).toBeCloseTo(high.logit, 9);
    // A stronger penalty shrinks the weight.
    expect(fitLogistic(rows, outcomes, 1).features[0].weight).toBeLessThan(fit.features[0].weight);
  });

  it('trains a model from won and lost leads whose industry factor moves new leads’ scores the expected way', async () => {
    const org = await signupOrganization('Scoring model');
    // Won leads are fintech (status 5 Converted), lost ones retail (status 6 Lost); nothing else differs.
    const bodies = [
      ...Array.from({ length: MIN_WON + 5 }, () => ({ industry: 'Fintech', status: 5, job_title: 'Manager' })),
      ...Array.from({ length: MIN_LOST + 5 }, () => ({ industry: 'Retail', status: 6, job_title: 'Manager' })),
    ];
    for (let i = 0; i < bodies.length; i += 10) {
      await Promise.all(bodies.slice(i, i + 10).map((body) => addLead(org, body)));
    }
    const scheduled = await asOrganization(org.orgId, (tx) => scheduleRetraining(tx, [org.orgId]));
    expect(scheduled).toBe(1);
    const [job] = (await scoringJobsOf(org)).filter((row) => row.retrain);
    await deliverJobs([{ kind: 'lead-scoring', orgId: org.orgId, jobId: job.id }]);

    const [model] = await asOrganization(org.orgId, (tx) =>
      tx.select().from(leadScoreModels).where(eq(leadScoreModels.organizationId, org.orgId)),
    );
    expect(model).toMatchObject({ version: 1, kind: 'learned', wonCount: MIN_WON + 5, lostCount: MIN_LOST + 5 });
    expect(model.idealProfile.industries).toEqual(['fintech']);
    const weight = (name: string) => model.features.find((feature) => feature.name === name)?.weight ?? 0;
    expect(weight('industry')).toBeGreaterThan(1);
    expect(Math.abs(weight('title_seniority'))).toBeLessThan(0.01);

    const fintech = await pollLead(org, (await addLead(org, { industry: 'FinTech', job_title: 'Manager' })).id, scored);
    const retail = await pollLead(org, (await addLead(org, { industry: 'Retail', job_title: 'Manager' })).id, scored);
    expect(fintech.score).toBeGreaterThan(70);
    expect(retail.score).toBeLessThan(30);
    expect(fintech.ai_information.score).toMatchObject({
      model_version: 1,
      model_kind: 'learned',
      training_sample_size: MIN_WON + 5 + (MIN_LOST + 5),
    });
    expect(fintech.ai_information.score.positive_factors[0].feature).toBe('industry');
    expect(retail.ai_information.score.negative_factors[0].feature).toBe('industry');

    // Retraining on unchanged outcomes records no new version.
    await asOrganization(org.orgId, (tx) => scheduleRetraining(tx, [org.orgId]));
    const [again] = (await scoringJobsOf(org)).filter((row) => row.retrain && row.id !== job.id);
    await deliverJobs([{ kind: 'lead-scoring', orgId: org.orgId, jobId: again.id }]);
    const versions = await asOrganization(org.orgId, (tx) =>
      tx.select().from(leadScoreModels).where(eq(leadScoreModels.organizationId, org.orgId)),
    );
    expect(versions).toHaveLength(1);
  });
});
