import type { Context } from 'hono';

/** The origin the request reached: where the provider's webhooks for this deployment point. */
export function requestOrigin(c: Context): string {
  return new URL(c.req.url).origin;
}
