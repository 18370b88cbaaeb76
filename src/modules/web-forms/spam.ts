/**
 * Spam defences of the hosted form, all checked before the database is touched (except the
 * form lookup, cached): a honeypot field people never see, a minimum fill time signed into the
 * page (HMAC with the tracking key over form id and render time, so it cannot be forged or
 * moved to another form), and a per-IP limit on submissions. A submission that trips one is
 * dropped silently: the visitor (or bot) sees the normal thank-you page.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { RateLimited } from '../../core/errors';
import { clientIp, enforceRateLimit } from '../../core/rate-limit';
import { signWithTrackingKey, type TrackingSecrets, verifyWithTrackingKey } from '../tracking';

/** A person needs longer than this to fill a form; bots post at once. */
export const MIN_FILL_MS = 3_000;
/** Submissions per IP per rate-limit window (60 s), across forms. */
export const SUBMISSIONS_PER_IP_PER_MINUTE = 10;
/** The honeypot's field name: bots fill fields called like this; the page hides it from people. */
export const HONEYPOT_FIELD = 'website';
/** The hidden field carrying the signed render time. */
export const TIMING_FIELD = '_t';

const PURPOSE = 'web-form-render';

export function formSecrets(c: Context<AppEnv>): TrackingSecrets {
  return { trackingSecret: c.env.TRACKING_SECRET || undefined, jwtSecret: c.var.config.JWT_SECRET };
}

/** `<render time ms>.<signature>` for the page's hidden field. */
export async function signRenderTime(secrets: TrackingSecrets, formId: number, renderedAt = Date.now()) {
  return `${renderedAt}.${await signWithTrackingKey(secrets, PURPOSE, `${formId}:${renderedAt}`)}`;
}

/** True when the token was signed for this form at least MIN_FILL_MS ago (and not in the future). */
export async function filledByAPerson(
  secrets: TrackingSecrets,
  formId: number,
  token: string | undefined,
  now = Date.now(),
): Promise<boolean> {
  const match = /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
  if (!match) return false;
  const renderedAt = Number(match[1]);
  if (now - renderedAt < MIN_FILL_MS || renderedAt > now) return false;
  return verifyWithTrackingKey(secrets, PURPOSE, `${formId}:${renderedAt}`, match[2]);
}

/** Counts the submission against the visitor's IP; false once over the limit (the counter's 429, swallowed). */
export async function withinSubmissionLimit(c: Context<AppEnv>): Promise<boolean> {
  try {
    await enforceRateLimit(c, `web-form-ip:${clientIp(c)}`, [
      { policy: 'form-ip', limit: SUBMISSIONS_PER_IP_PER_MINUTE },
    ]);
    return true;
  } catch (error) {
    if (error instanceof RateLimited) return false;
    throw error;
  }
}
