/**
 * The sign-in records' retention (modules/auth/retention.ts): the minute cron deletes failed
 * logins past the login limits' window, trusted addresses past TRUSTED_ADDRESS_DAYS and revoked
 * tokens REVOKED_TOKEN_GRACE_MINUTES past their expiry, for every account and organization, and
 * keeps everything the login limits and the bearer check still read. The records are made through
 * the API (failed logins, a login, logouts) and aged in the database.
 *
 * Test files share one database, and another file's cron run may sweep the same rows at any
 * moment, so the tests assert what is left, never how many rows a sweep reported.
 */
import { env } from 'cloudflare:workers';
import { inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withOwnDatabase } from '../src/db/client';
import { loginFailures, loginSuccesses, revokedTokens } from '../src/db/schema';
import { readConfig } from '../src/env';
import { LOGIN_FAILURE_WINDOW_MINUTES, TRUSTED_ADDRESS_DAYS } from '../src/modules/auth/login-limits';
import { REVOKED_TOKEN_GRACE_MINUTES, sweepAuthRecords } from '../src/modules/auth/retention';
import { call, expectFailure, randomIp, type SignedUp, signupOrganization, uniqueEmail } from './helpers/api';
import { runMinuteCron } from './helpers/cron';

const owner = <T>(work: Parameters<typeof withOwnDatabase<T>>[1]) => withOwnDatabase(readConfig(env), work);

function login(email: string, password: string, ip = randomIp()) {
  return call('POST', '/api/auth/login', { body: { email, password }, headers: { 'cf-connecting-ip': ip } });
}

/** A fresh token of `user`, logged out at once: its revocation row. */
async function revokedToken(user: SignedUp): Promise<{ token: string; jti: string }> {
  const response = await login(user.email, user.password);
  expect(response.status, response.text).toBe(200);
  const token: string = response.body.access_token;
  const jti = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).jti as string;
  expect((await call('POST', '/api/auth/logout', { token })).status).toBe(200);
  return { token, jti };
}

async function failuresOf(emails: string[]) {
  return owner(async (db) =>
    (
      await db
        .select({ id: loginFailures.id, email: loginFailures.emailKey })
        .from(loginFailures)
        .where(inArray(loginFailures.emailKey, emails))
    ).map((row) => row.email),
  );
}

let first: SignedUp;
let second: SignedUp;

beforeAll(async () => {
  [first, second] = await Promise.all([signupOrganization('Auth retention'), signupOrganization('Auth retention 2')]);
});

describe('sign-in records retention', () => {
  it('deletes failed logins past the window and keeps those the limits still count', async () => {
    const user = await signupOrganization('Auth retention failures');
    const ip = randomIp();
    for (const email of [user.email, user.email, first.email])
      expectFailure(await login(email, 'wrong', ip), 401, 'unauthorized');
    // The first failure of each account is past the window.
    await owner((db) =>
      db.execute(sql`update ${loginFailures} set failed_at = now() - make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES + 1})
        where id in (select min(id) from ${loginFailures} where email_key in (${user.email}, ${first.email}) group by email_key)`),
    );

    await owner((db) => sweepAuthRecords(db));
    expect(await failuresOf([user.email, first.email])).toEqual([user.email]);

    // The failure left still counts: four more from its address reach the address limit (5).
    for (let n = 0; n < 4; n++) expectFailure(await login(user.email, 'wrong', ip), 401, 'unauthorized');
    expectFailure(await login(user.email, user.password, ip), 429, 'rate_limited');
  });

  it('forgets a trusted address after its days, keeps a recent one', async () => {
    const [oldIp, recentIp] = [randomIp(), randomIp()];
    for (const ip of [oldIp, recentIp]) expect((await login(second.email, second.password, ip)).status).toBe(200);
    await owner((db) =>
      db
        .update(loginSuccesses)
        .set({ succeededAt: sql`now() - make_interval(days => ${TRUSTED_ADDRESS_DAYS}, mins => 1)` })
        .where(sql`${loginSuccesses.emailKey} = ${second.email} and ${loginSuccesses.ip} = ${oldIp}`),
    );
    await owner((db) => sweepAuthRecords(db));
    const left = await owner((db) =>
      db
        .select({ ip: loginSuccesses.ip })
        .from(loginSuccesses)
        .where(inArray(loginSuccesses.emailKey, [second.email])),
    );
    expect(left.map((row) => row.ip)).toContain(recentIp);
    expect(left.map((row) => row.ip)).not.toContain(oldIp);
  });

  it('deletes revoked tokens an hour past their expiry, in every organization; a revoked token still valid stays refused', async () => {
    const live = await revokedToken(first);
    const justExpired = await revokedToken(first);
    const longExpired = await revokedToken(first);
    const otherLongExpired = await revokedToken(second);
    const age = (jti: string, minutes: number) =>
      owner((db) =>
        db
          .update(revokedTokens)
          .set({ expiresAt: sql`now() - make_interval(mins => ${minutes})` })
          .where(sql`${revokedTokens.jti} = ${jti}`),
      );
    await age(justExpired.jti, REVOKED_TOKEN_GRACE_MINUTES - 5);
    await age(longExpired.jti, REVOKED_TOKEN_GRACE_MINUTES + 1);
    await age(otherLongExpired.jti, REVOKED_TOKEN_GRACE_MINUTES + 1);

    await owner((db) => sweepAuthRecords(db));
    const left = await owner((db) =>
      db
        .select({ jti: revokedTokens.jti })
        .from(revokedTokens)
        .where(inArray(revokedTokens.jti, [live.jti, justExpired.jti, longExpired.jti, otherLongExpired.jti])),
    );
    expect(left.map((row) => row.jti).sort()).toEqual([live.jti, justExpired.jti].sort());
    // The logged-out token that has not expired is still refused.
    expectFailure(await call('GET', '/api/user/my', { token: live.token }), 401, 'unauthorized');
  });

  it('works through more than a batch, a statement per batch', async () => {
    const emails = Array.from({ length: 5 }, () => uniqueEmail('batch'));
    await owner((db) =>
      db.insert(loginFailures).values(
        emails.map((emailKey) => ({
          emailKey,
          ip: '203.0.113.9',
          failedAt: sql`now() - make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES + 2})`,
        })),
      ),
    );
    await owner((db) => sweepAuthRecords(db, 2));
    expect(await failuresOf(emails)).toEqual([]);
  });

  it('runs on the minute cron', async () => {
    const email = uniqueEmail('cron');
    await owner((db) =>
      db.insert(loginFailures).values({
        emailKey: email,
        ip: '203.0.113.10',
        failedAt: sql`now() - make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES + 1})`,
      }),
    );
    await runMinuteCron();
    expect(await failuresOf([email])).toEqual([]);
  });
});
