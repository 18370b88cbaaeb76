/**
 * Dates inside the calendar: one date, one timestamp and one time-zone schema (core/schemas.ts)
 * for every route. Real calendar days only, years 1900 to 9999, IANA zone names only. Each request
 * below answered 500 (or was accepted) before; the bad-input sweep sends the extremes to every
 * date field of every route.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isCalendarDate, parseTimestamp } from '../src/core/calendar';
import { call, signupOrganization, type ApiResponse, type SignedUp } from './helpers/api';
import { createLead } from './helpers/leads';

function expectRefused(response: ApiResponse, status: 400 | 422, field: string, label: string): void {
  expect([response.status, response.body?.error?.code], `${label}: ${response.text.slice(0, 300)}`).toEqual([
    status,
    field,
  ]);
  expect(response.body.error.type).toBe(status === 400 ? 'bad_request' : 'validation_error');
}

describe('the calendar', () => {
  it('takes days that exist from 1900-01-01 to 9999-12-31', () => {
    for (const day of ['1900-01-01', '2024-02-29', '9999-12-31']) expect(isCalendarDate(day), day).toBe(true);
    for (const day of [
      '1899-12-31',
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '0001-01-01',
      '10000-01-01',
      '2026-1-1',
    ]) {
      expect(isCalendarDate(day), day).toBe(false);
    }
  });

  it('reads instants within the calendar, with the offset the rules ask for', () => {
    const optional = { dateOnly: true, offset: 'optional' } as const;
    expect(parseTimestamp('2026-03-09T09:00:00-04:00', { offset: 'required' })).toBe(Date.UTC(2026, 2, 9, 13));
    expect(parseTimestamp('2026-03-09T09:00Z', { offset: 'required' })).toBe(Date.UTC(2026, 2, 9, 9));
    expect(parseTimestamp('2026-03-09T09:00:00.5+0530', { offset: 'required' })).toBe(
      Date.UTC(2026, 2, 9, 3, 30, 0, 500),
    );
    expect(parseTimestamp('2026-03-09T09:00:00', { offset: 'required' })).toBeNull();
    expect(parseTimestamp('2026-03-09', { offset: 'required' })).toBeNull();
    expect(parseTimestamp('2026-03-09T09:00:00', optional)).toBe(Date.UTC(2026, 2, 9, 9));
    expect(parseTimestamp('2026-03-09', optional)).toBe(Date.UTC(2026, 2, 9));
    for (const value of ['9999-12-31T23:00:00-05:00', '1900-01-01T00:30:00+01:00', '-271821-04-20T00:00:00Z', 'soon']) {
      expect(parseTimestamp(value, optional), value).toBeNull();
    }
  });
});

describe('dates inside the calendar', () => {
  let owner: SignedUp;
  let slug: string;
  let leadId: number;
  let apiKey: string;

  beforeAll(async () => {
    owner = await signupOrganization('Calendar');
    slug = (await call('GET', '/api/user/my', { token: owner.token })).body.data.booking_slug;
    leadId = await createLead(owner);
    apiKey = (await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'dates' } })).body.data.key;
  });

  it('answers the public availability at the calendar’s last days, and refuses days outside it with 400', async () => {
    for (const date of ['9999-12-29', '9999-12-31']) {
      const response = await call('GET', `/api/v1/booking/${slug}/availability`, { query: { date } });
      expect(response.status, `${date}: ${response.text.slice(0, 300)}`).toBe(200);
    }
    for (const date of ['10000-01-01', '1899-12-31', '0001-01-01', '2026-02-30']) {
      const response = await call('GET', `/api/v1/booking/${slug}/availability`, { query: { date } });
      expectRefused(response, 400, 'date', date);
    }
  });

  it('answers the caller’s availability from any day of the calendar, and refuses year 1 with 400', async () => {
    expectRefused(
      await call('GET', '/api/calendar/availability', { token: owner.token, query: { date: '0001-01-01' } }),
      400,
      'date',
      'date=0001-01-01',
    );
    for (const from of ['9999-12-28', '9999-12-31', '1900-01-01']) {
      const response = await call('GET', '/api/calendar/availability', { token: owner.token, query: { from } });
      expect(response.status, `from=${from}: ${response.text.slice(0, 300)}`).toBe(200);
    }
  });

  it('refuses meeting list bounds past the calendar or on days that do not exist with 400', async () => {
    for (const [key, value] of [
      ['to', '+275760-09-13'],
      ['from', '2026-02-30'],
      ['to', '2026-02-30T10:00:00Z'],
      ['from', '1899-12-31'],
      ['to', '2026-01-15T25:00:00Z'],
    ] as const) {
      const response = await call('GET', '/api/meeting/list', { token: owner.token, query: { [key]: value } });
      expectRefused(response, 400, key, `${key}=${value}`);
    }
    const fine = await call('GET', '/api/meeting/list', {
      token: owner.token,
      query: { from: '2026-01-01', to: '2026-01-31T23:59:59+01:00' },
    });
    expect(fine.status, fine.text).toBe(200);
  });

  it('refuses an occurred_at past the calendar or on a day that does not exist, on both signal routes, with 422', async () => {
    for (const occurred_at of ['-271821-04-20T00:00:00Z', '2026-02-30T10:00:00Z', '1899-12-31T23:59:59Z']) {
      const body = { lead_id: leadId, signal_type: 'demo_requested', occurred_at };
      expectRefused(
        await call('POST', '/api/intent-alert/signal', { token: owner.token, body }),
        422,
        'occurred_at',
        `app ${occurred_at}`,
      );
      expectRefused(
        await call('POST', '/api/v1/intent-signal', { apiKey, body }),
        422,
        'occurred_at',
        `api key ${occurred_at}`,
      );
    }
  });

  it('takes IANA zone names and UTC only for a user’s timezone', async () => {
    const me = (await call('GET', '/api/user/my', { token: owner.token })).body.data;
    const update = (timezone: string) =>
      call('POST', `/api/user/update/${owner.userId}`, {
        token: owner.token,
        body: { first_name: me.first_name, email: me.email, phone_no: '+15550100', timezone },
      });
    for (const timezone of ['+05:00', '-0800', 'Factory', 'Mars/Olympus']) {
      expectRefused(await update(timezone), 422, 'timezone', timezone);
    }
    for (const timezone of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires']) {
      const response = await update(timezone);
      expect(response.status, `${timezone}: ${response.text.slice(0, 300)}`).toBe(200);
      expect(response.body.data.timezone).toBe(timezone);
    }
  });
});
