/**
 * The one logger (src/core/log.ts): one JSON line per event, usable outside a request, and never
 * a secret in it, whatever a caller passes or an error message quotes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '../src/core/log';

function captured(level: 'log' | 'warn' | 'error') {
  const spy = vi.spyOn(console, level).mockImplementation(() => undefined);
  return () => spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);
}

describe('the logger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes one JSON line with the level, the message and the fields, to the console method of its level', () => {
    const warnings = captured('warn');
    const errors = captured('error');
    log.warn('outbox sweep sent messages', { sent: 3 });
    log.error('job delivery failed', { job: 'export', job_id: 7 });
    expect(warnings()).toEqual([{ level: 'warn', message: 'outbox sweep sent messages', sent: 3 }]);
    expect(errors()).toEqual([{ level: 'error', message: 'job delivery failed', job: 'export', job_id: 7 }]);
  });

  it('never writes a secret: fields named for one are redacted, and credentials in any text are masked', () => {
    const lines = captured('error');
    log.error('connect failed for postgres://app:hunter2@db.example.com/leads', {
      password: 'hunter2',
      jwt_secret: 'x'.repeat(40),
      headers: { authorization: 'Bearer abc.def.ghi', 'x-api-key': 'lm_live_123' },
      error: 'relay said: Bearer abc.def.ghi refused for https://user:pw@relay.example.com',
      org_id: 12,
    });
    const [line] = lines();
    const text = JSON.stringify(line);
    for (const secret of ['hunter2', 'x'.repeat(40), 'abc.def.ghi', 'lm_live_123', ':pw@']) {
      expect(text).not.toContain(secret);
    }
    expect(line).toMatchObject({
      message: 'connect failed for postgres://app:***@db.example.com/leads',
      password: '[redacted]',
      org_id: 12,
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]' },
    });
  });
});
