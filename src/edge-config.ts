/**
 * The edge Worker's configuration: the secrets that sign and verify tracking tokens (and web-form
 * stamps). Checked by hand rather than with zod, so the edge bundle carries no schema library
 * (scripts/edge-size.mjs keeps it out); the API Worker's readConfig (src/env.ts) applies the same
 * checks, from here, inside its zod schema.
 */
import type { Bindings } from './env';

export interface EdgeConfig {
  JWT_SECRET: string;
  TRACKING_SECRET?: string;
}

export class ConfigurationError extends Error {}

/** Secrets that were once in this repository: a Worker configured with one refuses to serve. */
const PUBLISHED_SECRETS = new Set(['local-development-secret-not-for-production-use']);

const MIN_SECRET_BYTES = 32;

/** What is wrong with JWT_SECRET, or null. */
export function jwtSecretFault(secret: unknown): string | null {
  if (typeof secret !== 'string') return 'JWT_SECRET is not set';
  if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) return 'JWT_SECRET must be at least 32 bytes long';
  if (PUBLISHED_SECRETS.has(secret)) {
    return 'JWT_SECRET is a published development value: anyone could sign tokens with it';
  }
  return null;
}

/** What is wrong with TRACKING_SECRET (optional), or null. */
export function trackingSecretFault(secret: unknown): string | null {
  if (secret === undefined) return null;
  if (typeof secret !== 'string') return 'TRACKING_SECRET must be a string';
  if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
    return 'TRACKING_SECRET must be at least 32 bytes long';
  }
  return null;
}

const parsed = new WeakMap<object, EdgeConfig>();

/** The edge Worker's configuration, checked once per isolate and env object; throws ConfigurationError naming every fault. */
export function readEdgeConfig(env: Pick<Bindings, 'JWT_SECRET' | 'TRACKING_SECRET'>): EdgeConfig {
  const cached = parsed.get(env);
  if (cached) return cached;
  const faults = [jwtSecretFault(env.JWT_SECRET), trackingSecretFault(env.TRACKING_SECRET)].filter(
    (fault): fault is string => fault !== null,
  );
  if (faults.length > 0) throw new ConfigurationError(faults.join('; '));
  const config: EdgeConfig = {
    JWT_SECRET: env.JWT_SECRET as string,
    ...(env.TRACKING_SECRET === undefined ? {} : { TRACKING_SECRET: env.TRACKING_SECRET }),
  };
  parsed.set(env, config);
  return config;
}
