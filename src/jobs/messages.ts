/**
 * The message types of the Worker's queues, in one file that imports nothing, so env.ts (the
 * bindings) can name them without importing any module.
 *
 * The jobs queue: every async job kind the consumer understands. A message carries only ids;
 * the handler reloads state from Postgres, so a redelivered message is harmless.
 */
export type JobMessage =
  | { kind: 'lead-import'; orgId: number; jobId: number }
  | { kind: 'export'; orgId: number; jobId: number }
  | { kind: 'company-enrichment'; orgId: number; jobId: number }
  /** Sends the mail_messages rows of a mail_send_jobs row (modules/mail/send-job.ts), each at most once. */
  | { kind: 'mail-send'; orgId: number; jobId: number }
  /** Copies a calendar connection's busy times (modules/calendar/busy-sync.ts): a calendar_sync_jobs row, queued by the cron and the sync route. */
  | { kind: 'calendar-sync'; orgId: number; jobId: number }
  /** Writes a booked meeting into its rep's calendar once, and keeps it in line with the meeting (moved, cancelled, deleted): a calendar_event_writes row (modules/calendar/event-job.ts). */
  | { kind: 'calendar-event'; orgId: number; jobId: number }
  /** A voice_jobs row (modules/voice/voice-job.ts): buy a number, dial a call, or copy a recording into R2. */
  | { kind: 'voice'; orgId: number; jobId: number }
  /** Imports companies and contacts from a connected CRM (modules/integrations/crm-import-job.ts), a page per checkpoint. */
  | { kind: 'crm-import'; orgId: number; jobId: number }
  /** Writes one AI email draft per lead of an ai_email_jobs row (modules/intelligence/bulk-job.ts). */
  | { kind: 'ai-email-bulk'; orgId: number; jobId: number }
  /** One attempt at one webhook delivery (modules/webhooks/delivery-job.ts). */
  | { kind: 'webhook-delivery'; orgId: number; jobId: number }
  /** Scores the leads of a lead_scoring_jobs row (modules/lead-scoring/scoring-job.ts). */
  | { kind: 'lead-scoring'; orgId: number; jobId: number }
  /** Enriches the items of a lead_enrichment_jobs row (modules/lead-enrichment/bulk-job.ts), each at most once. */
  | { kind: 'lead-enrichment'; orgId: number; jobId: number };

export type JobKind = JobMessage['kind'];

/**
 * The events queue: one tracking hit (a pixel open or a link click), published by
 * modules/tracking/hit-routes.ts and recorded by modules/tracking/hits.ts.
 */
export interface TrackingHit {
  kind: 'open' | 'click';
  /** Unique per hit: the dedupe key that makes redelivery harmless. */
  hitId: string;
  orgId: number;
  leadId: number;
  tokenHash: string;
  campaign: string | null;
  targetUrl: string | null;
  /** When the hit happened (ISO 8601). */
  at: string;
  /**
   * An open fetched by a known prefetcher (modules/tracking/prefetch.ts): recorded as `adjusted`,
   * worth nothing. Unique ids aside, hits are deduplicated per token and 10-minute window.
   */
  prefetch?: 'apple_mpp' | 'gmail_proxy';
}

/**
 * The events queue, too: a verified one-click unsubscribe, published by
 * modules/mail/unsubscribe-routes.ts and recorded on the suppression list by modules/mail/suppressions.ts.
 */
export interface UnsubscribeRequest {
  kind: 'unsubscribe';
  orgId: number;
  /** Lower-cased. */
  address: string;
  /** When it was asked (ISO 8601). */
  at: string;
}

export type EventMessage = TrackingHit | UnsubscribeRequest;
