/**
 * The availability engine (src/modules/booking/availability.ts) and its zone arithmetic, as pure
 * functions: working hours in the rep's zone, minus meetings with buffers and minimum notice,
 * written in the caller's zone, and correct on the days the clocks change (US: Sunday
 * 2026-03-08, 02:00 → 03:00 in America/New_York; EU: Sunday 2026-03-29, 02:00 → 03:00 in
 * Europe/Berlin).
 */
import { describe, expect, it } from 'vitest';
import { formatSlots, freeSlots, type RepSchedule } from '../src/modules/booking/availability';
import { instantOf, isoInZone, isValidTimeZone, offsetMinutes } from '../src/modules/booking/time-zones';
import { dayNumber } from '../src/modules/booking/time-zones';
import { DEFAULT_WORKING_HOURS } from '../src/db/schema';

const LONG_AGO = Date.parse('2020-01-01T00:00:00Z');

function schedule(overrides: Partial<RepSchedule> = {}): RepSchedule {
  return {
    timezone: 'UTC',
    workingHours: DEFAULT_WORKING_HOURS,
    bufferMinutes: 0,
    minNoticeMinutes: 0,
    ...overrides,
  };
}

function slots(rep: RepSchedule, from: string, to: string, timezone: string, duration = 30, busy = [], now = LONG_AGO) {
  return formatSlots(freeSlots(rep, { from, to, timezone, durationMinutes: duration }, busy, now), timezone);
}

describe('zone arithmetic', () => {
  it('knows IANA zones and refuses made-up ones', () => {
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });

  it('reads offsets on both sides of the US and EU spring changes', () => {
    expect(offsetMinutes(Date.parse('2026-03-08T06:59:00Z'), 'America/New_York')).toBe(-300);
    expect(offsetMinutes(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York')).toBe(-240);
    expect(offsetMinutes(Date.parse('2026-03-29T00:59:00Z'), 'Europe/Berlin')).toBe(60);
    expect(offsetMinutes(Date.parse('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe(120);
  });

  it('moves a wall time inside the spring gap forward and takes the earlier of a repeated autumn time', () => {
    // 02:30 does not exist in Berlin on 2026-03-29: read as 03:30 CEST.
    expect(isoInZone(instantOf(dayNumber('2026-03-29'), 150, 'Europe/Berlin'), 'Europe/Berlin')).toBe(
      '2026-03-29T03:30:00+02:00',
    );
    // 02:30 happens twice in Berlin on 2026-10-25: the first, still CEST.
    expect(new Date(instantOf(dayNumber('2026-10-25'), 150, 'Europe/Berlin')).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
  });
});

describe('free slots', () => {
  it('cuts Monday to Friday 09:00-17:00 into 30-minute slots, none at the weekend', () => {
    const week = slots(schedule(), '2026-03-02', '2026-03-08', 'UTC');
    expect(week).toHaveLength(5 * 16);
    expect(week[0]).toEqual({ start: '2026-03-02T09:00:00+00:00', end: '2026-03-02T09:30:00+00:00' });
    expect(week.at(-1)).toEqual({ start: '2026-03-06T16:30:00+00:00', end: '2026-03-06T17:00:00+00:00' });
  });

  it('writes slots in the caller’s zone, with its offset, and reads the requested day there', () => {
    const rep = schedule({ timezone: 'Europe/Berlin' });
    // Monday 2026-03-02 in New York: the Berlin rep's Monday afternoon and nothing of Tuesday (which starts 03:00 NY time).
    const monday = slots(rep, '2026-03-02', '2026-03-02', 'America/New_York');
    expect(monday[0]).toEqual({ start: '2026-03-02T03:00:00-05:00', end: '2026-03-02T03:30:00-05:00' });
    expect(monday.at(-1)?.start).toBe('2026-03-02T10:30:00-05:00');
    // Tuesday's first Berlin slot (09:00 CET) is 03:00 in New York, on Tuesday.
    expect(monday).toHaveLength(16);
  });

  it('follows the US change: 09:00 in New York is 14:00Z before and 13:00Z after 2026-03-08', () => {
    const rep = schedule({ timezone: 'America/New_York' });
    const friday = slots(rep, '2026-03-06', '2026-03-06', 'UTC');
    const monday = slots(rep, '2026-03-09', '2026-03-09', 'UTC');
    expect(friday[0].start).toBe('2026-03-06T14:00:00+00:00');
    expect(monday[0].start).toBe('2026-03-09T13:00:00+00:00');
    expect(slots(rep, '2026-03-09', '2026-03-09', 'America/New_York')[0]).toEqual({
      start: '2026-03-09T09:00:00-04:00',
      end: '2026-03-09T09:30:00-04:00',
    });
  });

  it('a New York working day that starts right after the switch (Sunday 03:00 EDT) has real 30-minute slots', () => {
    const rep = schedule({
      timezone: 'America/New_York',
      workingHours: { sunday: [{ start: '00:00', end: '05:00' }] },
    });
    const sunday = slots(rep, '2026-03-08', '2026-03-08', 'America/New_York');
    // 00:00-05:00 local is only 4 real hours that night: 8 slots, 02:xx never shown.
    expect(sunday.map((slot) => slot.start.slice(11, 16))).toEqual([
      '00:00',
      '00:30',
      '01:00',
      '01:30',
      '03:00',
      '03:30',
      '04:00',
      '04:30',
    ]);
    expect(sunday[3]).toEqual({ start: '2026-03-08T01:30:00-05:00', end: '2026-03-08T03:00:00-04:00' });
    const afterSwitch = schedule({
      timezone: 'America/New_York',
      workingHours: { sunday: [{ start: '03:00', end: '04:00' }] },
    });
    expect(slots(afterSwitch, '2026-03-08', '2026-03-08', 'UTC')).toEqual([
      { start: '2026-03-08T07:00:00+00:00', end: '2026-03-08T07:30:00+00:00' },
      { start: '2026-03-08T07:30:00+00:00', end: '2026-03-08T08:00:00+00:00' },
    ]);
  });

  it('follows the EU change: a Berlin day starting in the gap (02:00) starts at 03:00 CEST', () => {
    const rep = schedule({ timezone: 'Europe/Berlin', workingHours: { sunday: [{ start: '02:00', end: '05:00' }] } });
    const sunday = slots(rep, '2026-03-29', '2026-03-29', 'Europe/Berlin', 60);
    expect(sunday).toEqual([
      { start: '2026-03-29T03:00:00+02:00', end: '2026-03-29T04:00:00+02:00' },
      { start: '2026-03-29T04:00:00+02:00', end: '2026-03-29T05:00:00+02:00' },
    ]);
    // Monday after the change: 09:00 CEST is 07:00Z (it was 08:00Z the Monday before).
    const weekday = schedule({ timezone: 'Europe/Berlin' });
    expect(slots(weekday, '2026-03-23', '2026-03-23', 'UTC')[0].start).toBe('2026-03-23T08:00:00+00:00');
    expect(slots(weekday, '2026-03-30', '2026-03-30', 'UTC')[0].start).toBe('2026-03-30T07:00:00+00:00');
    // Seen from New York (on EDT since 03-08), the Berlin Monday starts at 04:00 before the EU change and 03:00 after it.
    expect(slots(weekday, '2026-03-23', '2026-03-23', 'America/New_York')[0].start).toBe('2026-03-23T04:00:00-04:00');
    expect(slots(weekday, '2026-03-30', '2026-03-30', 'America/New_York')[0].start).toBe('2026-03-30T03:00:00-04:00');
  });

  it('removes slots overlapping a meeting, widened by the buffer on both sides', () => {
    const busy = [{ start: Date.parse('2026-03-02T10:00:00Z'), end: Date.parse('2026-03-02T11:00:00Z') }];
    const noBuffer = slots(schedule(), '2026-03-02', '2026-03-02', 'UTC', 30, busy as never);
    expect(noBuffer.map((slot) => slot.start.slice(11, 16))).not.toContain('10:00');
    expect(noBuffer.map((slot) => slot.start.slice(11, 16))).not.toContain('10:30');
    expect(noBuffer.map((slot) => slot.start.slice(11, 16))).toContain('09:30');
    expect(noBuffer.map((slot) => slot.start.slice(11, 16))).toContain('11:00');
    const buffered = slots(schedule({ bufferMinutes: 15 }), '2026-03-02', '2026-03-02', 'UTC', 30, busy as never);
    expect(buffered.map((slot) => slot.start.slice(11, 16))).not.toContain('09:30');
    expect(buffered.map((slot) => slot.start.slice(11, 16))).not.toContain('11:00');
    expect(buffered.map((slot) => slot.start.slice(11, 16))).toContain('09:00');
    expect(buffered.map((slot) => slot.start.slice(11, 16))).toContain('11:30');
  });

  it('drops slots sooner than the minimum notice', () => {
    const now = Date.parse('2026-03-02T10:10:00Z');
    const day = slots(schedule({ minNoticeMinutes: 60 }), '2026-03-02', '2026-03-02', 'UTC', 30, [], now);
    expect(day[0].start).toBe('2026-03-02T11:30:00+00:00');
  });

  it('honours a requested duration, dropping a last slot that would run past the working day', () => {
    const day = slots(schedule(), '2026-03-02', '2026-03-02', 'UTC', 45);
    expect(day).toHaveLength(10);
    expect(day.at(-1)).toEqual({ start: '2026-03-02T15:45:00+00:00', end: '2026-03-02T16:30:00+00:00' });
  });
});
