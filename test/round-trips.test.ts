/**
 * Round-trip budgets. Each sequential statement is a round trip between the Worker at the edge
 * and the database's region, so the statements a route sends are counted here, on the request's
 * own connection, and a change that adds one to a budgeted route fails. The connection's
 * start-up is one more round trip on top of these (the bench's `--db-rtt` measures the whole).
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { companies, phoneNumbers } from '../src/db/schema';
import { twilioSignature } from '../src/providers/voice/twilio-signature';
import { signDelivery } from '../src/modules/meetings/webhook-signature';
import { call, signupOrganization, uniqueEmail, type SignedUp } from './helpers/api';
import { inOrganization } from './helpers/leads';
import { addLocalAccount, requestRecordingJobs } from './helpers/mail';
import { completedAgentCall, leadWithPhone, mockTwilioAccount, nextLocalNumber, topUp } from './helpers/voice';
import { operatorGrant } from './helpers/operator';
import { samples } from './cross-tenant/fixtures/lead-activity';
import { roundTripsOf, statementsOf } from './helpers/statements';

let org: SignedUp;
let leadId: number;

beforeAll(async () => {
  org = await signupOrganization('Round trips');
  const created = await call('POST', '/api/lead/add', {
    token: org.token,
    body: { first_name: 'Ada', last_name: 'Lovelace', email: uniqueEmail('lead') },
  });
  expect(created.status).toBe(201);
  leadId = created.body.data.id;
});

describe('statements per request (connection start-up not included)', () => {
  it('GET /api/health sends 1 statement', async () => {
    const { response, statements } = await statementsOf(() => call('GET', '/api/health'));
    expect(response.status).toBe(200);
    expect(statements).toHaveLength(1);
  });

  it('GET /api/lead/view/:id sends at most 2: the scope with the caller check, then the read (no BEGIN/COMMIT)', async () => {
    const { response, statements } = await statementsOf(() =>
      call('GET', `/api/lead/view/${leadId}`, { token: org.token }),
    );
    expect(response.status).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    expect(statements.some((text) => /^\s*(begin|commit)/i.test(text))).toBe(false);
  });

  it('GET /api/lead/list sends at most 2: the scope, then the page with its total', async () => {
    const { response, statements } = await statementsOf(() =>
      call('GET', '/api/lead/list', { token: org.token, query: { limit: 100 } }),
    );
    expect(response.status).toBe(200);
    expect(response.body.total).toBeGreaterThanOrEqual(1);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
  });

  it('GET /api/lead/deleted sends at most 2 and POST /api/lead/restore at most 2: the scope, then one statement (no BEGIN/COMMIT)', async () => {
    const added = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Binned', last_name: 'Lead', email: uniqueEmail('binned') },
    });
    expect(added.status, added.text).toBe(201);
    await call('DELETE', '/api/lead/delete', { token: org.token, body: { ids: [added.body.data.id] } });
    const listed = await statementsOf(() =>
      call('GET', '/api/lead/deleted', { token: org.token, query: { limit: 100 } }),
    );
    expect(listed.response.status, listed.response.text).toBe(200);
    expect(listed.response.body.total).toBeGreaterThanOrEqual(1);
    expect(listed.statements.length, listed.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/lead/restore', { token: org.token, body: { ids: [added.body.data.id] } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ restored: 1 });
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    expect(statements.some((text) => /^\s*(begin|commit)/i.test(text))).toBe(false);
  });

  it('GET /api/contact/deleted and POST /api/contact/restore send at most 2 each: the scope, then one statement', async () => {
    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Binned ${crypto.randomUUID().slice(0, 6)}` },
    });
    const contact = await call('POST', '/api/contact/add', {
      token: org.token,
      body: { name: 'Binned Contact', company_id: company.body.data.id, email: uniqueEmail('binned') },
    });
    expect(contact.status, contact.text).toBe(201);
    await call('DELETE', `/api/contact/delete/${contact.body.data.id}`, { token: org.token });
    const listed = await statementsOf(() => call('GET', '/api/contact/deleted', { token: org.token }));
    expect(listed.response.status, listed.response.text).toBe(200);
    expect(listed.statements.length, listed.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/contact/restore', { token: org.token, body: { ids: [contact.body.data.id] } }),
    );
    expect(response.body.data).toEqual({ restored: 1 });
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
  });

  it('POST /api/contact/update/:id (no new email) takes at most 3 round trips: scope, the references (BEGIN with them), the update with its feed entry (COMMIT with it)', async () => {
    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Counted ${crypto.randomUUID().slice(0, 6)}` },
    });
    const contact = await call('POST', '/api/contact/add', {
      token: org.token,
      body: { name: 'Counted Contact', company_id: company.body.data.id, email: uniqueEmail('counted') },
    });
    expect(contact.status, contact.text).toBe(201);
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/contact/update/${contact.body.data.id}`, {
        token: org.token,
        body: { designation: 'Head of counting' },
      }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.designation).toBe('Head of counting');
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('POST /api/company/update/:id takes at most 2 round trips (scope, the update with BEGIN and COMMIT), and a rename at most 5: scope, the name lock (BEGIN with it), its check, the update (its SAVEPOINT with it), the leads renamed (the RELEASE ahead, the COMMIT after)', async () => {
    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Counted Co ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(company.status, company.text).toBe(201);
    const id = company.body.data.id;
    const edited = await statementsOf(() =>
      call('POST', `/api/company/update/${id}`, { token: org.token, body: { city: 'Countingham' } }),
    );
    expect(edited.response.status, edited.response.text).toBe(200);
    expect(edited.response.body.data.city).toBe('Countingham');
    expect(edited.roundTrips, edited.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const name = `Renamed Co ${crypto.randomUUID().slice(0, 6)}`;
    const renamed = await statementsOf(() =>
      call('POST', `/api/company/update/${id}`, { token: org.token, body: { company_name: name } }),
    );
    expect(renamed.response.status, renamed.response.text).toBe(200);
    expect(renamed.response.body.data.company_name).toBe(name);
    expect(renamed.roundTrips, renamed.statements.join('\n---\n')).toBeLessThanOrEqual(5);
  });

  it('GET /api/company/deleted and POST /api/company/restore send at most 2 each: the scope, then one statement', async () => {
    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Binned Co ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(company.status, company.text).toBe(201);
    await call('DELETE', `/api/company/delete/${company.body.data.id}`, { token: org.token });
    const listed = await statementsOf(() => call('GET', '/api/company/deleted', { token: org.token }));
    expect(listed.response.status, listed.response.text).toBe(200);
    expect(listed.statements.length, listed.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/company/restore', { token: org.token, body: { ids: [company.body.data.id] } }),
    );
    expect(response.body.data).toEqual({ restored: 1 });
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
  });

  it('POST /api/lead/add with a company name sends at most 3: scope, one read, one write that answers the presented lead (no BEGIN/COMMIT)', async () => {
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/lead/add', {
        token: org.token,
        body: {
          first_name: 'Grace',
          last_name: 'Hopper',
          email: uniqueEmail('lead'),
          company: `Navy ${crypto.randomUUID().slice(0, 6)}`,
          tags: [],
        },
      }),
    );
    expect(response.status).toBe(201);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
    expect(statements.some((text) => /^\s*(begin|commit)/i.test(text))).toBe(false);
    expect(statements.some((text) => /idempotency/i.test(text))).toBe(false);
  });

  it('POST /api/lead/update/:id with a company name takes at most 5 round trips: scope, the company made or found and locked (BEGIN with it), the lead read and locked, the update, the feed entry with the scoring job (COMMIT with it)', async () => {
    const company = `Moved ${crypto.randomUUID().slice(0, 6)}`;
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/lead/update/${leadId}`, { token: org.token, body: { company } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.company).toBe(company);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(5);
    expect(statements.filter((text) => /"companies"/.test(text))).toHaveLength(1);
  });

  it('POST /api/lead/update/:id with a new email takes at most 6 round trips: scope, the lead read and locked (BEGIN with it), the email locked, its check, the update (its SAVEPOINT with it), the feed entry with the scoring job (the RELEASE ahead of it, the COMMIT after it)', async () => {
    const email = uniqueEmail('moved');
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/lead/update/${leadId}`, { token: org.token, body: { email } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.email).toBe(email);
    // The update still runs in its savepoint (a concurrent create's key answers the documented 409).
    expect(statements.filter((text) => /^\s*(savepoint|release)\b/i.test(text))).toHaveLength(2);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(6);
  });

  it('POST /api/lead/update/:id takes at most 4 round trips: scope, the lead read and locked (BEGIN with it), the update returning the lead, the feed entry with the scoring job (COMMIT with it)', async () => {
    const title = `Head of ${crypto.randomUUID().slice(0, 6)}`;
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/lead/update/${leadId}`, { token: org.token, body: { job_title: title } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.job_title).toBe(title);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(4);
    expect(statements.filter((text) => /lead_scoring_jobs/.test(text))).toHaveLength(1);
    expect(statements.filter((text) => /feed_entries/.test(text))).toHaveLength(1);
    // The same value again changes nothing: no feed entry, no rescoring.
    const again = await statementsOf(() =>
      call('POST', `/api/lead/update/${leadId}`, { token: org.token, body: { job_title: title } }),
    );
    expect(again.response.status).toBe(200);
    expect(again.roundTrips, again.statements.join('\n---\n')).toBeLessThanOrEqual(4);
    expect(again.statements.some((text) => /lead_scoring_jobs|feed_entries/.test(text))).toBe(false);
  });

  it('a refused lead/add writes nothing: no company is created for it', async () => {
    const company = `Ghost ${crypto.randomUUID().slice(0, 6)}`;
    const refused = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Ghost', last_name: 'Writer', email: uniqueEmail('lead'), company, status: 999 },
    });
    expect(refused.status).toBe(422);
    const companiesNamed = async () =>
      (
        await inOrganization(org.orgId, (tx) =>
          tx.select({ id: companies.id }).from(companies).where(eq(companies.companyName, company)),
        )
      ).length;
    expect(await companiesNamed()).toBe(0);
    // The control: the same lead without the bad status creates the company.
    const accepted = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Ghost', last_name: 'Writer', email: uniqueEmail('lead'), company },
    });
    expect(accepted.status).toBe(201);
    expect(await companiesNamed()).toBe(1);
  });

  it('POST /api/lead/add with an Idempotency-Key sends at most 7: BEGIN/COMMIT (the key commits with the lead), one lock + read, the 3 of the request, one store', async () => {
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/lead/add', {
        token: org.token,
        headers: { 'idempotency-key': crypto.randomUUID() },
        body: {
          first_name: 'Grace',
          last_name: 'Hopper',
          email: uniqueEmail('lead'),
          company: `Navy ${crypto.randomUUID().slice(0, 6)}`,
          tags: [],
        },
      }),
    );
    expect(response.status).toBe(201);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(7);
    expect(statements.filter((text) => /^\s*(begin|commit)/i.test(text))).toHaveLength(2);
    expect(statements.filter((text) => /pg_try_advisory_xact_lock/.test(text))).toHaveLength(1);
    expect(statements.filter((text) => /insert into "idempotency_keys"/i.test(text))).toHaveLength(1);
  });

  it('its replay sends at most 4: scope, BEGIN, lock + read, COMMIT, and writes nothing', async () => {
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const body = { first_name: 'Grace', last_name: 'Hopper', email: uniqueEmail('lead') };
    expect((await call('POST', '/api/lead/add', { token: org.token, headers, body })).status).toBe(201);
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/lead/add', { token: org.token, headers, body }),
    );
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(4);
    expect(statements.some((text) => /^\s*(insert|update|delete)/i.test(text))).toBe(false);
  });

  it('on a route that runs in a transaction anyway, an Idempotency-Key adds exactly 2 statements (lock + read, store)', async () => {
    const add = (headers: Record<string, string>) =>
      statementsOf(() =>
        call('POST', '/api/pipelines/add', {
          token: org.token,
          headers,
          body: { name: `Keyed ${crypto.randomUUID().slice(0, 6)}` },
        }),
      );
    const without = await add({});
    const withKey = await add({ 'idempotency-key': crypto.randomUUID() });
    expect(without.response.status, without.response.text).toBe(201);
    expect(withKey.response.status, withKey.response.text).toBe(201);
    expect(withKey.statements.length - without.statements.length, withKey.statements.join('\n---\n')).toBe(2);
  });

  it('adding, updating and deleting a note or a follow-up sends 2: the scope, then the write with the lead’s activity and its feed entry (no BEGIN/COMMIT)', async () => {
    const note = await statementsOf(() =>
      call('POST', '/api/lead/note/add', {
        token: org.token,
        body: { lead_id: leadId, title: 'Call', note: 'Called' },
      }),
    );
    expect(note.response.status, note.response.text).toBe(201);
    expect(note.statements.length, note.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const followUp = await statementsOf(() =>
      call('POST', '/api/lead/follow-up/add', {
        token: org.token,
        body: { lead_id: leadId, follow_up_date: '2027-03-01T10:00:00Z' },
      }),
    );
    expect(followUp.response.status, followUp.response.text).toBe(201);
    expect(followUp.statements.length, followUp.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const noteUpdated = await statementsOf(() =>
      call('POST', `/api/lead/note/update/${note.response.body.data.id}`, {
        token: org.token,
        body: { note: 'Again' },
      }),
    );
    expect(noteUpdated.response.status, noteUpdated.response.text).toBe(200);
    const followUpUpdated = await statementsOf(() =>
      call('POST', `/api/lead/follow-up/update/${followUp.response.body.data.id}`, {
        token: org.token,
        body: { status: 2, follow_up_date: '2027-03-02T10:00:00Z' },
      }),
    );
    expect(followUpUpdated.response.status, followUpUpdated.response.text).toBe(200);
    const noteDeleted = await statementsOf(() =>
      call('DELETE', `/api/lead/note/delete/${note.response.body.data.id}`, { token: org.token }),
    );
    expect(noteDeleted.response.status, noteDeleted.response.text).toBe(200);
    const followUpDeleted = await statementsOf(() =>
      call('DELETE', `/api/lead/follow-up/delete/${followUp.response.body.data.id}`, { token: org.token }),
    );
    expect(followUpDeleted.response.status, followUpDeleted.response.text).toBe(200);
    for (const { statements } of [note, followUp, noteUpdated, followUpUpdated, noteDeleted, followUpDeleted]) {
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
      expect(statements.some((text) => /^\s*(begin|commit)/i.test(text))).toBe(false);
    }
  });

  it('POST /api/v1/booking/{slug}/confirm sends at most 4: BEGIN, the scope locking the rep with the lead read, the one write, COMMIT; 2 round trips, as BEGIN goes with the scope and COMMIT with the write', async () => {
    const me = await call('GET', '/api/user/my', { token: org.token });
    const slug = me.body.data.booking_slug as string;
    // Monday 2027-03-01, inside the default working hours (09:00 to 17:00 UTC, 30 minutes).
    const book = (start: string, email: string) =>
      statementsOf(() =>
        call('POST', `/api/v1/booking/${slug}/confirm`, {
          headers: { 'cf-connecting-ip': `10.200.${Math.floor(Math.random() * 250)}.1` },
          body: {
            start: `2027-03-01T${start}:00Z`,
            end: `2027-03-01T${start.replace(':00', ':30')}:00Z`,
            name: 'Grace Hopper',
            email,
            company: `Navy ${crypto.randomUUID().slice(0, 6)}`,
          },
        }),
      );
    const email = uniqueEmail('visitor');
    // A new lead (with its company, feed entry and the rep's notification), then the same visitor again.
    for (const [start, address] of [
      ['09:00', email],
      ['10:00', email],
    ]) {
      const { response, statements, roundTrips } = await book(start, address);
      expect(response.status, response.text).toBe(201);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(4);
      expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    }
  });

  it('POST /api/meeting/add takes at most 5 round trips and an update of its time at most 6: the lead’s activity rides with the calendar write, and the COMMIT with it', async () => {
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', '/api/meeting/add', {
        token: org.token,
        body: {
          title: 'Budget call',
          start_time: '2027-04-05T10:00:00Z',
          end_time: '2027-04-05T10:30:00Z',
          lead_id: leadId,
        },
      }),
    );
    expect(response.status, response.text).toBe(201);
    // Scope, BEGIN with the references, the rep's booking version, the insert, the lead's activity
    // with the calendar write and the COMMIT (commitWithNext).
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(5);
    expect(
      statements.filter((text) => /last_activity_at/.test(text) && /calendar_event_writes/.test(text)),
    ).toHaveLength(1);
    const moved = await statementsOf(() =>
      call('POST', `/api/meeting/update/${response.body.data.id}`, {
        token: org.token,
        body: { start_time: '2027-04-05T11:00:00Z', end_time: '2027-04-05T11:30:00Z' },
      }),
    );
    expect(moved.response.status, moved.response.text).toBe(200);
    // Scope, BEGIN with the meeting, the references, the booking version, the update, the lead's
    // activity with the calendar write queued again and the COMMIT.
    expect(moved.roundTrips, moved.statements.join('\n---\n')).toBeLessThanOrEqual(6);
  });

  it('POST /api/meeting/:id/transcript sends at most 5 in 3 round trips: scope, BEGIN, the meeting locked with its current transcript, the upsert, COMMIT; GET sends 2', async () => {
    const meeting = await call('POST', '/api/meeting/add', {
      token: org.token,
      body: { title: 'Call', start_time: '2027-06-01T09:00:00Z', end_time: '2027-06-01T09:30:00Z' },
    });
    const form = new FormData();
    form.append('file', new File(['Ada: hello'], 'call.txt', { type: 'text/plain' }));
    const upload = await statementsOf(() =>
      call('POST', `/api/meeting/${meeting.body.data.id}/transcript`, { token: org.token, rawBody: form }),
    );
    expect(upload.response.status, upload.response.text).toBe(201);
    expect(upload.statements.length, upload.statements.join('\n---\n')).toBeLessThanOrEqual(5);
    // BEGIN rides with the lock and COMMIT with the upsert.
    expect(upload.roundTrips, upload.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    const read = await statementsOf(() =>
      call('GET', `/api/meeting/${meeting.body.data.id}/transcript`, { token: org.token }),
    );
    expect(read.response.status, read.response.text).toBe(200);
    expect(read.statements.length, read.statements.join('\n---\n')).toBeLessThanOrEqual(2);
  });

  it('POST /api/meeting/:id/generate-summary sends at most 10 in 6 round trips: scope, the meeting with its transcript’s key, the reservation (BEGIN with the lock, the check-and-insert with COMMIT), then the summary (BEGIN with it), the settlement (COMMIT with it)', async () => {
    const meeting = await call('POST', '/api/meeting/add', {
      token: org.token,
      body: { title: 'Summary budget', start_time: '2027-05-06T09:00:00Z', end_time: '2027-05-06T09:30:00Z' },
    });
    const form = new FormData();
    form.append(
      'file',
      new File(['Ada: We agreed on a pilot.\nGrace: I will send the contract.'], 'call.txt', { type: 'text/plain' }),
    );
    const uploaded = await call('POST', `/api/meeting/${meeting.body.data.id}/transcript`, {
      token: org.token,
      rawBody: form,
    });
    expect(uploaded.status, uploaded.text).toBe(201);
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/meeting/${meeting.body.data.id}/generate-summary`, {
        token: org.token,
        body: { detail: 'detailed' },
      }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(10);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(6);
  });

  it('a signed meeting-tool delivery sends at most 7 in 5 round trips: the endpoint lookup with the scope, BEGIN, the meeting, the delivery id, the transcript lock and upsert, COMMIT', async () => {
    const meeting = await call('POST', '/api/meeting/add', {
      token: org.token,
      body: { title: 'Call', start_time: '2027-06-02T09:00:00Z', end_time: '2027-06-02T09:30:00Z' },
    });
    const added = await call('POST', '/api/meeting-tools/webhooks/add', { token: org.token, body: { tool: 'tool_a' } });
    const raw = JSON.stringify({ meeting_id: meeting.body.data.id, transcript: 'Ada: hello' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_round_trips',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signDelivery(added.body.data.secret, 'msg_round_trips', timestamp, raw),
    };
    const delivery = await statementsOf(() => call('POST', added.body.data.url, { rawBody: raw, headers }));
    expect(delivery.response.status, delivery.response.text).toBe(200);
    expect(delivery.statements.length, delivery.statements.join('\n---\n')).toBeLessThanOrEqual(7);
    // BEGIN rides with the meeting's read and COMMIT with the upsert.
    expect(delivery.roundTrips, delivery.statements.join('\n---\n')).toBeLessThanOrEqual(5);
  });

  it('GET /api/calendar/local/events sends at most 3: scope, the connection, the events; POST at most 3: scope, the connection, the insert (no BEGIN/COMMIT)', async () => {
    const connected = await call('POST', '/api/calendar/connections/add', {
      token: org.token,
      body: { provider: 'local' },
    });
    expect(connected.status, connected.text).toBe(201);
    const insert = await statementsOf(() =>
      call('POST', '/api/calendar/local/events', {
        token: org.token,
        body: { title: 'Call', start: '2027-06-03T09:00:00Z', end: '2027-06-03T09:30:00Z' },
      }),
    );
    expect(insert.response.status, insert.response.text).toBe(201);
    expect(insert.statements.length, insert.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    const read = await statementsOf(() =>
      call('GET', '/api/calendar/local/events', {
        token: org.token,
        query: { from: '2027-06-03T00:00:00Z', to: '2027-06-04T00:00:00Z' },
      }),
    );
    expect(read.response.status, read.response.text).toBe(200);
    expect(read.statements.length, read.statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('GET /api/calendar/availability still sends at most 3 with calendar busy blocks merged: scope, the rep, meetings and busy blocks in one statement', async () => {
    const { response, statements } = await statementsOf(() =>
      call('GET', '/api/calendar/availability', { token: org.token, query: { date: '2027-06-07' } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('POST /api/custom-lookups/update/:id renumbering a status takes at most 4 round trips: scope, the lookup (BEGIN with it), the update, one move of the leads, contacts, saved views and saved queries (COMMIT with it); a rename 3', async () => {
    const status = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'status', name: `Counted ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(status.status, status.text).toBe(201);
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/custom-lookups/update/${status.body.data.id}`, {
        token: org.token,
        body: { value: status.body.data.value + 100 },
      }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(6);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(4);
    const recoloured = await statementsOf(() =>
      call('POST', `/api/custom-lookups/update/${status.body.data.id}`, {
        token: org.token,
        body: { color_code: '#123456' },
      }),
    );
    expect(recoloured.response.status, recoloured.response.text).toBe(200);
    expect(recoloured.roundTrips, recoloured.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    // The saved views and queries move in the statement that moves the leads.
    const moves = statements.filter((text) => /update "leads"/.test(text));
    expect(moves, statements.join('\n---\n')).toHaveLength(1);
    expect(moves[0]).toMatch(/"custom_views"[\s\S]*"saved_queries"/);
  });

  it('GET /api/user/my sends at most 2: the scope, the user with its role and its organization’s name in one', async () => {
    const { response, statements } = await statementsOf(() => call('GET', '/api/user/my', { token: org.token }));
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.organization_name).toMatch(/^Round trips/);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
  });

  it('POST /api/user/update/:id sends at most 5: scope, BEGIN, the user before, the update returning the user with its role, COMMIT; 3 round trips, as BEGIN and COMMIT ride along', async () => {
    const added = await call('POST', '/api/user/add', {
      token: org.token,
      body: { first_name: 'Rosa', email: uniqueEmail('rep'), phone_no: '+15550104', password: 'password123' },
    });
    expect(added.status, added.text).toBe(201);
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', `/api/user/update/${added.body.data.id}`, {
        token: org.token,
        body: { first_name: 'Rosalind', email: added.body.data.email, phone_no: '+15550105' },
      }),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({
      id: added.body.data.id,
      first_name: 'Rosalind',
      phone_no: '+15550105',
      role_name: added.body.data.role_name,
    });
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(5);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('POST /api/notification/read sends at most 2: the scope, the update (no BEGIN/COMMIT)', async () => {
    const { response, statements } = await statementsOf(() =>
      call('POST', '/api/notification/read', { token: org.token, body: { ids: [1, 2] } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
  });

  it('DELETE /api/custom-view/delete/:id and /api/dashboards/:id send at most 2: the scope, the delete that checks the caller (no BEGIN/COMMIT)', async () => {
    const view = await call('POST', '/api/custom-view/add', {
      token: org.token,
      body: { module_name: 'lead', view_name: 'Counted', visibility: 'team', filters: { priority: '3' } },
    });
    expect(view.status, view.text).toBe(201);
    const dashboard = await call('POST', '/api/dashboards', {
      token: org.token,
      body: { dashboard_id: `counted-${crypto.randomUUID().slice(0, 6)}`, name: 'Counted', scope: 'team' },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    for (const path of [`/api/custom-view/delete/${view.body.data.id}`, `/api/dashboards/${dashboard.body.data.id}`]) {
      const { response, statements } = await statementsOf(() => call('DELETE', path, { token: org.token }));
      expect(response.status, `${path} ${response.text}`).toBe(200);
      expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(2);
      expect((await call('DELETE', path, { token: org.token })).status, path).toBe(404);
    }
  });

  it('the one-statement deletes send at most 2: the scope, the delete (no BEGIN/COMMIT)', async () => {
    const lead = await call('POST', '/api/lead/add', {
      token: org.token,
      body: { first_name: 'Doomed', last_name: 'Lead', email: uniqueEmail('lead') },
    });
    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Doomed ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(company.status, company.text).toBe(201);
    const contacts = [];
    for (const name of ['Doomed One', 'Doomed Two']) {
      const contact = await call('POST', '/api/contact/add', {
        token: org.token,
        body: { name, email: uniqueEmail('contact'), company_id: company.body.data.id },
      });
      expect(contact.status, contact.text).toBe(201);
      contacts.push(contact.body.data.id as number);
    }
    const doomedCompanies = [];
    for (const prefix of ['Doomed A', 'Doomed B']) {
      const added = await call('POST', '/api/company/add', {
        token: org.token,
        body: { company_name: `${prefix} ${crypto.randomUUID().slice(0, 6)}` },
      });
      expect(added.status, added.text).toBe(201);
      doomedCompanies.push(added.body.data.id as number);
    }
    const deletes: [string, string, Record<string, unknown> | undefined][] = [
      ['DELETE', '/api/lead/delete', { ids: [lead.body.data.id] }],
      ['DELETE', `/api/contact/delete/${contacts[0]}`, undefined],
      ['DELETE', '/api/contact/delete', { ids: [contacts[1]] }],
      ['DELETE', `/api/company/delete/${doomedCompanies[0]}`, undefined],
      ['DELETE', '/api/company/delete', { ids: [doomedCompanies[1]] }],
    ];
    for (const [method, path, body] of deletes) {
      const { response, statements } = await statementsOf(() =>
        call(method as 'DELETE' | 'POST', path, { token: org.token, body }),
      );
      expect(response.status, `${path} ${response.text}`).toBe(200);
      expect(response.body.data.deleted ?? 1, path).toBe(1);
      expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(2);
    }
  });

  it('POST /api/user/delete sends at most 6: scope, BEGIN, the admins lock, the last-admin check, the delete, COMMIT; 4 round trips, as BEGIN and COMMIT ride along', async () => {
    const user = await call('POST', '/api/user/add', {
      token: org.token,
      body: { first_name: 'Doomed', email: uniqueEmail('rep'), phone_no: '+15550106', password: 'password123' },
    });
    expect(user.status, user.text).toBe(201);
    const { response, statements, roundTrips } = await statementsOf(() =>
      call('POST', '/api/user/delete', { token: org.token, body: { user_id: user.body.data.id } }),
    );
    expect(response.status, response.text).toBe(200);
    expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(6);
    expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(4);
    // The lock holds until the delete commits: both run inside one transaction.
    expect(statements.filter((text) => /^\s*(begin|commit)/i.test(text))).toHaveLength(2);
  });

  it('POST /api/pipelines/add takes at most 2 round trips (scope, the write answering the pipeline with its stages, BEGIN and COMMIT with it) and PUT /api/pipelines/update/:id (fields) at most 3 (scope, the write with BEGIN, the pipeline with its stages in one read with COMMIT)', async () => {
    const added = await statementsOf(() =>
      call('POST', '/api/pipelines/add', {
        token: org.token,
        body: { name: `Counted ${crypto.randomUUID().slice(0, 6)}`, stages: [{ name: 'First' }, { name: 'Second' }] },
      }),
    );
    expect(added.response.status, added.response.text).toBe(201);
    expect(added.statements.length, added.statements.join('\n---\n')).toBeLessThanOrEqual(4);
    expect(added.roundTrips, added.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const stageNames = (added.response.body.data.stages as { name: string }[]).map((stage) => stage.name);
    expect(stageNames.slice(0, 2)).toEqual(['First', 'Second']);
    const name = `Renamed ${crypto.randomUUID().slice(0, 6)}`;
    const updated = await statementsOf(() =>
      call('PUT', `/api/pipelines/update/${added.response.body.data.id}`, { token: org.token, body: { name } }),
    );
    expect(updated.response.status, updated.response.text).toBe(200);
    // The add answered the pipeline as a read after it does: every field, its stage count and stages.
    expect(updated.response.body.data).toEqual({
      ...added.response.body.data,
      name,
      updated_at: updated.response.body.data.updated_at,
    });
    expect(added.response.body.data.stage_count).toBe(added.response.body.data.stages.length);
    expect(updated.statements.length, updated.statements.join('\n---\n')).toBeLessThanOrEqual(5);
    expect(updated.roundTrips, updated.statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('a job is started in one statement, its outbox message with it: an export and a bulk enrichment take 2 round trips (scope, the job with BEGIN and COMMIT), a company enrichment 3 (the company read first)', async () => {
    const jobWrites = (statements: string[]) =>
      statements.filter((text) => /insert into "\w+_jobs"[\s\S]*insert into "job_outbox"/.test(text));
    const own = (text: string) => !/job_outbox" where/.test(text);
    const exported = await statementsOf(() =>
      requestRecordingJobs('POST', '/api/exports/create', {
        token: org.token,
        body: { export_type: 'leads', format: 'csv' },
      }),
    );
    expect(exported.response.status, exported.response.text).toBe(202);
    expect(exported.response.sent).toEqual([
      { kind: 'export', orgId: org.orgId, jobId: exported.response.body.data.id },
    ]);
    expect(jobWrites(exported.statements), exported.statements.join('\n---\n')).toHaveLength(1);
    expect(roundTripsOf(exported.sent, own), exported.statements.join('\n---\n')).toBeLessThanOrEqual(2);

    const enriching = await statementsOf(() =>
      requestRecordingJobs('POST', '/api/lead-enrichment/enrich/bulk', {
        token: org.token,
        body: { leads: [{ email: uniqueEmail('bulk') }] },
      }),
    );
    expect(enriching.response.status, enriching.response.text).toBe(202);
    expect(enriching.response.sent).toEqual([
      { kind: 'lead-enrichment', orgId: org.orgId, jobId: enriching.response.body.data.id },
    ]);
    expect(roundTripsOf(enriching.sent, own), enriching.statements.join('\n---\n')).toBeLessThanOrEqual(3);

    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Enriched ${crypto.randomUUID().slice(0, 6)}` },
    });
    const enriched = await statementsOf(() =>
      requestRecordingJobs('POST', '/api/company/enrich', {
        token: org.token,
        body: { company_id: company.body.data.id },
      }),
    );
    expect(enriched.response.status, enriched.response.text).toBe(202);
    expect(enriched.response.sent).toEqual([
      { kind: 'company-enrichment', orgId: org.orgId, jobId: enriched.response.body.data.id },
    ]);
    expect(jobWrites(enriched.statements), enriched.statements.join('\n---\n')).toHaveLength(1);
    expect(roundTripsOf(enriched.sent, own), enriched.statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('the one-insert creates send 2: the scope, the insert (no BEGIN/COMMIT): an API key, a webhook, a saved query, a custom view, a web form, a meeting tool’s endpoint, a role; a dashboard 3 (its key’s check first)', async () => {
    const creates: [string, unknown][] = [
      ['/api/api-keys/add', { name: 'Counted key' }],
      ['/api/webhooks', { url: 'https://hooks.example.test/counted', events: ['lead.created'] }],
      ['/api/queries', { name: 'Counted query', definition: { module: 'leads', metric: { op: 'count' } } }],
      ['/api/custom-view/add', { module_name: 'lead', view_name: 'Counted view', visibility: 'private' }],
      ['/api/web-forms/add', { name: 'Counted form' }],
      ['/api/meeting-tools/webhooks/add', { tool: 'tool_a' }],
      ['/api/role/add', { name: `Counted role ${crypto.randomUUID().slice(0, 6)}` }],
    ];
    for (const [path, body] of creates) {
      const { response, statements } = await statementsOf(() => call('POST', path, { token: org.token, body }));
      expect(response.status, `${path} ${response.text}`).toBe(201);
      expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(2);
    }
    const dashboard = await statementsOf(() =>
      call('POST', '/api/dashboards', {
        token: org.token,
        body: { dashboard_id: `counted-${crypto.randomUUID().slice(0, 6)}`, name: 'Counted' },
      }),
    );
    expect(dashboard.response.status, dashboard.response.text).toBe(201);
    expect(dashboard.statements.length, dashboard.statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('writes whose answer or follow-up is their last statement carry the COMMIT with it: a user add 4 round trips, an intent signal 3, a target account 4, a local calendar connected 4', async () => {
    const user = await statementsOf(() =>
      call('POST', '/api/user/add', {
        token: org.token,
        body: {
          first_name: 'Rep',
          last_name: 'Counted',
          email: uniqueEmail('rep'),
          phone_no: '+15550100',
          password: 'password123',
        },
      }),
    );
    expect(user.response.status, user.response.text).toBe(201);
    // Scope, the role (BEGIN with it), the insert, the user read back (COMMIT with it).
    expect(user.roundTrips, user.statements.join('\n---\n')).toBeLessThanOrEqual(4);

    const signal = await statementsOf(() =>
      call('POST', '/api/intent-alert/signal', {
        token: org.token,
        body: { lead_id: leadId, signal_type: 'pricing_page_visit' },
      }),
    );
    expect(signal.response.status, signal.response.text).toBe(201);
    // Scope, the signal's insert (BEGIN with it), the lead's rescoring (COMMIT with it).
    expect(signal.roundTrips, signal.statements.join('\n---\n')).toBeLessThanOrEqual(3);

    const company = await call('POST', '/api/company/add', {
      token: org.token,
      body: { company_name: `Targeted ${crypto.randomUUID().slice(0, 6)}` },
    });
    const account = await statementsOf(() =>
      call('POST', '/api/target-accounts', { token: org.token, body: { company_id: company.body.data.id } }),
    );
    expect(account.response.status, account.response.text).toBe(201);
    // Scope, the references (BEGIN with them), the insert, the account read back (COMMIT with it).
    expect(account.roundTrips, account.statements.join('\n---\n')).toBeLessThanOrEqual(4);

    const calendarOwner = await signupOrganization('Round trips calendar');
    const calendar = await statementsOf(() =>
      call('POST', '/api/calendar/connections/add', { token: calendarOwner.token, body: { provider: 'local' } }),
    );
    expect(calendar.response.status, calendar.response.text).toBe(201);
    // Scope, the connection (BEGIN with it), the booking version, the writes queued again (COMMIT with them).
    expect(calendar.roundTrips, calendar.statements.join('\n---\n')).toBeLessThanOrEqual(4);
  });

  it('a bulk status change, a bulk assignment and tags added to leads named by id take at most 3 round trips: scope, the lookups or the assignee (BEGIN with it), the one statement that locks, writes, records the feed and notices (COMMIT with it)', async () => {
    const status = await statementsOf(() =>
      call('POST', '/api/lead/status-change', { token: org.token, body: { ids: [leadId], status: 2 } }),
    );
    expect(status.response.status, status.response.text).toBe(200);
    expect(status.roundTrips, status.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    const assigned = await statementsOf(() =>
      call('POST', '/api/lead/assign-user', { token: org.token, body: { ids: [leadId], assigned_to: org.userId } }),
    );
    expect(assigned.response.status, assigned.response.text).toBe(200);
    expect(assigned.roundTrips, assigned.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    const tag = await call('POST', '/api/custom-lookups/add', {
      token: org.token,
      body: { module_name: 'lead', type: 'tags', name: `Counted ${crypto.randomUUID().slice(0, 6)}` },
    });
    expect(tag.status, tag.text).toBe(201);
    const tagged = await statementsOf(() =>
      call('POST', '/api/lead/assign-tags', { token: org.token, body: { ids: [leadId], tags: [tag.body.data.id] } }),
    );
    expect(tagged.response.status, tagged.response.text).toBe(200);
    expect(tagged.response.body.data).toEqual({ updated: 1 });
    expect(tagged.roundTrips, tagged.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    const view = await call('GET', `/api/lead/view/${leadId}`, { token: org.token });
    expect(view.body.data).toMatchObject({ status: 2, assigned_to: org.userId });
    expect(view.body.data.tags).toContainEqual(expect.objectContaining({ id: tag.body.data.id }));
  });

  it('the file writes carry their COMMIT with their last statement: a lead document 3 round trips, a stored file 2, an attachment of it 4, a profile image 4 (first or replacing one), a document delete 3', async () => {
    const form = (name: string, extra: Record<string, string> = {}) => {
      const data = new FormData();
      for (const [key, value] of Object.entries(extra)) data.set(key, value);
      data.set('file', new File([samples.pdf()], name, { type: 'application/pdf' }));
      return data;
    };
    const document = await statementsOf(() =>
      call('POST', '/api/lead/document/add', {
        token: org.token,
        rawBody: form('counted.pdf', { lead_id: String(leadId) }),
      }),
    );
    expect(document.response.status, document.response.text).toBe(201);
    // Scope, the lead (BEGIN with it), the stored file with the document, its feed entry and the answer (COMMIT with it).
    expect(document.roundTrips, document.statements.join('\n---\n')).toBeLessThanOrEqual(3);

    const stored = await statementsOf(() =>
      call('POST', '/api/storage-file/add', { token: org.token, rawBody: form('stored.pdf') }),
    );
    expect(stored.response.status, stored.response.text).toBe(201);
    // Scope, the file's row (BEGIN and COMMIT with it).
    expect(stored.roundTrips, stored.statements.join('\n---\n')).toBeLessThanOrEqual(2);

    const attached = await statementsOf(() =>
      call('POST', '/api/file/attach', {
        token: org.token,
        body: {
          subject_type: 'lead',
          subject_id: leadId,
          provider: 'storage',
          file: { id: stored.response.body.data.id },
        },
      }),
    );
    expect(attached.response.status, attached.response.text).toBe(201);
    // Scope, the lead (BEGIN with it), the stored file, the attachment with its feed entry and the answer (COMMIT with it).
    expect(attached.roundTrips, attached.statements.join('\n---\n')).toBeLessThanOrEqual(4);

    const image = () => {
      const data = new FormData();
      data.set('image', new File([samples.png()], 'face.png', { type: 'image/png' }));
      return data;
    };
    for (const upload of ['first', 'replacing']) {
      const profile = await statementsOf(() =>
        call('POST', `/api/lead/${leadId}/upload-profile-image`, { token: org.token, rawBody: image() }),
      );
      expect(profile.response.status, `${upload} ${profile.response.text}`).toBe(200);
      // Scope, the lead (BEGIN with it), the file with the lead's pointer and its feed entry, then
      // the COMMIT alone, or the replaced file's removal with it.
      expect(profile.roundTrips, `${upload}\n${profile.statements.join('\n---\n')}`).toBeLessThanOrEqual(4);
    }

    const deleted = await statementsOf(() =>
      call('DELETE', `/api/lead/document/delete/${document.response.body.data.id}`, { token: org.token }),
    );
    expect(deleted.response.status, deleted.response.text).toBe(200);
    // Scope, the document's delete with its feed entry (BEGIN with it), the file's checked delete (COMMIT with it).
    expect(deleted.roundTrips, deleted.statements.join('\n---\n')).toBeLessThanOrEqual(3);
  });

  it('a logout and a webhook secret’s rotation send 2: the scope, the one write (no BEGIN/COMMIT)', async () => {
    const webhook = await call('POST', '/api/webhooks', {
      token: org.token,
      body: { url: 'https://hooks.example.test/rotated', events: ['lead.created'] },
    });
    expect(webhook.status, webhook.text).toBe(201);
    const rotated = await statementsOf(() =>
      call('POST', `/api/webhooks/${webhook.body.data.id}/rotate-secret`, { token: org.token }),
    );
    expect(rotated.response.status, rotated.response.text).toBe(200);
    expect(rotated.statements.length, rotated.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const leaving = await call('POST', '/api/auth/login', { body: { email: org.email, password: org.password } });
    expect(leaving.status, leaving.text).toBe(200);
    const loggedOut = await statementsOf(() => call('POST', '/api/auth/logout', { token: leaving.body.access_token }));
    expect(loggedOut.response.status, loggedOut.response.text).toBe(200);
    expect(loggedOut.statements.length, loggedOut.statements.join('\n---\n')).toBeLessThanOrEqual(2);
    const after = await call('GET', '/api/lead/list', { token: leaving.body.access_token });
    expect(after.status).toBe(401);
  });

  it('a rejected token costs one statement and runs nothing as the tenant', async () => {
    const other = await signupOrganization('Round trips other');
    await call('POST', '/api/auth/logout', { token: other.token });
    const { response, statements } = await statementsOf(() => call('GET', '/api/lead/list', { token: other.token }));
    expect(response.status).toBe(401);
    expect(statements).toHaveLength(1);
  });

  describe('team chat (the local provider)', () => {
    it('GET /api/chat_a/channels sends at most 2: the scope, the chat connection', async () => {
      const { response, statements } = await statementsOf(() =>
        call('GET', '/api/chat_a/channels', { token: org.token }),
      );
      expect(response.status, response.text).toBe(200);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    });

    it('POST /api/chat_a/test-notification sends at most 3: the scope, the chat connection, the local post (no BEGIN/COMMIT)', async () => {
      const { response, statements } = await statementsOf(() =>
        call('POST', '/api/chat_a/test-notification', { token: org.token, body: { channel: 'CLOCAL0001' } }),
      );
      expect(response.status, response.text).toBe(200);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
    });

    it('GET /api/chat/subscriptions and /api/chat/local-messages send at most 2: the scope, the page with its total', async () => {
      for (const path of ['/api/chat/subscriptions', '/api/chat/local-messages']) {
        const { response, statements } = await statementsOf(() => call('GET', path, { token: org.token }));
        expect(response.status, response.text).toBe(200);
        expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(2);
      }
    });

    it('POST /api/chat/subscriptions sends at most 3: scope, the chat connection, the insert; PATCH and DELETE 2: scope, the write (no BEGIN/COMMIT)', async () => {
      const { response, statements } = await statementsOf(() =>
        call('POST', '/api/chat/subscriptions', {
          token: org.token,
          body: { provider: 'chat_a', channel: `CRT${crypto.randomUUID().slice(0, 6)}`, events: ['deal.won'] },
        }),
      );
      expect(response.status, response.text).toBe(201);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(3);
      const path = `/api/chat/subscriptions/${response.body.data.id}`;
      const changed = await statementsOf(() =>
        call('PATCH', path, { token: org.token, body: { events: ['deal.lost'] } }),
      );
      expect(changed.response.status, changed.response.text).toBe(200);
      expect(changed.response.body.data.events).toEqual(['deal.lost']);
      expect(changed.statements.length, changed.statements.join('\n---\n')).toBeLessThanOrEqual(2);
      const deleted = await statementsOf(() => call('DELETE', path, { token: org.token }));
      expect(deleted.response.status, deleted.response.text).toBe(200);
      expect(deleted.statements.length, deleted.statements.join('\n---\n')).toBeLessThanOrEqual(2);
      expect((await call('GET', path, { token: org.token })).status).toBe(404);
    });
  });

  describe('mail (a local account)', () => {
    let configId: number;
    let messageId: string;

    beforeAll(async () => {
      configId = await addLocalAccount(org, uniqueEmail('rep'));
      const received = await call('POST', '/api/inbox/local/receive', {
        token: org.token,
        body: { config_id: configId, from: uniqueEmail('sender'), subject: 'Hello', body: 'Hi' },
      });
      expect(received.status, received.text).toBe(201);
      messageId = received.body.data.id;
    });

    it('GET /api/mail-configurations/list sends at most 2: the scope, then the page with its total', async () => {
      const { response, statements } = await statementsOf(() =>
        call('GET', '/api/mail-configurations/list', { token: org.token }),
      );
      expect(response.status).toBe(200);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    });

    it('POST /api/mail-configurations/add (local) sends at most 2: the scope, the insert (no BEGIN/COMMIT)', async () => {
      const { response, statements } = await statementsOf(() =>
        call('POST', '/api/mail-configurations/add', {
          token: org.token,
          body: { mailer: 'local', from_address: uniqueEmail('rep'), from_name: 'Rep' },
        }),
      );
      expect(response.status, response.text).toBe(201);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    });

    it('GET /api/inbox/list and view (local) send at most 4: scope, the account, the page, the reply check', async () => {
      for (const path of ['/api/inbox/list', `/api/inbox/view/${messageId}`]) {
        const { response, statements } = await statementsOf(() =>
          call('GET', path, { token: org.token, query: { config_id: configId } }),
        );
        expect(response.status, response.text).toBe(200);
        expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(4);
      }
    });

    it('POST /api/inbox/send takes at most 5 round trips: scope, the account (BEGIN with it), suppressions and leads in one, the job with its outbox row, the message (COMMIT with it)', async () => {
      const { response, statements, sent } = await statementsOf(() =>
        call('POST', '/api/inbox/send', {
          token: org.token,
          body: { config_id: configId, to: uniqueEmail('to'), subject: 'Hi', body: 'Hello' },
        }),
      );
      expect(response.status, response.text).toBe(202);
      const own = (text: string) => !/job_outbox" where|mail_messages" set|for update/.test(text);
      expect(statements.filter(own).length, statements.join('\n---\n')).toBeLessThanOrEqual(7);
      expect(roundTripsOf(sent, own), statements.join('\n---\n')).toBeLessThanOrEqual(5);
    });
  });
  describe('lead notes and follow-ups (sales activity: the feed entry and last_activity_at in one statement)', () => {
    const counted = async (method: 'POST' | 'DELETE', path: string, body?: Record<string, unknown>) => {
      const { response, statements } = await statementsOf(() => call(method, path, { token: org.token, body }));
      expect(response.status, response.text).toBe(method === 'POST' && path.endsWith('/add') ? 201 : 200);
      return statements;
    };
    const touchesWithFeed = (statements: string[]) =>
      statements.filter((text) => /update "leads" set last_activity_at[\s\S]*insert into "feed_entries"/.test(text));

    for (const [kind, path, addBody, updateBody] of [
      ['note', '/api/lead/note', { title: 'Call', note: 'Called' }, { note: 'Called back' }],
      ['follow-up', '/api/lead/follow-up', { follow_up_date: '2027-03-01T09:30:00Z', notes: 'Call' }, { status: 2 }],
    ] as const) {
      it(`POST ${path}/add sends at most 5: scope, BEGIN, the insert that checks the lead, the touch with the feed entry, COMMIT`, async () => {
        const statements = await counted('POST', `${path}/add`, { lead_id: leadId, ...addBody });
        expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(5);
        expect(touchesWithFeed(statements), `${kind}\n${statements.join('\n---\n')}`).toHaveLength(1);
      });

      it(`POST ${path}/update/:id sends at most 6: scope, BEGIN, the ${kind} before, the update, the touch with the feed entry, COMMIT`, async () => {
        const added = await call('POST', `${path}/add`, { token: org.token, body: { lead_id: leadId, ...addBody } });
        const statements = await counted('POST', `${path}/update/${added.body.data.id}`, updateBody);
        expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(6);
        expect(touchesWithFeed(statements), `${kind}\n${statements.join('\n---\n')}`).toHaveLength(1);
      });

      it(`DELETE ${path}/delete/:id sends at most 5: scope, BEGIN, the delete that checks the lead and returns the ${kind}, the feed entry, COMMIT`, async () => {
        const added = await call('POST', `${path}/add`, { token: org.token, body: { lead_id: leadId, ...addBody } });
        const statements = await counted('DELETE', `${path}/delete/${added.body.data.id}`);
        expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(5);
      });
    }
  });

  describe('credits', () => {
    it('GET /api/credits sends at most 2: the scope, then the balance and the month’s use in one', async () => {
      const { response, statements } = await statementsOf(() => call('GET', '/api/credits', { token: org.token }));
      expect(response.status).toBe(200);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    });

    it('GET /api/credits/ai-features sends 1: the scope (the prices are a table in code)', async () => {
      const { response, statements } = await statementsOf(() =>
        call('GET', '/api/credits/ai-features', { token: org.token }),
      );
      expect(response.status).toBe(200);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(1);
    });

    it('POST /api/credits/grant sends at most 2: the scope with the organization check, the grant with the new balance (no BEGIN/COMMIT)', async () => {
      const { response, statements } = await statementsOf(() =>
        operatorGrant({ organization_id: org.orgId, amount: 1 }),
      );
      expect(response.status, response.text).toBe(201);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    });
  });

  describe('voice (the local simulator)', () => {
    let callId: number;
    let phoneLeadId: number;

    beforeAll(async () => {
      await topUp(org, 20);
      phoneLeadId = await leadWithPhone(org, '+14155550142');
      callId = await completedAgentCall(org, phoneLeadId);
    });

    it('GET /api/call/list, /api/call/:id, /api/voice/my-numbers and /api/voice/wallet send at most 2: the scope, the read', async () => {
      for (const path of ['/api/call/list', `/api/call/${callId}`, '/api/voice/my-numbers', '/api/voice/wallet']) {
        const { response, statements } = await statementsOf(() => call('GET', path, { token: org.token }));
        expect(response.status, response.text).toBe(200);
        expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(2);
      }
    });

    it('POST /api/voice/purchase-number takes at most 6 round trips: scope, the connection (BEGIN with it), the number, the wallet lock, the debit, the job with its outbox row (COMMIT with it)', async () => {
      const { response, statements, sent } = await statementsOf(() =>
        requestRecordingJobs('POST', '/api/voice/purchase-number', {
          token: org.token,
          body: { phoneNumber: nextLocalNumber('415') },
        }),
      );
      expect(response.status, response.text).toBe(202);
      const own = (text: string) => !/job_outbox" where/.test(text);
      expect(statements.filter(own).length, statements.join('\n---\n')).toBeLessThanOrEqual(8);
      expect(roundTripsOf(sent, own), statements.join('\n---\n')).toBeLessThanOrEqual(6);
      expect(response.sent).toEqual([expect.objectContaining({ kind: 'voice', orgId: org.orgId })]);
    });

    it('POST /api/call/agent/initiate takes at most 9 round trips: scope, the lead (BEGIN with it), the connection, the caller number, the call, the wallet lock, the hold, the turn, the job with its outbox row (COMMIT with it)', async () => {
      const { response, statements, sent } = await statementsOf(() =>
        requestRecordingJobs('POST', '/api/call/agent/initiate', {
          token: org.token,
          body: { system_prompt: 'Hi', lead_id: phoneLeadId },
        }),
      );
      expect(response.status, response.text).toBe(202);
      const own = (text: string) => !/job_outbox" where/.test(text);
      expect(statements.filter(own).length, statements.join('\n---\n')).toBeLessThanOrEqual(11);
      expect(roundTripsOf(sent, own), statements.join('\n---\n')).toBeLessThanOrEqual(9);
      expect(response.sent).toEqual([expect.objectContaining({ kind: 'voice', orgId: org.orgId })]);
    });
  });

  describe('lead enrichment', () => {
    it('POST /api/lead-enrichment/enrich (local, an email) sends at most 11 in 7 round trips: scope, the connection, the company match, the reservation (BEGIN with the lock, COMMIT with the reserve), then the profile lead (BEGIN with it), the settlement (COMMIT with it)', async () => {
      const { response, statements, roundTrips } = await statementsOf(() =>
        call('POST', '/api/lead-enrichment/enrich', {
          token: org.token,
          body: { email: `ada@budget-${crypto.randomUUID().slice(0, 8)}.com` },
        }),
      );
      expect(response.status, response.text).toBe(201);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(11);
      expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(7);
    });

    it('POST /api/lead-enrichment/enrich with a lead_id writes the fill and its feed entry `enriched` in one statement', async () => {
      const domain = `fill-${crypto.randomUUID().slice(0, 8)}.com`;
      const lead = await call('POST', '/api/lead/add', {
        token: org.token,
        body: { first_name: 'Ada', last_name: 'Fill', email: `ada@${domain}` },
      });
      expect(lead.status, lead.text).toBe(201);
      const { response, statements } = await statementsOf(() =>
        call('POST', '/api/lead-enrichment/enrich', { token: org.token, body: { lead_id: lead.body.data.id } }),
      );
      expect(response.status, response.text).toBe(201);
      expect(response.body.data.filled.length).toBeGreaterThan(0);
      const fills = statements.filter((text) => /update "leads"/i.test(text));
      expect(fills, statements.join('\n---\n')).toHaveLength(1);
      expect(fills[0]).toMatch(/insert into "feed_entries"/i);
      expect(statements.filter((text) => /insert into "feed_entries"/i.test(text))).toHaveLength(1);
    });

    it('GET /api/lead-enrichment/profile-leads/{id} sends at most 2 and GET /api/lead-enrichment/job/{jobId} at most 3', async () => {
      const profile = await call('POST', '/api/lead-enrichment/enrich', {
        token: org.token,
        body: { name: 'Ada Lovelace' },
      });
      const one = await statementsOf(() =>
        call('GET', `/api/lead-enrichment/profile-leads/${profile.body.data.id}`, { token: org.token }),
      );
      expect(one.response.status).toBe(200);
      expect(one.statements.length, one.statements.join('\n---\n')).toBeLessThanOrEqual(2);
      const job = await call('POST', '/api/lead-enrichment/enrich/bulk', {
        token: org.token,
        body: { leads: [{ name: 'Ada Lovelace' }] },
      });
      const read = await statementsOf(() =>
        call('GET', `/api/lead-enrichment/job/${job.body.data.id}`, { token: org.token }),
      );
      expect(read.response.status).toBe(200);
      expect(read.statements.length, read.statements.join('\n---\n')).toBeLessThanOrEqual(3);
    });
  });

  describe('voice (a Twilio connection)', () => {
    const authToken = 'twilio-auth-token-round-trips';
    let twilioOrg: SignedUp;
    let connected: Awaited<ReturnType<typeof statementsOf<Awaited<ReturnType<typeof call>>>>>;
    let assigned: Awaited<ReturnType<typeof statementsOf<Awaited<ReturnType<typeof call>>>>>;

    beforeAll(async () => {
      twilioOrg = await signupOrganization('Round trips Twilio');
      const twilio = mockTwilioAccount();
      connected = await statementsOf(() =>
        call('POST', '/api/voice/connection', {
          token: twilioOrg.token,
          body: { account_sid: `AC${'5'.repeat(32)}`, auth_token: authToken },
        }),
      );
      twilio.mockRestore();
      expect(connected.response.status, connected.response.text).toBe(200);
      await topUp(twilioOrg, 5);
      const [number] = await inOrganization(twilioOrg.orgId, (tx) =>
        tx
          .insert(phoneNumbers)
          .values({
            organizationId: twilioOrg.orgId,
            phoneNumber: '+14155550180',
            numberType: 'local',
            provider: 'twilio',
            status: 'active',
            monthlyPriceCents: 115,
          })
          .returning(),
      );
      assigned = await statementsOf(() =>
        call('POST', '/api/voice/assign-number', {
          token: twilioOrg.token,
          body: { number_id: number.id, user_id: twilioOrg.userId },
        }),
      );
      expect(assigned.response.status, assigned.response.text).toBe(200);
    });

    it('POST /api/voice/connection takes at most 4 round trips: scope, the kind’s lock (BEGIN with it), the other accounts disconnected, the upsert (COMMIT with it); POST /api/voice/assign-number 4: scope, the number (BEGIN with it), the users, the assignment (COMMIT with it)', () => {
      expect(connected.roundTrips, connected.statements.join('\n---\n')).toBeLessThanOrEqual(4);
      expect(assigned.roundTrips, assigned.statements.join('\n---\n')).toBeLessThanOrEqual(4);
    });

    it('POST /api/v1/voice/twilio/{org_id}/voice sends at most 2: the scope, one read of the connection, numbers, users and balance', async () => {
      const path = `/api/v1/voice/twilio/${twilioOrg.orgId}/voice`;
      const browser = { From: `client:user_${twilioOrg.orgId}_${twilioOrg.userId}`, To: '+16285550142' };
      const inbound = { From: '+16285550142', To: '+14155550180', Direction: 'inbound' };
      for (const [params, verb] of [
        [browser, '<Number'],
        [inbound, '<Client'],
      ] as const) {
        const signature = await twilioSignature(authToken, `http://lead.test${path}`, Object.entries(params));
        const { response, statements } = await statementsOf(() =>
          call('POST', path, {
            rawBody: new URLSearchParams(params).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
          }),
        );
        expect(response.status, response.text).toBe(200);
        expect(response.text).toContain(verb);
        expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
      }
    });
  });

  describe('AI (local provider)', () => {
    let draftId: number;

    const budget = async (
      method: string,
      path: string,
      body: unknown,
      status: number,
      most: number,
      mostRoundTrips = most,
    ): Promise<{ data: { id: number } }> => {
      const { response, statements, roundTrips } = await statementsOf(() =>
        call(method, path, { token: org.token, body }),
      );
      expect(response.status, response.text).toBe(status);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(most);
      expect(roundTrips, statements.join('\n---\n')).toBeLessThanOrEqual(mostRoundTrips);
      return response.body;
    };

    it('POST /api/ai-tools/magicpen sends at most 8 in 4 round trips: scope; the reservation (BEGIN with the lock, COMMIT with the check-and-insert); the settlement (BEGIN and COMMIT with it)', async () => {
      await budget('POST', '/api/ai-tools/magicpen', { noteText: 'call grace' }, 200, 8, 4);
    });

    it('POST /api/ai-email/generate/:lead_id sends at most 10 in 6 round trips: scope, the lead, the reservation (BEGIN with the lock, COMMIT with the check-and-insert), then the draft (BEGIN with it), the settlement (COMMIT with it)', async () => {
      draftId = (await budget('POST', `/api/ai-email/generate/${leadId}`, {}, 201, 10, 6)).data.id;
    });

    it('GET /api/ai-email/drafts/lead/:lead_id sends at most 2: scope, the page with its total (the lead is read only for an empty page)', async () => {
      await budget('GET', `/api/ai-email/drafts/lead/${leadId}`, undefined, 200, 2);
    });

    it('PUT /api/ai-email/draft/:draft_id/approve sends at most 5: scope, BEGIN, the locked draft, the update, COMMIT; 3 round trips, as BEGIN and COMMIT ride along', async () => {
      await budget('PUT', `/api/ai-email/draft/${draftId}/approve`, undefined, 200, 5, 3);
    });

    it('POST /api/ai-email/bulk-generate takes at most 3 round trips before the response: scope, the leads (BEGIN with them), the job with its outbox row (COMMIT with it)', async () => {
      const { response, statements, sent } = await statementsOf(() =>
        call('POST', '/api/ai-email/bulk-generate', { token: org.token, body: { lead_ids: [leadId] } }),
      );
      expect(response.status, response.text).toBe(202);
      // The outbox row's delete after the send runs in the background, after the response.
      const own = (text: string) => !/job_outbox" where/.test(text);
      expect(statements.filter(own).length, statements.join('\n---\n')).toBeLessThanOrEqual(5);
      expect(roundTripsOf(sent, own), statements.join('\n---\n')).toBeLessThanOrEqual(3);
    });

    it('POST /api/ai-dashboards/generate (not saved) sends at most 8 in 4 round trips, as magicpen', async () => {
      await budget('POST', '/api/ai-dashboards/generate', { prompt: 'leads by status' }, 200, 8, 4);
    });
  });

  describe('integrations (a local CRM)', () => {
    let importId: number;

    beforeAll(async () => {
      const connected = await call('POST', '/api/connected-apps/connect', {
        token: org.token,
        body: { kind: 'crm', provider: 'local' },
      });
      expect(connected.status, connected.text).toBe(201);
      const started = await call('POST', '/api/connected-apps/crm/import', {
        token: org.token,
        body: { mapping: { company: { name: 'company_name' } }, limit: 1 },
      });
      expect(started.status, started.text).toBe(202);
      importId = started.body.data.id;
    });

    it('GET /api/connected-apps/list and an import’s status send at most 2: the scope, then one read', async () => {
      for (const path of ['/api/connected-apps/list', `/api/connected-apps/crm/import/${importId}/status`]) {
        const { response, statements } = await statementsOf(() => call('GET', path, { token: org.token }));
        expect(response.status, response.text).toBe(200);
        expect(statements.length, `${path}\n${statements.join('\n---\n')}`).toBeLessThanOrEqual(2);
      }
    });

    it('GET /api/connected-apps/crm/properties sends at most 2: the scope, the connection', async () => {
      const { response, statements } = await statementsOf(() =>
        call('GET', '/api/connected-apps/crm/properties', { token: org.token, query: { all: 1 } }),
      );
      expect(response.status, response.text).toBe(200);
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(2);
    });

    it('POST /api/connected-apps/crm/import takes at most 3 round trips: scope, the connection (BEGIN with it), the job with its outbox row (COMMIT with it)', async () => {
      const { response, statements, sent } = await statementsOf(() =>
        call('POST', '/api/connected-apps/crm/import', {
          token: org.token,
          body: { mapping: { company: { name: 'company_name' } }, limit: 1 },
        }),
      );
      expect(response.status, response.text).toBe(202);
      const own = (text: string) => !/job_outbox" where|for update/.test(text);
      expect(statements.filter(own).length, statements.join('\n---\n')).toBeLessThanOrEqual(5);
      expect(roundTripsOf(sent, own), statements.join('\n---\n')).toBeLessThanOrEqual(3);
    });

    it('connect (local) sends at most 5 and disconnect at most 4: scope, BEGIN, the writes, COMMIT', async () => {
      const connect = await statementsOf(() =>
        call('POST', '/api/connected-apps/connect', { token: org.token, body: { kind: 'chat', provider: 'local' } }),
      );
      expect(connect.response.status, connect.response.text).toBe(201);
      expect(connect.statements.length, connect.statements.join('\n---\n')).toBeLessThanOrEqual(5);
      // Scope, the upsert with BEGIN and COMMIT.
      expect(connect.roundTrips, connect.statements.join('\n---\n')).toBeLessThanOrEqual(2);
      const disconnect = await statementsOf(() =>
        call('DELETE', `/api/connected-apps/disconnect/${connect.response.body.data.id}`, { token: org.token }),
      );
      expect(disconnect.response.status, disconnect.response.text).toBe(200);
      expect(disconnect.statements.length, disconnect.statements.join('\n---\n')).toBeLessThanOrEqual(4);
    });
  });
});
