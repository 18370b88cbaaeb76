/**
 * Rate limiting with counters that know what is left: each limited key is a fixed window of
 * RATE_LIMIT_WINDOW_SECONDS aligned to the clock, counted by its own Durable Object
 * (core/rate-limit-counter.ts). Every request the limiter ran for carries the IETF draft
 * headers (draft-ietf-httpapi-ratelimit-headers-10):
 *
 *   RateLimit-Policy: "org";q=1200;w=60, "ip";q=1200;w=60
 *   RateLimit: "org";r=1187;t=42, "ip";r=1195;t=42
 *
 * one list member per key counted (`q` requests per `w` seconds; `r` left, `t` seconds until the
 * window ends). A request over any key's limit answers 429 with Retry-After = that window's `t`.
 * No database round trip: the counters live at the edge, next to the Worker.
 */
import type { Context } from 'hono';
import type { Bindings } from '../env';
import type { AppEnv } from './context';
import { RateLimited } from './errors';
import { errorText, log } from './log';
import type { WindowState } from './rate-limit-counter';

export const RATE_LIMIT_WINDOW_SECONDS = 60;
/** Defaults when wrangler.toml does not set API_RATE_LIMIT / AUTH_RATE_LIMIT (requests per window). */
const DEFAULT_API_LIMIT = 1200;
const DEFAULT_AUTH_LIMIT = 20;
/** Per API key: half the organization's default, so one runaway integration leaves the rest room. */
const DEFAULT_API_KEY_LIMIT = 600;

export function clientIp(c: Context<AppEnv>): string {
  return c.req.header('cf-connecting-ip') ?? 'unknown';
}

interface Counted {
  policy: string;
  key: string;
  state: WindowState;
}

/**
 * Keys a counter refused, with the end of the refused window (epoch ms), as this isolate heard it:
 * `countApiCall` counts such a key before touching the database. Bounded: when full it starts over,
 * which only costs a forgotten key one early scoping statement.
 */
const refusedUntil = new Map<string, number>();
const REFUSALS_REMEMBERED = 10_000;

function rememberRefusals(refused: Counted[], now: number): void {
  if (refusedUntil.size + refused.length > REFUSALS_REMEMBERED) refusedUntil.clear();
  for (const { key, state } of refused) refusedUntil.set(key, now + state.resetSeconds * 1000);
}

function refusedRecently(key: string, now: number): boolean {
  const until = refusedUntil.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  refusedUntil.delete(key);
  return false;
}

function limitOf(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/** The limits in force (requests per window), from wrangler.toml [vars]. */
export function rateLimits(env: Bindings): { api: number; auth: number; apiKey: number } {
  return {
    api: limitOf(env.API_RATE_LIMIT, DEFAULT_API_LIMIT),
    auth: limitOf(env.AUTH_RATE_LIMIT, DEFAULT_AUTH_LIMIT),
    apiKey: limitOf(env.API_KEY_RATE_LIMIT, DEFAULT_API_KEY_LIMIT),
  };
}

/**
 * Counts the request against every key (in parallel), sets the RateLimit headers and throws 429
 * when a key is over its limit. Without the binding, or when a counter cannot be reached, the
 * request goes through without headers: the headers never state a number nobody counted.
 */
export async function enforceRateLimit(
  c: Context<AppEnv>,
  limit: number,
  /** A key's own `limit`, when it has one, replaces the shared one. */
  keys: { policy: string; key: string; limit?: number }[],
): Promise<void> {
  const namespace = c.env.RATE_LIMITER;
  if (!namespace) return;
  let counted: Counted[];
  try {
    counted = await Promise.all(
      keys.map(async ({ policy, key, limit: own }) => ({
        policy,
        key,
        state: await namespace.get(namespace.idFromName(key)).hit(own ?? limit, RATE_LIMIT_WINDOW_SECONDS),
      })),
    );
  } catch (error) {
    log.warn('rate limit counter unreachable; request let through', { error: errorText(error) });
    return;
  }
  c.header(
    'RateLimit-Policy',
    counted.map(({ policy, state }) => `"${policy}";q=${state.limit};w=${RATE_LIMIT_WINDOW_SECONDS}`).join(', '),
  );
  c.header(
    'RateLimit',
    counted.map(({ policy, state }) => `"${policy}";r=${state.remaining};t=${state.resetSeconds}`).join(', '),
  );
  const refused = counted.filter(({ state }) => !state.allowed);
  if (refused.length > 0) {
    rememberRefusals(refused, Date.now());
    throw new RateLimited(Math.max(...refused.map(({ state }) => state.resetSeconds)));
  }
}

/** Login and signup: per client IP. */
export function limitAuthAttempts(c: Context<AppEnv>): Promise<void> {
  return enforceRateLimit(c, rateLimits(c.env).auth, [{ policy: 'ip', key: `auth-ip:${clientIp(c)}` }]);
}

/** A request's count against its keys, started: `admission` settles with the counters' answer. */
export interface ApiCallCount {
  /** Resolves when the counters admit the request; rejects with 429 when a key is over its limit. */
  admission: Promise<void>;
  /** A key of this request was refused in its current window (as this isolate last heard): await `admission` before any database work. */
  refusedBefore: boolean;
}

/**
 * Authenticated routes (bearer and API key): counts the request per organization and client IP,
 * and per key for an API key. The count is started, not awaited: the auth middleware hands
 * `admission` to `runAsTenant`, whose scoping statement goes meanwhile, and the handler runs only
 * once the counters have admitted the request. At the edge the counters (Durable Objects, where
 * each key's object lives) and the database (its region) are in different places, so waiting for
 * one before asking the other added a round trip to every call. A key refused in its current
 * window is counted first (`refusedBefore`): a client going on past its limit costs the database
 * nothing.
 */
export function countApiCall(c: Context<AppEnv>, orgId: number, apiKeyId?: number): ApiCallCount {
  const limits = rateLimits(c.env);
  const keys = [
    { policy: 'org', key: `org:${orgId}` },
    { policy: 'ip', key: `ip:${clientIp(c)}` },
    ...(apiKeyId === undefined ? [] : [{ policy: 'key', key: `api-key:${apiKeyId}`, limit: limits.apiKey }]),
  ];
  const now = Date.now();
  return {
    admission: enforceRateLimit(c, limits.api, keys),
    refusedBefore: keys.some(({ key }) => refusedRecently(key, now)),
  };
}
