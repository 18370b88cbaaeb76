/**
 * Each event is written by the change that causes it, in its transaction, with the body its
 * OpenAPI `webhooks` entry documents (payloads.ts): lead created and assigned (one lead, in bulk,
 * by update), intent turning hot, a booking confirmed, deals won and lost, an import finishing. An endpoint receives
 * only the events it subscribed to.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../src/core/event-types';
import { leads, webhookDeliveries } from '../src/db/schema';
import { observeStatements } from '../src/db/client';
import { readConfig } from '../src/env';
import worker from '../src/index';
import { signRenderTime } from '../src/modules/web-forms/spam';
import { eventPayloadSchema } from '../src/modules/webhooks/payloads';
import { importAndWait, csvOf, deliverJobs, unqueuedImportJob } from './cross-tenant/fixtures/jobs';
import { deliverEvents } from './helpers/mail';
import { call, randomIp, signupOrganization, type SignedUp } from './helpers/api';
import { defaultPipeline } from './helpers/deals';
import { inOrganization } from './helpers/leads';
import { callRecording, recordingQueue } from './helpers/webhooks';

const formSecrets = { trackingSecret: env.TRACKING_SECRET || undefined, jwtSecret: readConfig(env).JWT_SECRET };

/** How the API writes a timestamp (isoTimestamp in src/core/schemas.ts): `2026-11-20T09:30:00.000Z`. */
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let org: SignedUp;
let everything: number;
let dealsOnly: number;

async function addEndpoint(events: readonly string[]) {
  const response = await call('POST', '/api/webhooks', {
    token: org.token,
    body: { url: 'https://hooks.example.test/events', events },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id as number;
}

/** The payloads written for `endpoint` of one event type, oldest first, each checked against its documented schema. */
async function payloads(endpoint: number, type: EventType) {
  const rows = await inOrganization(org.orgId, (tx) =>
    tx
      .select({ payload: webhookDeliveries.payload })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpoint), eq(webhookDeliveries.eventType, type)))
      .orderBy(webhookDeliveries.id),
  );
  return rows.map((row) => {
    const parsed = eventPayloadSchema(type).safeParse(row.payload);
    expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)} in ${JSON.stringify(row.payload)}`).toBe(
      true,
    );
    return row.payload as { type: string; data: Record<string, unknown> };
  });
}

beforeAll(async () => {
  org = await signupOrganization('Hooks events');
  everything = await addEndpoint(EVENT_TYPES);
  dealsOnly = await addEndpoint(['deal.won', 'deal.lost']);
});

describe('webhook events', () => {
  it('lead.assigned is written by a bulk assignment and by an update, one per lead, and sent after the commit', async () => {
    const ids: number[] = [];
    for (const name of ['Bulk One', 'Bulk Two']) {
      const [first, last] = name.split(' ');
      const created = await callRecording(org, 'POST', '/api/lead/add', { first_name: first, last_name: last });
      ids.push(created.body.data.id as number);
    }
    const bulk = await callRecording(org, 'POST', '/api/lead/assign-user', { ids, assigned_to: org.userId });
    expect(bulk.status).toBe(200);
    expect(bulk.sent).toHaveLength(2);
    expect(bulk.sent.every((message) => message.kind === 'webhook-delivery')).toBe(true);

    const third = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Later', last_name: 'Assigned' });
    const update = await callRecording(org, 'POST', `/api/lead/update/${third.body.data.id}`, {
      assigned_to: org.userId,
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect(update.sent).toHaveLength(1);

    const assigned = await payloads(everything, 'lead.assigned');
    expect(assigned.map((payload) => payload.data.lead_id).sort()).toEqual([...ids, third.body.data.id].sort());
    expect(assigned.every((payload) => payload.data.assigned_to === org.userId)).toBe(true);
    expect(await payloads(dealsOnly, 'lead.assigned')).toEqual([]);
  });

  it('a lead create writes deliveries only of the events someone listens to, and leaves the others out of its statement', async () => {
    const quiet = await signupOrganization('Hooks quiet');
    /** The insert statement of one POST /api/lead/add, and the deliveries it wrote by event. */
    const create = async (body: Record<string, unknown>) => {
      const inserts: string[] = [];
      const stop = observeStatements((text) => {
        if (text.includes('insert into "leads"')) inserts.push(text);
      });
      let created: Awaited<ReturnType<typeof callRecording>>;
      try {
        created = await callRecording(quiet, 'POST', '/api/lead/add', {
          first_name: 'Quiet',
          last_name: 'Lead',
          ...body,
        });
      } finally {
        stop();
      }
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(inserts).toHaveLength(1);
      const written = await inOrganization(quiet.orgId, (tx) =>
        tx
          .select({ type: webhookDeliveries.eventType })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.organizationId, quiet.orgId)),
      );
      return { statement: inserts[0], sent: created.sent, written: written.map((row) => row.type).sort() };
    };
    // Nobody listens: no deliveries' insert in the statement, nothing written, nothing sent.
    const none = await create({ assigned_to: quiet.userId });
    expect(none.statement).not.toContain('webhook_deliveries');
    expect(none.written).toEqual([]);
    expect(none.sent.filter((message) => message.kind === 'webhook-delivery')).toEqual([]);
    // An endpoint of lead.assigned only: that insert alone, one delivery.
    const response = await call('POST', '/api/webhooks', {
      token: quiet.token,
      body: { url: 'https://hooks.example.test/assigned', events: ['lead.assigned'] },
    });
    expect(response.status, response.text).toBe(201);
    const assigned = await create({ assigned_to: quiet.userId });
    expect(assigned.statement.match(/insert into "webhook_deliveries"/g)).toHaveLength(1);
    expect(assigned.written).toEqual(['lead.assigned']);
    expect(assigned.sent.filter((message) => message.kind === 'webhook-delivery')).toHaveLength(1);
    // Unassigned, nothing to announce to it: no insert again.
    expect((await create({})).statement).not.toContain('webhook_deliveries');
  });

  it('intent.hot is written once when a lead crosses the hot threshold', async () => {
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Hot', last_name: 'Lead' });
    const leadId = lead.body.data.id as number;
    const cold = await callRecording(org, 'POST', '/api/intent-alert/signal', {
      lead_id: leadId,
      signal_type: 'demo_requested',
    });
    // A signal sends its lead's scoring job (modules/lead-scoring), and below the threshold no webhook.
    expect(cold.sent.map((message) => message.kind)).toEqual(['lead-scoring']);
    const hot = await callRecording(org, 'POST', '/api/intent-alert/signal', {
      lead_id: leadId,
      signal_type: 'pricing_page_visit',
    });
    expect(hot.status).toBe(201);
    expect(hot.sent.map((message) => message.kind).sort()).toEqual(['lead-scoring', 'webhook-delivery']);
    const [payload] = (await payloads(everything, 'intent.hot')).filter((row) => row.data.lead_id === leadId);
    expect(payload.data).toMatchObject({ lead_id: leadId, lead_name: 'Hot Lead', alert_id: hot.body.data.alert_id });
  });

  it('intent.hot from a hosted form submission on an existing lead (a route without a transaction) leaves after its writes, not at the sweep', async () => {
    const email = `form-hot-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Form', last_name: 'Hot', email });
    const leadId = lead.body.data.id as number;
    const cold = await callRecording(org, 'POST', '/api/intent-alert/signal', {
      lead_id: leadId,
      signal_type: 'demo_requested',
    });
    // A signal sends its lead's scoring job (modules/lead-scoring), and below the threshold no webhook.
    expect(cold.sent.map((message) => message.kind)).toEqual(['lead-scoring']);
    const form = await call('POST', '/api/web-forms/add', {
      token: org.token,
      body: { name: 'Contact', fields: ['first_name', 'last_name', 'email'].map((name) => ({ name })) },
    });
    expect(form.status, form.text).toBe(201);
    // The submission's form_submitted signal takes the lead over the threshold.
    const recording = recordingQueue();
    const ctx = createExecutionContext();
    const submitted = await worker.fetch(
      new Request(`http://lead.test/api/v1/web-form/${form.body.data.form_link}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'cf-connecting-ip': randomIp() },
        body: new URLSearchParams({
          first_name: 'Form',
          last_name: 'Hot',
          email,
          _t: await signRenderTime(formSecrets, form.body.data.id, Date.now() - 10_000),
        }),
      }),
      recording.bindings,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(submitted.status, await submitted.text()).toBe(200);
    const [payload] = (await payloads(everything, 'intent.hot')).filter((row) => row.data.lead_id === leadId);
    expect(payload.data).toMatchObject({ lead_id: leadId, lead_name: 'Form Hot', email });
    expect(recording.sent.map((entry) => entry.body.kind).sort()).toEqual(['lead-scoring', 'webhook-delivery']);
  });

  it('booking.confirmed is written by the public confirmation with its new lead’s lead.created and lead.assigned, and sent after the commit', async () => {
    const me = await call('GET', '/api/user/my', { token: org.token });
    const slug = me.body.data.booking_slug as string;
    const email = `booked-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const booked = await callRecording(null, 'POST', `/api/v1/booking/${slug}/confirm`, {
      start: '2027-03-01T10:00:00Z',
      end: '2027-03-01T10:30:00Z',
      name: 'Booked Visitor',
      email,
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    // booking.confirmed, lead.created and lead.assigned for the endpoint of every event; none for the deals-only one.
    expect(booked.sent).toHaveLength(3);
    const meetingId = booked.body.data.meeting_id;
    const [payload] = (await payloads(everything, 'booking.confirmed')).filter(
      (row) => row.data.meeting_id === meetingId,
    );
    expect(payload.data).toMatchObject({
      meeting_id: meetingId,
      user_id: org.userId,
      email,
      name: 'Booked Visitor',
      start: '2027-03-01T10:00:00.000Z',
      end: '2027-03-01T10:30:00.000Z',
    });
    const [lead] = (await payloads(everything, 'lead.created')).filter((row) => row.data.email === email);
    expect(payload.data.lead_id).toBe(lead.data.lead_id);
    expect(await payloads(dealsOnly, 'booking.confirmed')).toEqual([]);

    const again = await callRecording(null, 'POST', `/api/v1/booking/${slug}/confirm`, {
      start: '2027-03-01T11:00:00Z',
      end: '2027-03-01T11:30:00Z',
      name: 'Booked Visitor',
      email,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    // An existing lead: the booking only.
    expect(again.sent).toHaveLength(1);
  });

  it('deal.won and deal.lost are written when a deal is created in or moved to a closing stage, to the endpoints subscribed', async () => {
    const pipeline = await defaultPipeline(org);
    const open = pipeline.stages.find((stage) => !stage.is_won && !stage.is_lost);
    const won = pipeline.stages.find((stage) => stage.is_won);
    const lost = pipeline.stages.find((stage) => stage.is_lost);
    if (!open || !won || !lost) throw new Error('the default pipeline lacks an open, a won or a lost stage');
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Deal', last_name: 'Maker' });
    const deal = await callRecording(org, 'POST', '/api/lead/deal/add', {
      lead_id: lead.body.data.id,
      pipeline_id: pipeline.id,
      stage_id: open.id,
      title: 'Big one',
      value: 5000,
      expected_close_date: '2026-12-31',
    });
    expect(deal.status, JSON.stringify(deal.body)).toBe(201);
    expect(deal.sent).toEqual([]);
    const moved = await callRecording(org, 'POST', `/api/lead/deal/update/${deal.body.data.id}`, { stage_id: won.id });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.sent).toHaveLength(2);
    const lostDeal = await callRecording(org, 'POST', '/api/lead/deal/add', {
      lead_id: lead.body.data.id,
      pipeline_id: pipeline.id,
      stage_id: lost.id,
      title: 'Gone',
      value: 10,
      expected_close_date: '2026-12-31',
    });
    expect(lostDeal.sent).toHaveLength(2);

    // A won deal moved into another pipeline's won stage was not won again: nothing is announced.
    const other = await callRecording(org, 'POST', '/api/pipelines/add', { name: 'Consolidated' });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const otherWon = (other.body.data.stages as { id: number; is_won: boolean }[]).find((stage) => stage.is_won);
    const rehomed = await callRecording(org, 'POST', `/api/lead/deal/update/${deal.body.data.id}`, {
      pipeline_id: other.body.data.id,
      stage_id: otherWon?.id,
    });
    expect(rehomed.status, JSON.stringify(rehomed.body)).toBe(200);
    expect(rehomed.sent).toEqual([]);

    for (const endpoint of [everything, dealsOnly]) {
      expect(await payloads(endpoint, 'deal.won')).toHaveLength(1);
      const [wonPayload] = await payloads(endpoint, 'deal.won');
      expect(wonPayload.data).toMatchObject({ deal_id: deal.body.data.id, stage_id: won.id, value: 5000 });
      const [lostPayload] = await payloads(endpoint, 'deal.lost');
      expect(lostPayload.data).toMatchObject({ deal_id: lostDeal.body.data.id, stage_id: lost.id, title: 'Gone' });
    }
  });

  it('import.finished is written when an import job completes, with its counts', async () => {
    const job = await importAndWait(
      org,
      csvOf([
        ['First Name', 'Last Name', 'Email Address'],
        ['Imported', 'One', 'imported.one@example.com'],
        ['Imported', 'Two', 'imported.two@example.com'],
      ]),
      { name: 'hooks.csv' },
    );
    expect(job.status).toBe('completed');
    const [payload] = (await payloads(everything, 'import.finished')).filter(
      (row) => row.data.import_job_id === job.id,
    );
    expect(payload.data).toMatchObject({ status: 'completed', file_name: 'hooks.csv', created: 2, failed: 0 });
    expect(payload.data.finished_at).toMatch(ISO_UTC_MS);
    const created = await payloads(everything, 'lead.created');
    expect(created.map((row) => row.data.email)).toEqual(
      expect.arrayContaining(['imported.one@example.com', 'imported.two@example.com']),
    );
  });

  it('carries every timestamp as the API answers it (ISO 8601 UTC with milliseconds, `…Z`): lead.created, deal.won, deal.lost', async () => {
    // lead.created sent created_at as Postgres printed it (`2026-11-20T09:30:00.123456+00:00`), deal.won/lost closed_at too.
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Stamp', last_name: 'Format' });
    expect(lead.status, JSON.stringify(lead.body)).toBe(201);
    const leadId = lead.body.data.id as number;
    const [created] = (await payloads(everything, 'lead.created')).filter((row) => row.data.lead_id === leadId);
    expect(created.data.created_at).toMatch(ISO_UTC_MS);
    expect(created.data.created_at).toBe(lead.body.data.created_at);
    expect((created as unknown as { timestamp: string }).timestamp).toMatch(ISO_UTC_MS);

    const pipeline = await defaultPipeline(org);
    for (const [type, stage] of [
      ['deal.won', pipeline.stages.find((s) => s.is_won)],
      ['deal.lost', pipeline.stages.find((s) => s.is_lost)],
    ] as const) {
      const deal = await callRecording(org, 'POST', '/api/lead/deal/add', {
        lead_id: leadId,
        pipeline_id: pipeline.id,
        stage_id: stage?.id,
        title: `Stamped ${type}`,
        value: 1,
        expected_close_date: '2026-12-31',
      });
      expect(deal.status, JSON.stringify(deal.body)).toBe(201);
      const [payload] = (await payloads(everything, type)).filter((row) => row.data.deal_id === deal.body.data.id);
      expect(payload.data.closed_at).toMatch(ISO_UTC_MS);
      expect(payload.data.closed_at).toBe(deal.body.data.closed_at);
    }
  });

  it("a queue consumer's deliveries and follow-up jobs leave right after its commit, not at the sweeps: an import", async () => {
    const emails = ['consumer.one@example.com', 'consumer.two@example.com'];
    const jobId = await unqueuedImportJob(
      org,
      csvOf([['First Name', 'Last Name', 'Email Address'], ...emails.map((email, i) => ['Consumer', `N${i}`, email])]),
    );
    const recording = recordingQueue();
    const result = await deliverJobs([{ kind: 'lead-import', orgId: org.orgId, jobId }], 1, recording.bindings);
    expect(result.explicitAcks).toHaveLength(1);
    const imported = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ id: leads.id })
        .from(leads)
        .where(and(eq(leads.organizationId, org.orgId), eq(leads.importJobId, jobId))),
    );
    expect(imported).toHaveLength(2);
    // Every delivery the import wrote (lead.created for each lead, import.finished), each sent once.
    const written = await inOrganization(org.orgId, (tx) =>
      tx
        .select({ id: webhookDeliveries.id, type: webhookDeliveries.eventType, payload: webhookDeliveries.payload })
        .from(webhookDeliveries)
        .where(inArray(webhookDeliveries.eventType, ['lead.created', 'import.finished'])),
    );
    const mine = written.filter((row) => {
      const data = (row.payload as { data: Record<string, unknown> }).data;
      return row.type === 'import.finished' ? data.import_job_id === jobId : emails.includes(data.email as string);
    });
    expect(mine.map((row) => row.type).sort()).toEqual(['import.finished', 'lead.created', 'lead.created']);
    const sentDeliveries = recording.sent
      .map((entry) => entry.body)
      .filter((body) => body.kind === 'webhook-delivery')
      .map((body) => body.jobId);
    expect(sentDeliveries.sort((a, b) => a - b)).toEqual(mine.map((row) => row.id).sort((a, b) => a - b));
    // The imported leads' scoring job, whose message the writer's statement put in the outbox.
    expect(recording.sent.map((entry) => entry.body.kind)).toContain('lead-scoring');
  });

  it("a queue consumer's deliveries and follow-up jobs leave right after its commit, not at the sweeps: tracking hits", async () => {
    const lead = await callRecording(org, 'POST', '/api/lead/add', { first_name: 'Clicks', last_name: 'Through' });
    const leadId = lead.body.data.id as number;
    const cold = await callRecording(org, 'POST', '/api/intent-alert/signal', {
      lead_id: leadId,
      signal_type: 'demo_requested',
    });
    expect(cold.sent.map((message) => message.kind)).toEqual(['lead-scoring']);
    // Two clicks on links of two messages (10 points each) take 40 points over the threshold of 50.
    const recording = recordingQueue();
    const hits = ['a', 'b'].map((token) => ({
      kind: 'click' as const,
      hitId: crypto.randomUUID(),
      orgId: org.orgId,
      leadId,
      tokenHash: `consumer-${token}-${crypto.randomUUID()}`,
      campaign: null,
      targetUrl: 'https://example.com/pricing',
      at: new Date().toISOString(),
    }));
    const result = await deliverEvents(hits, recording.bindings);
    expect(result.explicitAcks).toHaveLength(2);
    const [payload] = (await payloads(everything, 'intent.hot')).filter((row) => row.data.lead_id === leadId);
    expect(payload.data).toMatchObject({ lead_id: leadId, lead_name: 'Clicks Through' });
    expect(recording.sent.map((entry) => entry.body.kind).sort()).toEqual(['lead-scoring', 'webhook-delivery']);
  });
});
