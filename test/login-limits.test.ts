/**
 * Login without lockout of others (modules/auth/login-limits.ts). The finding: ten wrong passwords
 * for one email, sent from ten addresses, locked the right password out for 15 minutes, so anyone
 * who knew a user's email could keep them out. Now a sign-in from an address the account recently
 * logged in from is never refused for other addresses' failures; one address is limited per
 * account; the account as a whole gets doubling delays, not a lock.
 */
import { describe, expect, it } from 'vitest';
import { ACCOUNT_SOFT_LIMIT, accountDelaySeconds, retryAfterSeconds } from '../src/modules/auth/login-limits';
import { call, expectFailure, signupOrganization } from './helpers/api';

function attempt(email: string, password: string, ip: string) {
  return call('POST', '/api/auth/login', { body: { email, password }, headers: { 'cf-connecting-ip': ip } });
}

describe('login limits', () => {
  it('lets the user in from their usual address after ten wrong passwords from ten other addresses', async () => {
    const org = await signupOrganization('LoginLimits');
    const usual = '10.91.0.1';
    expect((await attempt(org.email, org.password, usual)).status).toBe(200);
    for (let i = 1; i <= 10; i++) {
      expectFailure(await attempt(org.email, 'wrong password', `10.91.${i}.1`), 401, 'unauthorized');
    }
    const again = await attempt(org.email, org.password, usual);
    expect(again.status, again.text).toBe(200);
    expect(typeof again.body.access_token).toBe('string');
  });

  it('holds back one address after five failures of its own, while another address still gets in', async () => {
    const org = await signupOrganization('LoginLimits');
    const guesser = '10.92.0.1';
    for (let i = 0; i < 5; i++) expectFailure(await attempt(org.email, 'wrong password', guesser), 401, 'unauthorized');
    const held = await attempt(org.email, org.password, guesser);
    expectFailure(held, 429, 'rate_limited');
    const retryAfter = Number(held.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect((await attempt(org.email, org.password, '10.92.1.1')).status).toBe(200);
  });

  it('holds back the user’s usual address for its own failures only', async () => {
    const org = await signupOrganization('LoginLimits');
    const usual = '10.93.0.1';
    expect((await attempt(org.email, org.password, usual)).status).toBe(200);
    for (let i = 0; i < 5; i++) expectFailure(await attempt(org.email, 'wrong password', usual), 401, 'unauthorized');
    expectFailure(await attempt(org.email, org.password, usual), 429, 'rate_limited');
  });

  it('doubles the account-wide delay with every failure past the soft limit, up to the window', () => {
    expect(accountDelaySeconds(ACCOUNT_SOFT_LIMIT - 1)).toBe(0);
    expect(accountDelaySeconds(ACCOUNT_SOFT_LIMIT)).toBe(1);
    expect(accountDelaySeconds(ACCOUNT_SOFT_LIMIT + 3)).toBe(8);
    expect(accountDelaySeconds(ACCOUNT_SOFT_LIMIT + 40)).toBe(900);
    const base = { addressFailures: 0, addressRetrySeconds: null, trustedAddress: false };
    expect(retryAfterSeconds({ ...base, accountFailures: 13, sinceLastFailure: 3 })).toBe(5);
    expect(retryAfterSeconds({ ...base, accountFailures: 13, sinceLastFailure: 9 })).toBe(0);
    expect(retryAfterSeconds({ ...base, accountFailures: 13, sinceLastFailure: 3, trustedAddress: true })).toBe(0);
  });
});
