/**
 * AI email drafts: written for a lead (charged), listed, approved, edited, rejected, regenerated,
 * sent only once approved (through the mail path, with tracking); the bulk job writes one draft
 * per lead, charges per item, and nothing twice when its message is redelivered. Every AI call
 * here runs on the local provider, which costs credits like a real one.
 */
import { eq, sql } from 'drizzle-orm';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { aiEmailDrafts, creditLedger, leads, mailMessages } from '../src/db/schema';
import { STARTING_GRANT } from '../src/modules/credits';
import { call, expectFailure, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { heldAnswer, paidCallMeanwhile } from './helpers/held-answer';
import { inOrganization } from './helpers/leads';
import { addLocalAccount, deliverEvents, deliverJobs, requestRecordingJobs } from './helpers/mail';
import { REASONS as MAIL_SEND_REASONS } from '../src/modules/mail/send-job';
import { BOUNCED_REASON_PREFIX } from '../src/modules/mail/bounces';

let org: SignedUp;
let other: SignedUp;
let leadId: number;
let leadEmail: string;

async function addLead(owner: SignedUp, body: Record<string, unknown> = {}) {
  const response = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: uniqueEmail('grace'),
      company: 'Navy Labs',
      job_title: 'CTO',
      ...body,
    },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: number; email: string };
}

async function balance(owner: SignedUp): Promise<number> {
  return (await call('GET', '/api/credits', { token: owner.token })).body.data.balance;
}

async function generate(owner: SignedUp, id: number, body: Record<string, unknown> = {}) {
  return call('POST', `/api/ai-email/generate/${id}`, { token: owner.token, body });
}

/** Leaves the organization `left` credits (a settled reservation for the rest). */
async function spendDownTo(owner: SignedUp, left: number) {
  const now = await balance(owner);
  await inOrganization(owner.orgId, async (tx) => {
    const [row] = await tx
      .insert(creditLedger)
      .values({
        organizationId: owner.orgId,
        kind: 'reservation',
        amount: left - now,
        feature: 'ai_tools',
        idempotencyKey: `drain:${crypto.randomUUID()}`,
      })
      .returning({ id: creditLedger.id });
    await tx.insert(creditLedger).values({
      organizationId: owner.orgId,
      kind: 'settlement',
      amount: 0,
      feature: 'ai_tools',
      reservationId: row.id,
    });
  });
}

beforeAll(async () => {
  org = await signupOrganization('AI email');
  other = await signupOrganization('AI email other');
  const lead = await addLead(org);
  leadId = lead.id;
  leadEmail = lead.email;
});

describe('POST /api/ai-email/generate/:lead_id', () => {
  it('writes a draft from the lead’s data, records provider, model and prompt version, and charges 2 credits', async () => {
    const before = await balance(org);
    const response = await generate(org, leadId, { persona: 'Ada, account executive' });
    expect(response.status, response.text).toBe(201);
    const draft = response.body.data;
    expect(draft).toMatchObject({
      lead_id: leadId,
      status: 'draft',
      persona: 'Ada, account executive',
      provider: 'local',
      model: 'local-template',
      prompt_version: 'email-draft@v1',
      approved_by: null,
    });
    expect(draft.subject).toBe('An idea for Navy Labs');
    expect(draft.body).toContain('Hi Grace,');
    expect(draft.body).toContain('As CTO at Navy Labs');
    expect(await balance(org)).toBe(before - 2);
    // Deterministic: the same lead gives the same text.
    expect((await generate(org, leadId, { persona: 'Ada, account executive' })).body.data.body).toBe(draft.body);
  });

  it('answers 404 for a lead of another organization, and charges nothing', async () => {
    const foreign = await addLead(other);
    const before = await balance(org);
    const response = await generate(org, foreign.id);
    expectFailure(response, 404, 'not_found');
    expect(response.body.error.message).toBe(`Lead ${foreign.id} not found`);
    expect(await balance(org)).toBe(before);
  });

  it('answers 402 insufficient_credits with the price and the balance, and writes nothing', async () => {
    const poor = await signupOrganization('AI email poor');
    const lead = await addLead(poor);
    await spendDownTo(poor, 1);
    const response = await generate(poor, lead.id);
    expectFailure(response, 402, 'payment_required');
    expect(response.body.error).toMatchObject({
      code: 'insufficient_credits',
      details: { feature: 'email_draft', price: 2, balance: 1 },
    });
    const drafts = await call('GET', `/api/ai-email/drafts/lead/${lead.id}`, { token: poor.token });
    expect(drafts.body.total).toBe(0);
    expect(await balance(poor)).toBe(1);
  });

  it('never goes below zero under concurrent requests: a balance of 5 pays 2 of 6 parallel drafts', async () => {
    const racer = await signupOrganization('AI email race');
    const lead = await addLead(racer);
    await spendDownTo(racer, 5);
    const responses = await Promise.all(Array.from({ length: 6 }, () => generate(racer, lead.id)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 402, 402, 402, 402]);
    expect(await balance(racer)).toBe(1);
    expect((await call('GET', `/api/ai-email/drafts/lead/${lead.id}`, { token: racer.token })).body.total).toBe(2);
  });
});

describe('a draft’s life', () => {
  let configId: number;

  beforeAll(async () => {
    configId = await addLocalAccount(org, uniqueEmail('rep'));
  });

  it('lists the lead’s drafts, newest first, filtered by status', async () => {
    const response = await call('GET', `/api/ai-email/drafts/lead/${leadId}`, {
      token: org.token,
      query: { status: 'draft' },
    });
    expect(response.status).toBe(200);
    expect(response.body.total).toBeGreaterThanOrEqual(2);
    expect(response.body.data.every((draft: { status: string }) => draft.status === 'draft')).toBe(true);
    expectFailure(await call('GET', `/api/ai-email/drafts/lead/${leadId}`, { token: other.token }), 404, 'not_found');
  });

  it('refuses to send an unapproved draft with 409 naming its state, and sends nothing', async () => {
    const draft = (await generate(org, leadId)).body.data;
    const response = await call('POST', `/api/ai-email/draft/${draft.id}/send`, {
      token: org.token,
      body: { config_id: configId },
    });
    expectFailure(response, 409, 'conflict');
    expect(response.body.error).toMatchObject({
      code: 'draft_not_approved',
      details: { draft_id: draft.id, status: 'draft' },
    });
    const sent = await inOrganization(org.orgId, (tx) =>
      tx.select({ id: mailMessages.id }).from(mailMessages).where(eq(mailMessages.subject, draft.subject)),
    );
    expect(sent).toEqual([]);
  });

  it('approves (who and when), sends through the mail path with tracking and List-Unsubscribe, and ends sent', async () => {
    const draft = (await generate(org, leadId)).body.data;
    const approved = await call('PUT', `/api/ai-email/draft/${draft.id}/approve`, { token: org.token });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', approved_by: org.userId });
    expect(approved.body.data.approved_at).not.toBeNull();
    expectFailure(await call('PUT', `/api/ai-email/draft/${draft.id}/approve`, { token: org.token }), 409, 'conflict');

    const send = await requestRecordingJobs('POST', `/api/ai-email/draft/${draft.id}/send`, {
      token: org.token,
      body: { config_id: configId },
    });
    expect(send.status, send.text).toBe(202);
    expect(send.body.data.draft).toMatchObject({ status: 'queued', mail_message_id: send.body.data.message.id });
    expect(send.body.data.message).toMatchObject({ to: [leadEmail], subject: draft.subject, lead_id: leadId });
    const [stored] = await inOrganization(org.orgId, (tx) =>
      tx.select().from(mailMessages).where(eq(mailMessages.id, send.body.data.message.id)),
    );
    expect(stored.headers.some((header) => header.startsWith('List-Unsubscribe:'))).toBe(true);
    expect(stored.bodyHtml).toMatch(/\/api\/v1\/track\/open\//);

    await deliverJobs(send.sent);
    const listed = await call('GET', `/api/ai-email/drafts/lead/${leadId}`, {
      token: org.token,
      query: { status: 'sent' },
    });
    expect(listed.body.data.map((row: { id: number }) => row.id)).toContain(draft.id);
    // Sent once: sending again is refused, naming the state.
    const again = await call('POST', `/api/ai-email/draft/${draft.id}/send`, {
      token: org.token,
      body: { config_id: configId },
    });
    expect(again.body.error).toMatchObject({ code: 'draft_not_approved', details: { status: 'sent' } });
  });

  it('a draft whose lead unsubscribed while its send was queued is not sent and reads failed, saying why', async () => {
    const lead = await addLead(org);
    const draft = (await generate(org, lead.id)).body.data;
    await call('PUT', `/api/ai-email/draft/${draft.id}/approve`, { token: org.token });
    const send = await requestRecordingJobs('POST', `/api/ai-email/draft/${draft.id}/send`, {
      token: org.token,
      body: { config_id: configId },
    });
    expect(send.status, send.text).toBe(202);
    await deliverEvents([
      { kind: 'unsubscribe', orgId: org.orgId, address: lead.email.toLowerCase(), at: new Date().toISOString() },
    ]);
    await deliverJobs(send.sent);
    const listed = await call('GET', `/api/ai-email/drafts/lead/${lead.id}`, {
      token: org.token,
      query: { status: 'failed' },
    });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: draft.id, status: 'failed', failure_reason: MAIL_SEND_REASONS.suppressed }),
    ]);
  });

  it('a sent draft whose message bounced (a delivery report in the inbox) reads failed, saying why', async () => {
    const lead = await addLead(org);
    const draft = (await generate(org, lead.id)).body.data;
    await call('PUT', `/api/ai-email/draft/${draft.id}/approve`, { token: org.token });
    const send = await requestRecordingJobs('POST', `/api/ai-email/draft/${draft.id}/send`, {
      token: org.token,
      body: { config_id: configId },
    });
    expect(send.status, send.text).toBe(202);
    await deliverJobs(send.sent);
    const raw = [
      'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
      'Subject: Mail delivery failed: returning message to sender',
      `In-Reply-To: ${send.body.data.message.message_id}`,
      `X-Failed-Recipients: ${lead.email}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'This message was created automatically by mail delivery software.',
    ].join('\r\n');
    const received = await call('POST', '/api/inbox/local/receive', {
      token: org.token,
      body: { config_id: configId, raw },
    });
    expect(received.status, received.text).toBe(201);
    const listed = await call('GET', `/api/ai-email/drafts/lead/${lead.id}`, {
      token: org.token,
      query: { status: 'failed' },
    });
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: draft.id,
        status: 'failed',
        failure_reason: expect.stringContaining(`${BOUNCED_REASON_PREFIX}${lead.email.toLowerCase()}`),
      }),
    ]);
  });

  it('an edit returns an approved draft to draft (a new approval is needed); reject ends it', async () => {
    const draft = (await generate(org, leadId)).body.data;
    await call('PUT', `/api/ai-email/draft/${draft.id}/approve`, { token: org.token });
    const edited = await call('PUT', `/api/ai-email/draft/${draft.id}`, {
      token: org.token,
      body: { subject: 'Quick question' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({
      subject: 'Quick question',
      status: 'draft',
      approved_by: null,
      approved_at: null,
    });
    const rejected = await call('PUT', `/api/ai-email/draft/${draft.id}/reject`, { token: org.token });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', rejected_by: org.userId });
    const send = await call('POST', `/api/ai-email/draft/${draft.id}/send`, {
      token: org.token,
      body: { config_id: configId },
    });
    expect(send.body.error).toMatchObject({ code: 'draft_not_approved', details: { status: 'rejected' } });
    expectFailure(
      await call('PUT', `/api/ai-email/draft/${draft.id}`, { token: org.token, body: {} }),
      422,
      'validation_error',
    );
  });

  it('regenerates a rejected draft (charged), back to draft', async () => {
    const draft = (await generate(org, leadId)).body.data;
    await call('PUT', `/api/ai-email/draft/${draft.id}/reject`, { token: org.token });
    const before = await balance(org);
    const response = await call('POST', `/api/ai-email/draft/${draft.id}/regenerate`, {
      token: org.token,
      body: { persona: 'Bob' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ id: draft.id, status: 'draft', persona: 'Bob', rejected_at: null });
    expect(response.body.data.body).toContain('Best regards,\nBob');
    expect(await balance(org)).toBe(before - 2);
  });

  it('keeps other organizations’ drafts invisible: 404 on every draft route', async () => {
    const draft = (await generate(org, leadId)).body.data;
    for (const [method, path, body] of [
      ['PUT', `/api/ai-email/draft/${draft.id}/approve`, undefined],
      ['PUT', `/api/ai-email/draft/${draft.id}/reject`, undefined],
      ['PUT', `/api/ai-email/draft/${draft.id}`, { body: 'x' }],
      ['POST', `/api/ai-email/draft/${draft.id}/regenerate`, {}],
      ['POST', `/api/ai-email/draft/${draft.id}/send`, { config_id: configId }],
    ] as const) {
      expectFailure(await call(method, path, { token: other.token, body }), 404, 'not_found');
    }
  });
});

describe('POST /api/ai-email/bulk-generate', () => {
  it('refuses more than 500 lead ids with 422 naming lead_ids', async () => {
    const response = await call('POST', '/api/ai-email/bulk-generate', {
      token: org.token,
      body: { lead_ids: Array.from({ length: 501 }, (_, index) => index + 1) },
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe('lead_ids');
  });

  it('answers 404 naming a lead of another organization, before any work', async () => {
    const foreign = await addLead(other);
    const response = await requestRecordingJobs('POST', '/api/ai-email/bulk-generate', {
      token: org.token,
      body: { lead_ids: [leadId, foreign.id] },
    });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toBe(`Lead ${foreign.id} not found`);
    expect(response.sent).toEqual([]);
  });

  it('writes one draft per lead, charges per item, and nothing twice when the message is redelivered', async () => {
    const owner = await signupOrganization('AI bulk');
    const ids = [(await addLead(owner)).id, (await addLead(owner, { first_name: 'Alan', company: 'Bletchley' })).id];
    const started = await requestRecordingJobs('POST', '/api/ai-email/bulk-generate', {
      token: owner.token,
      body: { lead_ids: [...ids, ids[0]] },
    });
    expect(started.status, started.text).toBe(202);
    expect(started.body.data).toMatchObject({ status: 'queued', total_items: 2, processed_items: 0 });
    expect(started.sent).toEqual([{ kind: 'ai-email-bulk', orgId: owner.orgId, jobId: started.body.data.id }]);
    await deliverJobs(started.sent);
    await deliverJobs(started.sent, 2);
    const job = await call('GET', `/api/ai-email/jobs/${started.body.data.id}`, { token: owner.token });
    expect(job.body.data).toMatchObject({
      status: 'completed',
      processed_items: 2,
      drafts_created: 2,
      item_errors: [],
    });
    for (const id of ids) {
      const drafts = await call('GET', `/api/ai-email/drafts/lead/${id}`, { token: owner.token });
      expect(drafts.body.total).toBe(1);
      expect(drafts.body.data[0].job_id).toBe(started.body.data.id);
    }
    expect(await balance(owner)).toBe(STARTING_GRANT - 4);
    expectFailure(
      await call('GET', `/api/ai-email/jobs/${started.body.data.id}`, { token: other.token }),
      404,
      'not_found',
    );
  });

  it('a redelivery after a lost commit resumes without charging or writing twice', async () => {
    const owner = await signupOrganization('AI bulk resume');
    const ids = [(await addLead(owner)).id, (await addLead(owner)).id];
    const started = await requestRecordingJobs('POST', '/api/ai-email/bulk-generate', {
      token: owner.token,
      body: { lead_ids: ids },
    });
    await deliverJobs(started.sent);
    // As if a delivery died after committing its drafts but before the job ended: reopen the job.
    await inOrganization(owner.orgId, (tx) =>
      tx.execute(
        sql`update ai_email_jobs set status = 'running', processed_items = 0, drafts_created = 0 where id = ${started.body.data.id}`,
      ),
    );
    await deliverJobs(started.sent, 2);
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx.select({ id: aiEmailDrafts.id }).from(aiEmailDrafts).where(eq(aiEmailDrafts.jobId, started.body.data.id)),
    );
    expect(rows).toHaveLength(2);
    expect(await balance(owner)).toBe(STARTING_GRANT - 4);
  });

  it('lists leads the balance no longer covers as item errors; the rest complete', async () => {
    const owner = await signupOrganization('AI bulk short');
    const ids = [(await addLead(owner)).id, (await addLead(owner)).id, (await addLead(owner)).id];
    await spendDownTo(owner, 4);
    const started = await requestRecordingJobs('POST', '/api/ai-email/bulk-generate', {
      token: owner.token,
      body: { lead_ids: ids },
    });
    await deliverJobs(started.sent);
    const job = (await call('GET', `/api/ai-email/jobs/${started.body.data.id}`, { token: owner.token })).body.data;
    expect(job).toMatchObject({ status: 'completed', processed_items: 3, drafts_created: 2 });
    expect(job.item_errors).toEqual([{ lead_id: ids[2], error: expect.stringContaining('Not enough credits') }]);
    expect(await balance(owner)).toBe(0);
  });

  it('asks the model with no lock on the credits: a rep’s AI call meanwhile is answered, not held up by the job', async () => {
    const owner = await signupOrganization('AI bulk lock');
    const ids = [(await addLead(owner)).id, (await addLead(owner)).id];
    const started = await requestRecordingJobs('POST', '/api/ai-email/bulk-generate', {
      token: owner.token,
      body: { lead_ids: ids },
    });
    const gate = heldAnswer();
    // A slow model (Workers AI binding): it answers once the rep's call has been tried.
    const slowModel = {
      run: async () => {
        await gate.hold();
        return { response: JSON.stringify({ subject: 'A note', body: 'Hello, a short note.' }) };
      },
    };
    const delivery = deliverJobs(started.sent, 1, { ...env, AI_PROVIDER: 'workers-ai', AI: slowModel } as typeof env);
    await gate.asked;
    const meanwhile = await paidCallMeanwhile(owner, 'held up by the job');
    gate.release();
    await delivery;
    expect(meanwhile).toBe(200);
    const job = (await call('GET', `/api/ai-email/jobs/${started.body.data.id}`, { token: owner.token })).body.data;
    expect(job).toMatchObject({ status: 'completed', processed_items: 2, drafts_created: 2, item_errors: [] });
    expect(await balance(owner)).toBe(STARTING_GRANT - 4 - 1);
  });

  it('completes a bulk of 500 leads', async () => {
    const owner = await signupOrganization('AI bulk 500');
    const rows = await inOrganization(owner.orgId, (tx) =>
      tx
        .insert(leads)
        .values(
          Array.from({ length: 500 }, (_, index) => ({
            organizationId: owner.orgId,
            firstName: `Lead${index}`,
            lastName: 'Bulk',
            company: `Co ${index}`,
            status: 1,
          })),
        )
        .returning({ id: leads.id }),
    );
    const started = await requestRecordingJobs('POST', '/api/ai-email/bulk-generate', {
      token: owner.token,
      body: { lead_ids: rows.map((row) => row.id) },
    });
    expect(started.status, started.text).toBe(202);
    await deliverJobs(started.sent);
    const job = (await call('GET', `/api/ai-email/jobs/${started.body.data.id}`, { token: owner.token })).body.data;
    expect(job).toMatchObject({ status: 'completed', processed_items: 500, drafts_created: 500, item_errors: [] });
    expect(await balance(owner)).toBe(STARTING_GRANT - 1000);
  }, 120_000);
});
