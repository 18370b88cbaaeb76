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
  /** Sends recorded mail_messages rows (modules/mail/send-job.ts); each row is sent at most once. */
  | { kind: 'mail-send'; orgId: number; messageIds: number[] }
  /** A signed one-click unsubscribe (modules/mail/unsubscribe-job.ts): sent by the public route itself, no outbox. */
  | { kind: 'mail-unsubscribe'; orgId: number; address: string; at: string };

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
}
