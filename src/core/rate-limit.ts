/**
 * Rate limiting through the Workers Rate Limiting bindings (simulated by wrangler dev and the
 * test pool). Each key is counted separately; any key over its limit answers 429 + Retry-After.
 */
import type { Context } from 'hono';
import type { AppEnv } from './context';
import { RateLimited } from './errors';

/** Both bindings are configured with a 60-second period in wrangler.toml. */
const PERIOD_SECONDS = 60;

export function clientIp(c: Context<AppEnv>): string {
  return c.req.header('cf-connecting-ip') ?? 'unknown';
}

export async function enforceRateLimit(limiter: RateLimit | undefined, keys: string[]): Promise<void> {
  if (!limiter) return;
  const outcomes = await Promise.all(keys.map((key) => limiter.limit({ key })));
  if (outcomes.some((outcome) => !outcome.success)) throw new RateLimited(PERIOD_SECONDS);
}

export function limitAuthAttempts(c: Context<AppEnv>): Promise<void> {
  return enforceRateLimit(c.env.AUTH_RATE_LIMITER, [`auth-ip:${clientIp(c)}`]);
}

export function limitApiCalls(c: Context<AppEnv>, orgId: number): Promise<void> {
  return enforceRateLimit(c.env.API_RATE_LIMITER, [`org:${orgId}`, `ip:${clientIp(c)}`]);
}
