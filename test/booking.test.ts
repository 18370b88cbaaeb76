/**
 * Booking settings (GET /api/user/my, POST /api/user/update/:id) and the public booking routes
 * (/api/v1/booking/{slug}…): defaults and their validation, the public profile, free slots in the
 * visitor's zone, confirmation (lead found or created, meeting created, every refusal, the race
 * of two confirmations), the edge cache (a hit sends no statement, a cold availability read two,
 * a write is seen at once in this data centre), and the per-IP rate limit.
 */
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { readConfig } from '../src/env';
import { call, expectFailure, randomIp, signupOrganization, type SignedUp } from './helpers/api';
import { bodyEtag } from './helpers/etag';
import { awayFromWindowEnd } from './helpers/rate-limit';
import { statementsOf } from './helpers/statements';
import { inOrganization } from './helpers/leads';
import { meetings } from '../src/db/schema';

interface Rep extends SignedUp {
  slug: string;
}

async function rep(label: string, settings: Record<string, unknown> = {}): Promise<Rep> {
  const owner = await signupOrganization(label);
  const me = await call('GET', '/api/user/my', { token: owner.token });
  if (Object.keys(settings).length > 0) {
    const updated = await updateMe(owner, me.body.data, settings);
    if (updated.status !== 200) throw new Error(`settings: ${updated.status} ${updated.text}`);
    return { ...owner, slug: updated.body.data.booking_slug };
  }
  return { ...owner, slug: me.body.data.booking_slug };
}

function updateMe(owner: SignedUp, me: Record<string, unknown>, settings: Record<string, unknown>) {
  return call('POST', `/api/user/update/${owner.userId}`, {
    token: owner.token,
    body: { first_name: me.first_name, email: me.email, phone_no: '+15550100', ...settings },
  });
}

async function myProfile(owner: SignedUp) {
  return (await call('GET', '/api/user/my', { token: owner.token })).body.data;
}

function confirm(slug: string, body: Record<string, unknown>, ip = randomIp()) {
  return call('POST', `/api/v1/booking/${slug}/confirm`, { body, headers: { 'cf-connecting-ip': ip } });
}

const visitor = (overrides: Record<string, unknown> = {}) => ({
  name: 'Grace Hopper',
  email: `grace-${crypto.randomUUID().slice(0, 8)}@example.com`,
  company: 'Navy Labs',
  ...overrides,
});

// Monday 2027-03-01; far enough ahead that the minimum notice never bites.
const MONDAY = '2027-03-01';

describe('booking settings', () => {
  it('are defaulted at signup, with a slug from the name and a numeric suffix on collision', async () => {
    const first = await signupOrganization('Slugs');
    const second = await signupOrganization('Slugs');
    const [a, b] = [await myProfile(first), await myProfile(second)];
    expect(a).toMatchObject({
      booking_enabled: true,
      timezone: 'UTC',
      meeting_duration: 30,
      buffer_minutes: 0,
      min_notice_minutes: 60,
      booking_meeting_tool: 'none',
      job_title: null,
      working_hours: {
        monday: [{ start: '09:00', end: '17:00' }],
        friday: [{ start: '09:00', end: '17:00' }],
        saturday: [],
        sunday: [],
      },
    });
    // Every test organization's admin is "Ada Admin": one slug each, never the same.
    expect(a.booking_slug).toMatch(/^ada-admin(-\d+)?$/);
    expect(b.booking_slug).toMatch(/^ada-admin-\d+$/);
    expect(a.booking_slug).not.toBe(b.booking_slug);
  });

  // free_booking_slug cannot see a slug another transaction has written and not committed (here a
  // hand-set slug; likewise a signup of another name that took the same candidate): the new user's
  // insert waited for it and then failed on the unique index: an anonymous 409 `duplicate` at
  // signup, and at POST /api/user/add a 409 booking_slug_taken for a slug nobody sent. PGlite runs one transaction
  // at a time, so the other writer cannot be mid-transaction there; PostgreSQL (CI's second run) runs these.
  for (const [who, route] of [
    ['a signup', 'POST /api/auth/signup'],
    ['a user added by an admin', 'POST /api/user/add'],
  ])
    it(`gives ${who} the next free slug when a concurrent writer takes the one chosen (${route})`, async (context) => {
      const holder = await signupOrganization('Slug holder');
      const admin = route === 'POST /api/user/add' ? await signupOrganization('Slug adder') : null;
      const config = readConfig(env);
      const server = await withOwnDatabase(config, (db) => db.execute<{ version: string }>(sql`select version()`));
      if (/emscripten|wasm/i.test(server.rows[0].version)) context.skip();
      const last = `Race${crypto.randomUUID().slice(0, 8)}`;
      const slug = `slug-${last.toLowerCase()}`;
      const create = () => {
        const person = { first_name: 'Slug', last_name: last, email: `${slug}@example.com`, password: 'password123' };
        return admin
          ? call('POST', '/api/user/add', { token: admin.token, body: { ...person, phone_no: '+1555' } })
          : call('POST', '/api/auth/signup', {
              body: { ...person, organization_name: 'Slug race' },
              headers: { 'cf-connecting-ip': randomIp() },
            });
      };
      const created = await withOwnDatabase(config, (db) =>
        db.transaction(async (tx) => {
          // Another user sets this very slug by hand, and has not committed yet.
          await tx.execute(sql`update users set booking_slug = ${slug} where id = ${holder.userId}`);
          const pid = (await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`)).rows[0].pid;
          const response = create();
          // The new user's insert has chosen the same slug and waits for this transaction.
          await withOwnDatabase(config, async (watcher) => {
            for (let waited = 0; ; waited += 50) {
              const blocked = await watcher.execute<{ n: number }>(
                sql`select count(*)::int as n from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))`,
              );
              if (blocked.rows[0].n > 0) return;
              if (waited > 20_000) throw new Error('the new user never waited for the hand-set slug');
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          });
          // Wrapped: a promise returned as such would be awaited before the commit it waits for.
          return { response };
        }),
      );
      const answered = await created.response;
      expect(answered.status, answered.text).toBe(201);
      const userId = admin ? answered.body.data.id : answered.body.user.id;
      const [row] = await withOwnDatabase(config, (db) =>
        db.execute<{ booking_slug: string }>(sql`select booking_slug from users where id = ${userId}`),
      ).then((result) => result.rows);
      expect(row.booking_slug).toBe(`${slug}-2`);
      expect((await myProfile(holder)).booking_slug).toBe(slug);
    });

  it('gives a user added by an admin a slug from their name', async () => {
    const admin = await signupOrganization('Added');
    const added = await call('POST', '/api/user/add', {
      token: admin.token,
      body: {
        first_name: 'José',
        last_name: "O'Neil",
        email: `jose-${crypto.randomUUID().slice(0, 6)}@example.com`,
        phone_no: '+1555',
        password: 'password123',
      },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data.booking_slug).toMatch(/^jose-o-neil(-\d+)?$/);
  });

  it('are changed through POST /api/user/update/:id and read back', async () => {
    const owner = await signupOrganization('Settings');
    const me = await myProfile(owner);
    const slug = `rep-${crypto.randomUUID().slice(0, 8)}`;
    const response = await updateMe(owner, me, {
      booking_slug: slug,
      timezone: 'Europe/Berlin',
      job_title: 'Head of Sales',
      working_hours: {
        tuesday: [
          { start: '08:00', end: '12:00' },
          { start: '13:00', end: '24:00' },
        ],
      },
      meeting_duration: 45,
      buffer_minutes: 10,
      min_notice_minutes: 0,
      booking_meeting_tool: 'tool_a',
      booking_enabled: false,
    });
    expect(response.status, response.text).toBe(200);
    expect(await myProfile(owner)).toMatchObject({
      booking_slug: slug,
      timezone: 'Europe/Berlin',
      job_title: 'Head of Sales',
      working_hours: {
        monday: [],
        tuesday: [
          { start: '08:00', end: '12:00' },
          { start: '13:00', end: '24:00' },
        ],
      },
      meeting_duration: 45,
      buffer_minutes: 10,
      min_notice_minutes: 0,
      booking_meeting_tool: 'tool_a',
      booking_enabled: false,
    });
    // null resets the zone to UTC.
    const reset = await updateMe(owner, me, { timezone: null });
    expect(reset.body.data.timezone).toBe('UTC');
  });

  it.each([
    ['timezone', { timezone: 'Europe/Atlantis' }],
    ['booking_slug', { booking_slug: 'no spaces!' }],
    ['booking_slug', { booking_slug: 'ab' }],
    ['working_hours.monday.0.start', { working_hours: { monday: [{ start: '9:00', end: '17:00' }] } }],
    ['working_hours.monday.0.end', { working_hours: { monday: [{ start: '17:00', end: '09:00' }] } }],
    [
      'working_hours.monday',
      {
        working_hours: {
          monday: [
            { start: '09:00', end: '12:00' },
            { start: '11:00', end: '13:00' },
          ],
        },
      },
    ],
    ['working_hours', { working_hours: { someday: [] } }],
    ['meeting_duration', { meeting_duration: 1 }],
    ['buffer_minutes', { buffer_minutes: -5 }],
    ['min_notice_minutes', { min_notice_minutes: 1.5 }],
    ['booking_meeting_tool', { booking_meeting_tool: 'skype' }],
  ])('refuse a bad %s with 422 naming it', async (field, settings) => {
    const owner = await signupOrganization('Bad settings');
    const response = await updateMe(owner, await myProfile(owner), settings);
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe(field);
  });

  it('refuse a slug another organization’s user holds with 409 booking_slug_taken', async () => {
    const holder = await rep('Holder');
    const owner = await signupOrganization('Taker');
    const response = await updateMe(owner, await myProfile(owner), { booking_slug: holder.slug });
    expectFailure(response, 409, 'conflict');
    expect(response.body.error.code).toBe('booking_slug_taken');
  });
});

describe('GET /api/v1/booking/{slug}', () => {
  it('shows the public profile and nothing private', async () => {
    const owner = await rep('Profile', { job_title: 'Closer', timezone: 'America/New_York', meeting_duration: 20 });
    const response = await call('GET', `/api/v1/booking/${owner.slug}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      slug: owner.slug,
      name: 'Ada Admin',
      title: 'Closer',
      organization_name: expect.stringMatching(/^Profile /),
      duration: 20,
      timezone: 'America/New_York',
    });
    expect(response.text).not.toContain(owner.email);
    expect(response.text).not.toContain('15550100');
  });

  it('answers 404 for an unknown slug and for a disabled page', async () => {
    expectFailure(await call('GET', '/api/v1/booking/nobody-here-at-all'), 404, 'not_found');
    const owner = await rep('Disabled', { booking_enabled: false });
    expectFailure(await call('GET', `/api/v1/booking/${owner.slug}`), 404, 'not_found');
    expectFailure(await call('GET', `/api/v1/booking/${owner.slug}/availability`), 404, 'not_found');
    expectFailure(
      await confirm(owner.slug, { start: `${MONDAY}T09:00:00Z`, end: `${MONDAY}T09:30:00Z`, ...visitor() }),
      404,
      'not_found',
    );
  });
});

describe('malformed slugs', () => {
  it.each(['a b', 'x'.repeat(65), 'a.b', 'ümlaut'])(
    'answer 400 naming slug for %j on every booking route',
    async (slug) => {
      const path = encodeURIComponent(slug);
      for (const [method, url] of [
        ['GET', `/api/v1/booking/${path}`],
        ['GET', `/api/v1/booking/${path}/availability`],
        ['POST', `/api/v1/booking/${path}/confirm`],
      ]) {
        const response = await call(
          method,
          url,
          method === 'POST' ? { body: { start: `${MONDAY}T09:00:00Z`, end: `${MONDAY}T09:30:00Z`, ...visitor() } } : {},
        );
        expectFailure(response, 400, 'bad_request');
        expect(response.body.error.code).toBe('slug');
      }
    },
  );
});

describe('GET /api/v1/booking/{slug}/availability', () => {
  it('gives the rep’s free slots in the visitor’s zone, across the US daylight-saving change', async () => {
    const owner = await rep('Slots', { timezone: 'America/New_York' });
    // 2027-03-14 is the US change; Friday before: 09:00 EST = 14:00Z, Monday after: 09:00 EDT = 13:00Z.
    const response = await call('GET', `/api/v1/booking/${owner.slug}/availability`, {
      query: { from: '2027-03-12', to: '2027-03-15', tz: 'UTC' },
    });
    expect(response.status, response.text).toBe(200);
    const slots = response.body.data.slots as { start: string }[];
    expect(slots).toHaveLength(32);
    expect(slots[0].start).toBe('2027-03-12T14:00:00+00:00');
    expect(slots[16].start).toBe('2027-03-15T13:00:00+00:00');
    const local = await call('GET', `/api/v1/booking/${owner.slug}/availability`, {
      query: { date: '2027-03-15', tz: 'Europe/Berlin', duration: 30 },
    });
    // Berlin is still on CET (+01:00) that Monday: 13:00Z is 14:00 there.
    expect(local.body.data).toMatchObject({
      timezone: 'Europe/Berlin',
      duration: 30,
      from: '2027-03-15',
      to: '2027-03-15',
      truncated: false,
    });
    expect(local.body.data.slots[0]).toEqual({ start: '2027-03-15T14:00:00+01:00', end: '2027-03-15T14:30:00+01:00' });
  });

  it.each([
    ['tz', { tz: 'Not/AZone' }],
    ['to', { from: '2027-01-01', to: '2027-03-04' }],
    ['date', { date: 'monday' }],
    ['duration', { duration: 'long' }],
    // Visitors see the rep's own meeting length only (30 minutes here).
    ['duration', { duration: 480 }],
    ['duration', { duration: 5 }],
    // The public range is capped at 31 days.
    ['to', { from: '2027-01-01', to: '2027-02-01' }],
  ])('answers 400 naming %s', async (field, query) => {
    const owner = await rep('Bad availability');
    const response = await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query });
    expectFailure(response, 400, 'bad_request');
    expect(response.body.error.code).toBe(field);
  });
});

describe('the reference page of the public availability route', () => {
  it('states the limits the route enforces: 31 days, the rep’s own meeting length', async () => {
    const document = (await call('GET', '/api/openapi.json')).body;
    const description = document.paths['/api/v1/booking/{slug}/availability'].get.description as string;
    expect(description).toMatch(/more than 31 days/i);
    expect(description).not.toContain('62 days');
    expect(description).toContain('meeting length');
  });
});

describe('public availability is bounded', () => {
  const allWeek = Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
      day,
      [{ start: '00:00', end: '24:00' }],
    ]),
  );

  it(`lists at most 1000 slots however long the range and short the meetings, and says so`, async () => {
    const busy = await rep('Round the clock', { working_hours: allWeek, meeting_duration: 5, min_notice_minutes: 0 });
    const response = await call('GET', `/api/v1/booking/${busy.slug}/availability`, {
      query: { from: '2027-03-01', to: '2027-03-31', tz: 'UTC' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.slots).toHaveLength(1000);
    expect(response.body.data.truncated).toBe(true);
    expect(response.body.data.slots[0].start).toBe('2027-03-01T00:00:00+00:00');
    const day = await call('GET', `/api/v1/booking/${busy.slug}/availability`, { query: { date: MONDAY, tz: 'UTC' } });
    expect(day.body.data.slots).toHaveLength(288);
    expect(day.body.data.truncated).toBe(false);
  });

  it('limits availability reads per client IP, cached answers included (429 with Retry-After)', async () => {
    const owner = await rep('Read limit');
    const ip = randomIp();
    const statuses: number[] = [];
    // All 61 in one window of the per-IP limit.
    await awayFromWindowEnd(20);
    for (let i = 0; i < 61; i++) {
      const response = await call('GET', `/api/v1/booking/${owner.slug}/availability`, {
        query: { date: MONDAY },
        headers: { 'cf-connecting-ip': ip },
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    // Another visitor is not held back.
    const other = await call('GET', `/api/v1/booking/${owner.slug}/availability`, {
      query: { date: MONDAY },
      headers: { 'cf-connecting-ip': randomIp() },
    });
    expect(other.status).toBe(200);
  });

  it('gives x-booking-version as an opaque tag that changes with the rep’s meetings and says nothing of their count', async () => {
    const [one, two] = [await rep('Opaque one'), await rep('Opaque two')];
    const first = await call('GET', `/api/v1/booking/${one.slug}`);
    const other = await call('GET', `/api/v1/booking/${two.slug}`);
    const tag = first.headers.get('x-booking-version') ?? '';
    expect(tag).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(tag).not.toMatch(/^\d+$/);
    // Two reps with the same number of meeting writes get unrelated tags.
    expect(other.headers.get('x-booking-version')).not.toBe(tag);
    expect(
      (await confirm(one.slug, { start: `${MONDAY}T09:00:00Z`, end: `${MONDAY}T09:30:00Z`, ...visitor() })).status,
    ).toBe(201);
    const after = await call('GET', `/api/v1/booking/${one.slug}`);
    const next = after.headers.get('x-booking-version') ?? '';
    expect(next).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(next).not.toBe(tag);
  });
});

describe('POST /api/v1/booking/{slug}/confirm', () => {
  let owner: Rep;
  beforeAll(async () => {
    owner = await rep('Confirm', { booking_meeting_tool: 'tool_c', job_title: 'Rep' });
  });

  it('creates the meeting and the lead, then reuses the lead for the same email', async () => {
    const guest = visitor({ phone: '+1 202 555 0100', notes: 'Pricing' });
    const response = await confirm(owner.slug, { start: `${MONDAY}T09:00:00Z`, end: `${MONDAY}T09:30:00Z`, ...guest });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      title: 'Meeting with Grace Hopper',
      start: `${MONDAY}T09:00:00+00:00`,
      end: `${MONDAY}T09:30:00+00:00`,
      timezone: 'UTC',
      with: 'Ada Admin',
    });
    const meeting = await call('GET', `/api/meeting/view/${response.body.data.meeting_id}`, { token: owner.token });
    expect(meeting.body.data).toMatchObject({
      user_id: owner.userId,
      status: 1,
      meeting_tool: 'tool_c',
      source: 'booking',
      description: 'Pricing',
      attendees: [{ email: guest.email, name: 'Grace Hopper' }],
      start_time: `${MONDAY}T09:00:00.000Z`,
    });
    const lead = await call('GET', `/api/lead/view/${meeting.body.data.lead_id}`, { token: owner.token });
    expect(lead.body.data).toMatchObject({
      first_name: 'Grace',
      last_name: 'Hopper',
      email: guest.email,
      company: 'Navy Labs',
      phone_number: '+1 202 555 0100',
      assigned_to: owner.userId,
    });
    const again = await confirm(owner.slug, {
      start: `${MONDAY}T10:00:00Z`,
      end: `${MONDAY}T10:30:00Z`,
      ...guest,
      email: guest.email.toUpperCase(),
    });
    expect(again.status, again.text).toBe(201);
    const second = await call('GET', `/api/meeting/view/${again.body.data.meeting_id}`, { token: owner.token });
    expect(second.body.data.lead_id).toBe(meeting.body.data.lead_id);
  });

  it.each([
    ['a Saturday', '2027-03-06T09:00:00Z', '2027-03-06T09:30:00Z'],
    ['a slot off the grid', `${MONDAY}T11:10:00Z`, `${MONDAY}T11:40:00Z`],
    ['a slot past the working day', `${MONDAY}T16:45:00Z`, `${MONDAY}T17:15:00Z`],
  ])('answers 409 slot_unavailable for %s, creating nothing', async (_label, start, end) => {
    const before = await call('GET', '/api/meeting/list', { token: owner.token });
    const response = await confirm(owner.slug, { start, end, ...visitor() });
    expectFailure(response, 409, 'conflict');
    expect(response.body.error.code).toBe('slot_unavailable');
    const after = await call('GET', '/api/meeting/list', { token: owner.token });
    expect(after.body.total).toBe(before.body.total);
  });

  it('answers 409 to a meeting longer than the rep’s own length (a whole day), creating nothing', async () => {
    const before = await call('GET', '/api/meeting/list', { token: owner.token });
    for (const end of [`${MONDAY}T17:00:00Z`, `${MONDAY}T10:00:00Z`, `${MONDAY}T09:15:00Z`]) {
      const response = await confirm(owner.slug, { start: `${MONDAY}T09:00:00Z`, end, ...visitor() });
      expectFailure(response, 409, 'conflict');
      expect(response.body.error.code).toBe('slot_unavailable');
    }
    const after = await call('GET', '/api/meeting/list', { token: owner.token });
    expect(after.body.total).toBe(before.body.total);
  });

  it('links a booking by an existing lead’s email to that lead, changing none of its fields', async () => {
    const email = `leada-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const existing = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'LeadA', last_name: 'Secret', email, company: 'CorpA' },
    });
    expect(existing.status, existing.text).toBe(201);
    const lead = existing.body.data;
    const response = await confirm(owner.slug, {
      start: `${MONDAY}T11:00:00Z`,
      end: `${MONDAY}T11:30:00Z`,
      name: 'Overwritten ByStranger',
      email: email.toUpperCase(),
      company: 'Attacker Inc',
      phone: '+1 555 0199',
    });
    expect(response.status, response.text).toBe(201);
    const meeting = await call('GET', `/api/meeting/view/${response.body.data.meeting_id}`, { token: owner.token });
    expect(meeting.body.data).toMatchObject({ lead_id: lead.id, source: 'booking' });
    const after = await call('GET', `/api/lead/view/${lead.id}`, { token: owner.token });
    const { last_activity_at: _before, updated_at: _u1, ...unchangedBefore } = lead;
    const { last_activity_at: _after, updated_at: _u2, ...unchangedAfter } = after.body.data;
    expect(unchangedAfter).toEqual(unchangedBefore);
    expect(after.body.data).toMatchObject({ first_name: 'LeadA', company: 'CorpA', phone_number: null });
    const feed = await call('GET', '/api/feed/list', {
      token: owner.token,
      query: { model_type: 'lead', model_id: lead.id },
    });
    const booked = feed.body.data.find((entry: { action: string }) => entry.action === 'meeting_booked');
    expect(booked?.changes).toMatchObject({
      meeting_id: { from: null, to: response.body.data.meeting_id },
      visitor_name: { to: 'Overwritten ByStranger' },
      visitor_company: { to: 'Attacker Inc' },
    });
  });

  it('answers 409 slot_unavailable for a slot booked already', async () => {
    const slot = { start: `${MONDAY}T15:00:00Z`, end: `${MONDAY}T15:30:00Z` };
    expect((await confirm(owner.slug, { ...slot, ...visitor() })).status).toBe(201);
    const again = await confirm(owner.slug, { ...slot, ...visitor() });
    expectFailure(again, 409, 'conflict');
    expect(again.body.error.code).toBe('slot_unavailable');
  });

  it('answers 409 for a slot sooner than the minimum notice, and books one after it', async () => {
    const allWeek = { start: '00:00', end: '24:00' };
    const eager = await rep('Notice', {
      min_notice_minutes: 2 * 24 * 60,
      working_hours: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [allWeek]]),
      ),
    });
    const noonIn = (days: number) => {
      const day = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
      return { start: `${day}T12:00:00Z`, end: `${day}T12:30:00Z` };
    };
    const tooSoon = await confirm(eager.slug, { ...noonIn(1), ...visitor() });
    expectFailure(tooSoon, 409, 'conflict');
    expect((await confirm(eager.slug, { ...noonIn(4), ...visitor() })).status).toBe(201);
  });

  it.each([
    ['end', { start: `${MONDAY}T12:00:00Z`, end: `${MONDAY}T12:00:00Z` }],
    ['email', { email: 'not-an-email' }],
    ['name', { name: '' }],
    ['start', { start: 'Monday 9am' }],
  ])('answers 422 naming %s', async (field, override) => {
    const response = await confirm(owner.slug, {
      start: `${MONDAY}T12:00:00Z`,
      end: `${MONDAY}T12:30:00Z`,
      ...visitor(),
      ...override,
    });
    expectFailure(response, 422, 'validation_error');
    expect(response.body.error.code).toBe(field);
  });

  it('lets exactly one of two simultaneous confirmations of one slot through; the other gets 409', async () => {
    const racer = await rep('Race');
    const body = { start: `${MONDAY}T14:00:00Z`, end: `${MONDAY}T14:30:00Z` };
    const results = await Promise.all([
      confirm(racer.slug, { ...body, ...visitor() }),
      confirm(racer.slug, { ...body, ...visitor() }),
      confirm(racer.slug, { ...body, ...visitor() }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409]);
    const meetings = await call('GET', '/api/meeting/list', { token: racer.token });
    expect(meetings.body.total).toBe(1);
  });

  it('keeps the buffer around a booked meeting free', async () => {
    const buffered = await rep('Buffer', { buffer_minutes: 15 });
    expect(
      (await confirm(buffered.slug, { start: `${MONDAY}T10:00:00Z`, end: `${MONDAY}T10:30:00Z`, ...visitor() })).status,
    ).toBe(201);
    const next = await confirm(buffered.slug, {
      start: `${MONDAY}T10:30:00Z`,
      end: `${MONDAY}T11:00:00Z`,
      ...visitor(),
    });
    expectFailure(next, 409, 'conflict');
    expect(
      (await confirm(buffered.slug, { start: `${MONDAY}T11:00:00Z`, end: `${MONDAY}T11:30:00Z`, ...visitor() })).status,
    ).toBe(201);
  });

  it('limits confirmations per client IP (429 with Retry-After)', async () => {
    const ip = randomIp();
    const statuses: number[] = [];
    // All 11 in one window of the per-IP limit.
    await awayFromWindowEnd(15);
    for (let i = 0; i < 11; i++) {
      const response = await confirm(
        owner.slug,
        { start: '2027-03-06T09:00:00Z', end: '2027-03-06T09:30:00Z', ...visitor() },
        ip,
      );
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 10).every((status) => status === 409)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('the lead a booking creates from the visitor’s name', () => {
  let owner: Rep;
  beforeAll(async () => {
    owner = await rep('Names');
  });

  // Each case books its own slot of the Monday (09:00, 09:30, …) and reads the lead back.
  const cases: [label: string, name: string, first: string, last: string][] = [
    ['two words', 'Grace   Hopper', 'Grace', 'Hopper'],
    ['a one-letter first word, which takes the next word with it', 'J Robert Smith', 'J Robert', 'Smith'],
    ['a name that only fits whole', 'X Ng', 'X Ng', ''],
    [
      'an 81-character last name, cut between characters with nothing lost',
      'X Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewissenhaftschaferswessen',
      'X Wolfeschlegelsteinhausenbergerdorffwelchevoralte',
      'rnwarengewissenhaftschaferswessen',
    ],
    ['emoji, never cut inside one', `a${'😀'.repeat(40)} Hopper`, `a${'😀'.repeat(24)}`, `${'😀'.repeat(16)} Hopper`],
  ];
  for (const [index, [label, name, first, last]] of cases.entries()) {
    it(`keeps the lead’s name rules (2 to 50 each) without losing any of it: ${label}`, async () => {
      const start = new Date(Date.parse(`${MONDAY}T09:00:00Z`) + index * 30 * 60_000);
      const end = new Date(start.getTime() + 30 * 60_000);
      const guest = visitor({ name });
      const response = await confirm(owner.slug, { start: start.toISOString(), end: end.toISOString(), ...guest });
      expect(response.status, response.text).toBe(201);
      const meeting = await call('GET', `/api/meeting/view/${response.body.data.meeting_id}`, { token: owner.token });
      expect(meeting.body.data.attendees).toEqual([{ email: guest.email, name: name.trim() }]);
      const lead = (await call('GET', `/api/lead/view/${meeting.body.data.lead_id}`, { token: owner.token })).body.data;
      expect([lead.first_name, lead.last_name]).toEqual([first, last]);
      for (const part of [lead.first_name, lead.last_name].filter(Boolean)) {
        expect(part.length).toBeGreaterThanOrEqual(2);
        expect(part.length).toBeLessThanOrEqual(50);
      }
      const joined = name.replace(/\s+/g, ' ');
      expect([`${lead.first_name} ${lead.last_name}`.trim(), `${lead.first_name}${lead.last_name}`]).toContain(joined);
    });
  }
});

describe('round trips and the edge cache', () => {
  it('confirms in at most 4 statements, in one transaction, for a new lead and an existing one', async () => {
    const owner = await rep('Confirm budget');
    const guest = visitor();
    for (const start of ['13:00', '14:00']) {
      const end = start.replace(':00', ':30');
      const { response, statements } = await statementsOf(() =>
        confirm(owner.slug, { start: `${MONDAY}T${start}:00Z`, end: `${MONDAY}T${end}:00Z`, ...guest }),
      );
      expect(response.status, response.text).toBe(201);
      // BEGIN, the scope with the rep locked and the lead read, the one write, COMMIT.
      expect(statements.length, statements.join('\n---\n')).toBeLessThanOrEqual(4);
      expect(statements.filter((text) => /^\s*(begin|commit)/i.test(text))).toHaveLength(2);
    }
    const meetings = await call('GET', '/api/meeting/list', { token: owner.token });
    expect(meetings.body.total).toBe(2);
    expect(new Set(meetings.body.data.map((meeting: { lead_id: number }) => meeting.lead_id)).size).toBe(1);
  });

  it('gives a read from the database and the same read from the cache the ETag of the exact body; If-None-Match with it is 304', async () => {
    const owner = await rep('Cache etag');
    const path = `/api/v1/booking/${owner.slug}/availability`;
    const query = { date: MONDAY, tz: 'Europe/Berlin' };
    const cold = await call('GET', path, { query });
    const warm = await call('GET', path, { query });
    expect([cold.headers.get('x-booking-cache'), warm.headers.get('x-booking-cache')]).toEqual(['MISS', 'HIT']);
    const tag = bodyEtag(cold.text);
    expect(cold.headers.get('etag')).toBe(tag);
    expect(warm.headers.get('etag')).toBe(tag);
    const notModified = await call('GET', path, { query, headers: { 'if-none-match': tag } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
  });

  it('answers a repeated profile read from the cache with no statement', async () => {
    const owner = await rep('Cache profile');
    const cold = await statementsOf(() => call('GET', `/api/v1/booking/${owner.slug}`));
    expect(cold.response.headers.get('x-booking-cache')).toBe('MISS');
    expect(cold.statements).toHaveLength(1);
    const warm = await statementsOf(() => call('GET', `/api/v1/booking/${owner.slug}`));
    expect(warm.response.status).toBe(200);
    expect(warm.response.headers.get('x-booking-cache')).toBe('HIT');
    expect(warm.statements).toEqual([]);
    expect(warm.response.body).toEqual(cold.response.body);
  });

  it('reads cold availability in one statement and warm in none; a booking is seen at once', async () => {
    const owner = await rep('Cache slots');
    const query = { date: MONDAY, tz: 'UTC' };
    const cold = await statementsOf(() => call('GET', `/api/v1/booking/${owner.slug}/availability`, { query }));
    expect(cold.response.status, cold.response.text).toBe(200);
    expect(cold.statements, cold.statements.join('\n---\n')).toHaveLength(1);
    const warm = await statementsOf(() => call('GET', `/api/v1/booking/${owner.slug}/availability`, { query }));
    expect(warm.statements).toEqual([]);
    expect(warm.response.body.data.slots).toHaveLength(16);
    // The parameters' order does not matter to the cache key.
    const reordered = await statementsOf(() =>
      call('GET', `/api/v1/booking/${owner.slug}/availability?tz=UTC&date=${MONDAY}`),
    );
    expect(reordered.statements).toEqual([]);

    expect(
      (await confirm(owner.slug, { start: `${MONDAY}T09:00:00Z`, end: `${MONDAY}T09:30:00Z`, ...visitor() })).status,
    ).toBe(201);
    const after = await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query });
    expect(after.headers.get('x-booking-cache')).toBe('MISS');
    expect(after.body.data.slots).toHaveLength(15);
    expect(after.body.data.slots[0].start).toBe(`${MONDAY}T09:30:00+00:00`);
  });

  it('drops the cached slots when a confirmation finds its slot taken, so the page’s reload does not offer it again', async () => {
    const owner = await rep('Cache stale slot');
    const query = { date: MONDAY, tz: 'UTC' };
    await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query });
    const warm = await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query });
    expect(warm.headers.get('x-booking-cache')).toBe('HIT');
    expect(warm.body.data.slots[0].start).toBe(`${MONDAY}T09:00:00+00:00`);
    // The 09:00 slot is taken where this data centre's cache does not hear of it (another data
    // centre, or a calendar event synced since): written here straight into the database.
    await inOrganization(owner.orgId, (tx) =>
      tx.insert(meetings).values({
        organizationId: owner.orgId,
        userId: owner.userId,
        title: 'Taken elsewhere',
        startTime: new Date(`${MONDAY}T09:00:00Z`),
        endTime: new Date(`${MONDAY}T09:30:00Z`),
        timezone: 'UTC',
      }),
    );
    const refused = await confirm(owner.slug, {
      start: `${MONDAY}T09:00:00Z`,
      end: `${MONDAY}T09:30:00Z`,
      ...visitor(),
    });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'slot_unavailable']);
    const reloaded = await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query });
    expect(reloaded.headers.get('x-booking-cache')).toBe('MISS');
    expect(reloaded.body.data.slots[0].start).toBe(`${MONDAY}T09:30:00+00:00`);
  });

  it('shows a settings change and a meeting added through the API at once', async () => {
    const owner = await rep('Cache settings');
    await call('GET', `/api/v1/booking/${owner.slug}`);
    await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query: { date: MONDAY } });
    await updateMe(owner, await myProfile(owner), { meeting_duration: 60 });
    const profile = await call('GET', `/api/v1/booking/${owner.slug}`);
    expect(profile.body.data.duration).toBe(60);
    const add = await call('POST', '/api/meeting/add', {
      token: owner.token,
      body: { title: 'Busy', start_time: `${MONDAY}T09:00:00Z`, end_time: `${MONDAY}T12:00:00Z` },
    });
    expect(add.status).toBe(201);
    const slots = await call('GET', `/api/v1/booking/${owner.slug}/availability`, { query: { date: MONDAY } });
    expect(slots.body.data.slots[0].start).toBe(`${MONDAY}T12:00:00+00:00`);
    expect(slots.body.data.slots).toHaveLength(5);
  });
});

describe('GET /book/{slug}', () => {
  it('serves the page with a strict nonce policy, every user text escaped', async () => {
    const owner = await rep('Page <i>Org</i>', { job_title: '<script>alert(1)</script>' });
    const me = await myProfile(owner);
    await updateMe(owner, { ...me, first_name: '<b>Eve</b>' }, {});
    const page = await call('GET', `/book/${owner.slug}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([a-f0-9]+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(page.text).toContain('&lt;b&gt;Eve&lt;/b&gt;');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).toContain('Page &lt;i&gt;Org&lt;/i&gt;');
    expect(page.text).not.toContain('<b>Eve</b>');
    // Every script and style element carries this response's nonce; nothing is loaded from elsewhere.
    expect(page.text.match(/<script/g)).toHaveLength(1);
    expect(page.text).toContain(`<script nonce="${nonce}">`);
    expect(page.text).not.toMatch(/src=|href=/);
  });

  it('answers a 404 page for an unknown slug', async () => {
    const page = await call('GET', '/book/nobody-has-this-slug');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('Booking page not found');
  });
});
