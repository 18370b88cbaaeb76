/**
 * Rate limiting with counters that know what is left: each limited subject counts in fixed
 * windows of RATE_LIMIT_WINDOW_SECONDS aligned to the clock, in its own Durable Object
 * (core/rate-limit-counter.ts): an authenticated request is counted per organization (and per
 * key for an API key, in the organization's object), so by one call; login, signup, booking
 * confirmations and form submissions per client IP. Every request the limiter ran for carries
 * the IETF draft headers (draft-ietf-httpapi-ratelimit-headers-10):
 *
 *   RateLimit-Policy: "org";q=1200;w=60, "key";q=600;w=60
 *   RateLimit: "org";r=1187;t=42, "key";r=595;t=42
 *
 * one list member per counter (`q` requests per `w` seconds; `r` left, `t` seconds until the
 * window ends). A request over any counter's limit answers 429 with Retry-After = that window's
 * `t`, and none of its counters counts it. No database round trip: the counters live at the
 * edge, next to the Worker.
 *
 * Authenticated requests are not counted per client IP: the credential names who calls, and
 * callers of different organizations behind one address (an office's NAT, a coworking space, an
 * agency's server calling for several clients) must not share one budget. Requests without a
 * credential are counted per IP.
 */
import type { Context } from 'hono';
import type { Bindings } from '../env';
import type { AppEnv } from './context';
import { RateLimited, Unauthorized } from './errors';
import { errorText, log } from './log';
import type { WindowState } from './rate-limit-counter';
import { isTokenRefused, type RefusedTokens, rememberRefusedToken } from './refused-tokens';

export const RATE_LIMIT_WINDOW_SECONDS = 60;
/** Defaults when wrangler.toml does not set API_RATE_LIMIT / AUTH_RATE_LIMIT (requests per window). */
const DEFAULT_API_LIMIT = 1200;
const DEFAULT_AUTH_LIMIT = 20;
/** Per API key: half the organization's default, so one runaway integration leaves the rest room. */
const DEFAULT_API_KEY_LIMIT = 600;

export function clientIp(c: Context<AppEnv>): string {
  return c.req.header('cf-connecting-ip') ?? 'unknown';
}

/** One counter of a subject's object: the policy named in the headers, the counter's name in the object (the policy's by default), its limit. */
export interface Counter {
  policy: string;
  name?: string;
  limit: number;
}

interface Counted {
  policy: string;
  key: string;
  state: WindowState;
}

/**
 * Counters that refused a request (`<subject>#<counter>`), with the end of the refused window
 * (epoch ms), as this isolate heard it: `countApiCall` counts a request with such a counter
 * before touching the database. Bounded: when full it starts over, which only costs a forgotten
 * counter one early scoping statement.
 */
const refusedUntil = new Map<string, number>();
const REFUSALS_REMEMBERED = 10_000;

function counterKey(subject: string, counter: Counter): string {
  return `${subject}#${counter.name ?? counter.policy}`;
}

function rememberRefusals(refused: string[], resetSeconds: number, now: number): void {
  if (refusedUntil.size + refused.length > REFUSALS_REMEMBERED) refusedUntil.clear();
  for (const key of refused) refusedUntil.set(key, now + resetSeconds * 1000);
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
 * Counts the request against `subject`'s counters (one call to its object), sets the RateLimit
 * headers and throws 429 when a counter is over its limit. Without the binding, or when the
 * counter cannot be reached, the request goes through without headers: the headers never state
 * a number nobody counted.
 */
export async function enforceRateLimit(c: Context<AppEnv>, subject: string, counters: Counter[]): Promise<void> {
  await countRequestOf(c, subject, counters);
}

/**
 * `enforceRateLimit`, answering the index of the window that counted the request (undefined when
 * nothing counted it). With `tokenId`, a bearer token the object remembers as refused is counted
 * by none of the counters and answered 401 (and remembered in this isolate too).
 */
async function countRequestOf(
  c: Context<AppEnv>,
  subject: string,
  counters: Counter[],
  tokenId?: string,
): Promise<number | undefined> {
  const namespace = c.env.RATE_LIMITER;
  if (!namespace) return undefined;
  let counted: Counted[];
  let window: number;
  try {
    const states = await namespace.get(namespace.idFromName(subject)).count(
      counters.map(({ policy, name, limit }) => ({ name: name ?? policy, limit })),
      RATE_LIMIT_WINDOW_SECONDS,
      tokenId,
    );
    window = Math.floor(Date.now() / (RATE_LIMIT_WINDOW_SECONDS * 1000));
    if (tokenId !== undefined && states.some((state) => state.tokenRefused)) {
      rememberRefusedTokenHere(tokenId, Date.now() + REFUSED_TOKEN_MEMORY_MS);
      throw tokenRefused();
    }
    counted = counters.map((counter, i) => ({
      policy: counter.policy,
      key: counterKey(subject, counter),
      state: states[i] as WindowState,
    }));
  } catch (error) {
    if (error instanceof Unauthorized) throw error;
    log.warn('rate limit counter unreachable; request let through', { error: errorText(error) });
    return undefined;
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
    const resetSeconds = Math.max(...refused.map(({ state }) => state.resetSeconds));
    rememberRefusals(
      refused.map(({ key }) => key),
      resetSeconds,
      Date.now(),
    );
    throw new RateLimited(resetSeconds);
  }
  return window;
}

/** Login and signup: per client IP. */
export function limitAuthAttempts(c: Context<AppEnv>): Promise<void> {
  return enforceRateLimit(c, `auth-ip:${clientIp(c)}`, [{ policy: 'ip', limit: rateLimits(c.env).auth }]);
}

/** A request's count against its keys, started: `admission` settles with the counters' answer. */
export interface ApiCallCount {
  /** Resolves when the counters admit the request; rejects with 429 when a counter is over its limit (401 for a token remembered as refused). */
  admission: Promise<void>;
  /** A counter of this request refused one in its current window (as this isolate last heard): await `admission` before any database work. */
  refusedBefore: boolean;
  /**
   * The request's bearer token was refused by its caller check: remembers the token as refused
   * (in this isolate and in the organization's object) and takes the request back from the
   * counters that counted it, so an ended token costs the organization's budget nothing. Call it
   * only once `admission` has admitted the request.
   */
  refuseToken(tokenExpiresAt: Date): Promise<void>;
}

/**
 * Refused bearer tokens (`jti`) this isolate heard of, with the end of their remembering (epoch
 * ms): `bearerAuth` answers them 401 before any counter or statement. Bounded, oldest forgotten
 * first.
 */
const refusedTokens: RefusedTokens = new Map();
const REFUSED_TOKENS_REMEMBERED = 10_000;
/**
 * How long a refused token is remembered (at most until it expires). A refusal is final for a
 * revoked token, a deleted user and an older session generation (a reactivated user gets a new
 * one); only an organization reactivated by an operator lets its users' tokens back in, and
 * they are then served again within this time.
 */
const REFUSED_TOKEN_MEMORY_MS = 10 * 60 * 1000;

function rememberRefusedTokenHere(tokenId: string, untilMs: number): void {
  rememberRefusedToken(refusedTokens, tokenId, untilMs, REFUSED_TOKENS_REMEMBERED);
}

/** Throws the caller check's 401 for a bearer token this isolate remembers as refused: no counter counts it, no statement runs. */
export function refuseRememberedToken(tokenId: string): void {
  if (isTokenRefused(refusedTokens, tokenId, Date.now())) throw tokenRefused();
}

/** The 401 of a bearer token its caller check refused (revoked, user inactive, older session generation). */
export function tokenRefused(): Unauthorized {
  return new Unauthorized('Access token revoked or user inactive', 'invalid_token');
}

/**
 * Authenticated routes (bearer and API key): counts the request per organization, and per key
 * for an API key, in one call to the organization's counter object. The count is started, not
 * awaited: the auth middleware hands `admission` to `runAsTenant`, whose scoping statement goes
 * meanwhile, and the handler runs only once the counters have admitted the request. At the edge
 * the counters (the Durable Object, where it lives) and the database (its region) are in
 * different places, so waiting for one before asking the other added a round trip to every call.
 * A request whose organization or key was refused in its current window is counted first
 * (`refusedBefore`): a client going on past its limit costs the database nothing. A bearer
 * request names its token (`tokenId`, its `jti`): one the organization's object remembers as
 * refused is counted by none of its counters and answered 401.
 */
export function countApiCall(
  c: Context<AppEnv>,
  orgId: number,
  credential: { apiKeyId?: number; tokenId?: string } = {},
): ApiCallCount {
  const limits = rateLimits(c.env);
  const subject = `org:${orgId}`;
  const now = Date.now();
  const { apiKeyId, tokenId } = credential;
  const counters: Counter[] = [
    { policy: 'org', limit: limits.api },
    ...(apiKeyId === undefined ? [] : [{ policy: 'key', name: `key:${apiKeyId}`, limit: limits.apiKey }]),
  ];
  const counting = countRequestOf(c, subject, counters, tokenId);
  return {
    admission: counting.then(() => undefined),
    refusedBefore: counters.some((counter) => refusedRecently(counterKey(subject, counter), now)),
    async refuseToken(tokenExpiresAt) {
      if (tokenId === undefined) return;
      const until = Math.min(tokenExpiresAt.getTime(), Date.now() + REFUSED_TOKEN_MEMORY_MS);
      rememberRefusedTokenHere(tokenId, until);
      const namespace = c.env.RATE_LIMITER;
      if (!namespace) return;
      try {
        const window = await counting;
        await namespace
          .get(namespace.idFromName(subject))
          .refuseToken(
            tokenId,
            until,
            window === undefined ? undefined : { counters: counters.map(({ policy, name }) => name ?? policy), window },
          );
      } catch (error) {
        log.warn('rate limit counter unreachable; refused token not handed back', { error: errorText(error) });
      }
    },
  };
}
