/**
 * The Worker's bindings and the configuration parsed from them, in one place.
 * Configuration is validated once per isolate; a missing secret fails loudly in the log
 * and answers 500 without saying which secret (the log says it).
 */
import { z } from 'zod';
import type { RateLimitCounter } from './core/rate-limit-counter';
import { ConfigurationError, jwtSecretFault, trackingSecretFault } from './edge-config';
import type { EventMessage, JobMessage } from './jobs/messages';

export { ConfigurationError, type EdgeConfig, readEdgeConfig } from './edge-config';

export interface Bindings {
  DATABASE_URL?: string;
  /** Host:port of a WebSocket-to-TCP relay for a non-Neon Postgres (local dev and tests only). */
  DB_WS_PROXY?: string;
  JWT_SECRET?: string;
  SIGNUP_ENABLED?: string;
  /** Rate-limit counters, one Durable Object per limited subject (core/rate-limit-counter.ts). */
  RATE_LIMITER?: DurableObjectNamespace<RateLimitCounter>;
  /** Requests per minute per organization on authenticated routes (default 1200). */
  API_RATE_LIMIT?: string;
  /** Requests per minute per API key, besides its organization's limit (default 600). */
  API_KEY_RATE_LIMIT?: string;
  /** Login and signup attempts per minute per IP (default 20). */
  AUTH_RATE_LIMIT?: string;
  /** Booking confirmations per minute per client IP (default 10; src/modules/booking). */
  BOOKING_RATE_LIMIT?: string;
  /** Public booking reads per client IP (Rate Limiting binding; modules/booking/read-limit.ts). */
  BOOKING_READ_LIMITER?: RateLimit;
  /** R2: documents, images, imports, exports. */
  FILES: R2Bucket;
  /** Cloudflare Queue for async jobs (see src/jobs). */
  JOBS: Queue<JobMessage>;
  /** Cloudflare Queue of tracking hits (pixel opens, link clicks), consumed by src/jobs/events-runner.ts. */
  EVENTS: Queue<EventMessage>;
  /** Origins (comma-separated, e.g. "https://app.example.com") the bearer API answers CORS for; none by default. */
  CORS_ORIGINS?: string;
  /** Key of tracking-token signatures; when unset, derived from JWT_SECRET (modules/tracking/token.ts). */
  TRACKING_SECRET?: string;
  /**
   * Key (at least 32 bytes) that seals stored credentials: OAuth tokens, API tokens, SMTP
   * passwords (src/providers/secrets.ts). Without it, routes that need credentials answer 503.
   */
  CREDENTIALS_KEY?: string;
  /** Former CREDENTIALS_KEY values, comma-separated: they still open what they sealed (rotation). */
  CREDENTIALS_KEYS_PREVIOUS?: string;
  /** OAuth client of the Google Cloud project (Gmail, Google Calendar): refreshes access tokens. */
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  /** OAuth client of the Microsoft Entra app registration (Outlook mail, calendar). */
  MICROSOFT_CLIENT_ID?: string;
  MICROSOFT_CLIENT_SECRET?: string;
  /** OAuth client of the HubSpot public app (CRM connections made by OAuth): refreshes their 30-minute access tokens. */
  HUBSPOT_CLIENT_ID?: string;
  HUBSPOT_CLIENT_SECRET?: string;
  /** Entra tenant of the token endpoint: `common` (default), `organizations` or a tenant id. */
  MICROSOFT_TENANT?: string;
  /** The AI provider (src/providers/ai/select.ts): local (default), openai or workers-ai. */
  AI_PROVIDER?: string;
  /** openai: the chat-completions base URL (OpenAI, Workers AI's OpenAI endpoint, any compatible server). */
  AI_BASE_URL?: string;
  AI_MODEL?: string;
  /** openai: the key (a secret). */
  AI_API_KEY?: string;
  /** workers-ai: the Workers AI binding (`[ai] binding = "AI"`). */
  AI?: { run(model: string, inputs: Record<string, unknown>): Promise<unknown> };
  /**
   * "true" under `npm start` and in the tests only: a route whose organization has no connection
   * of a kind uses that kind's local provider (team chat: providers/chat/select.ts) instead of 409.
   */
  LOCAL_PROVIDERS?: string;
  /** "true" in local development only: webhooks may go to http and loopback receivers (providers/webhooks/target.ts). */
  WEBHOOK_LOCAL_TARGETS?: string;
  /** Ports webhook URLs may use besides 443, comma-separated (default none). */
  WEBHOOK_ALLOWED_PORTS?: string;
  /** The DNS provider checking link-domain TXT records (providers/dns/select.ts): local or doh; unset, local under LOCAL_PROVIDERS=true, else doh. */
  DNS_PROVIDER?: string;
  /** doh: the DNS-over-HTTPS JSON endpoint (default https://cloudflare-dns.com/dns-query). */
  DNS_OVER_HTTPS_URL?: string;
  /**
   * The service operator's key (a secret, at least 32 characters): the operator routes (granting
   * credits, topping up calling wallets) take it as `Authorization: Bearer` or `X-Operator-Key`; unset, they answer 404
   * (core/auth/operator.ts). Never given to a tenant.
   */
  OPERATOR_API_KEY?: string;
  /** Workers Static Assets (.assets/): Scalar's bundle for the reference page, see src/modules/docs. */
  ASSETS: Fetcher;
}

/** The edge Worker's part, checked by the same functions as its zod-free readEdgeConfig (src/edge-config.ts). */
const edgeConfigSchema = z.object({
  JWT_SECRET: z.string({ error: 'JWT_SECRET is not set' }).superRefine((secret, ctx) => {
    const fault = jwtSecretFault(secret);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  }),
  TRACKING_SECRET: z
    .string()
    .superRefine((secret, ctx) => {
      const fault = trackingSecretFault(secret);
      if (fault) ctx.addIssue({ code: 'custom', message: fault });
    })
    .optional(),
});

const configSchema = edgeConfigSchema.extend({
  // A direct or a pooled endpoint: every statement of a request carries its tenant scope, so a
  // transaction-mode pooler may run each on another backend (src/db/scoped-statements.ts).
  DATABASE_URL: z.string().min(1, 'DATABASE_URL is not set'),
  DB_WS_PROXY: z.string().optional(),
  SIGNUP_ENABLED: z
    .string()
    .optional()
    .transform((value) => value?.toLowerCase() !== 'false'),
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin.length > 0),
    )
    .refine(
      (origins) => origins.every(isOrigin),
      'CORS_ORIGINS must list origins such as https://app.example.com (scheme, host and optional port; no path), comma-separated',
    ),
});

function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

export type Config = z.infer<typeof configSchema>;

/** Parses `env` with `schema` once per isolate and env object; throws ConfigurationError naming every fault. */
function parsedOnce<T>(schema: z.ZodType<T>): (env: object) => T {
  const parsed = new WeakMap<object, T>();
  return (env) => {
    const cached = parsed.get(env);
    if (cached) return cached;
    const result = schema.safeParse(env);
    if (!result.success) {
      throw new ConfigurationError(result.error.issues.map((issue) => issue.message).join('; '));
    }
    parsed.set(env, result.data);
    return result.data;
  };
}

export const readConfig: (env: Bindings) => Config = parsedOnce(configSchema);
