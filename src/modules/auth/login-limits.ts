/**
 * Login limits after OWASP's Authentication Cheat Sheet, instead of a hard lock that anyone who
 * knows a user's email could hold them out with:
 * - per account and address: ADDRESS_FAILURE_LIMIT failures from one address within the window
 *   hold that address back (429) until the oldest of them leaves the window;
 * - per account, softer: from ACCOUNT_SOFT_LIMIT failures within the window (from any addresses),
 *   each further attempt waits a delay that doubles with every failure (1 s, 2 s, 4 s … at most
 *   the window), counted from the latest failure;
 * - an address the account logged in from within TRUSTED_ADDRESS_DAYS is never held back by
 *   failures from other addresses, only by its own.
 * A successful login forgets the account's failures. The counts are read with the account, so
 * the limits add no round trip before the password check.
 */
import { sql, type SQL } from 'drizzle-orm';
import { loginFailures, loginSuccesses } from '../../db/schema';

export const LOGIN_FAILURE_WINDOW_MINUTES = 15;
export const ADDRESS_FAILURE_LIMIT = 5;
export const ACCOUNT_SOFT_LIMIT = 10;
export const TRUSTED_ADDRESS_DAYS = 30;
const WINDOW_SECONDS = LOGIN_FAILURE_WINDOW_MINUTES * 60;

export interface LoginAttempt {
  emailKey: string;
  ip: string;
}

/** What the account's row carries about its recent failures (the columns of `limitColumns`). */
export interface LimitState {
  accountFailures: number;
  addressFailures: number;
  /** Seconds until the address's ADDRESS_FAILURE_LIMIT-th latest failure leaves the window, when there is one. */
  addressRetrySeconds: number | null;
  /** Seconds since the account's latest failure, when there is one. */
  sinceLastFailure: number | null;
  trustedAddress: boolean;
}

/** Columns to select with the account: its failures, this address's, and whether the address is trusted. */
export function limitColumns({ emailKey, ip }: LoginAttempt) {
  const recent = sql`${loginFailures.emailKey} = ${emailKey} and ${loginFailures.failedAt} > now() - make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES})`;
  const fromAddress = sql`${recent} and ${loginFailures.ip} = ${ip}`;
  return {
    accountFailures: sql<number>`(select count(*)::int from ${loginFailures} where ${recent})`,
    addressFailures: sql<number>`(select count(*)::int from ${loginFailures} where ${fromAddress})`,
    addressRetrySeconds: sql<
      number | null
    >`(select ceil(extract(epoch from ${loginFailures.failedAt} + make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES}) - now()))::int
      from ${loginFailures} where ${fromAddress} order by ${loginFailures.failedAt} desc offset ${ADDRESS_FAILURE_LIMIT - 1} limit 1)`,
    sinceLastFailure: sql<
      number | null
    >`(select extract(epoch from now() - max(${loginFailures.failedAt}))::float8 from ${loginFailures} where ${recent})`,
    trustedAddress: sql<boolean>`exists (select 1 from ${loginSuccesses} where ${loginSuccesses.emailKey} = ${emailKey}
      and ${loginSuccesses.ip} = ${ip} and ${loginSuccesses.succeededAt} > now() - make_interval(days => ${TRUSTED_ADDRESS_DAYS}))`,
  };
}

/** The delay the soft account limit asks after `failures` failures: 1 s at the limit, doubling, at most the window. */
export function accountDelaySeconds(failures: number): number {
  if (failures < ACCOUNT_SOFT_LIMIT) return 0;
  return Math.min(2 ** Math.min(failures - ACCOUNT_SOFT_LIMIT, 20), WINDOW_SECONDS);
}

/** Seconds this attempt must wait (a 429's Retry-After), or 0 when it may check the password. */
export function retryAfterSeconds(state: LimitState): number {
  if (Number(state.addressFailures) >= ADDRESS_FAILURE_LIMIT)
    return Math.max(1, Number(state.addressRetrySeconds ?? 1));
  if (state.trustedAddress || state.sinceLastFailure === null) return 0;
  const wait = accountDelaySeconds(Number(state.accountFailures)) - Number(state.sinceLastFailure);
  return wait > 0 ? Math.ceil(wait) : 0;
}

/** One statement: the failure, with the account's failures older than the window pruned. */
export function recordFailure({ emailKey, ip }: LoginAttempt): SQL {
  return sql`
    with pruned as (
      delete from ${loginFailures}
      where ${loginFailures.emailKey} = ${emailKey} and ${loginFailures.failedAt} <= now() - make_interval(mins => ${LOGIN_FAILURE_WINDOW_MINUTES})
    )
    insert into ${loginFailures} (email_key, ip) values (${emailKey}, ${ip})`;
}

/** One statement: the account's failures forgotten, this address trusted, addresses unused for long forgotten. */
export function recordSuccess({ emailKey, ip }: LoginAttempt): SQL {
  return sql`
    with cleared as (
      delete from ${loginFailures} where ${loginFailures.emailKey} = ${emailKey}
    ), stale as (
      delete from ${loginSuccesses}
      where ${loginSuccesses.emailKey} = ${emailKey} and ${loginSuccesses.succeededAt} <= now() - make_interval(days => ${TRUSTED_ADDRESS_DAYS})
    )
    insert into ${loginSuccesses} (email_key, ip) values (${emailKey}, ${ip})
    on conflict (email_key, ip) do update set succeeded_at = now()`;
}
