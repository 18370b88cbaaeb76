/**
 * The queue message union: every async job kind the consumer understands. A message carries
 * only ids; the handler reloads state from Postgres, so a redelivered message is harmless.
 */
export type JobMessage =
  | { kind: 'lead-import'; orgId: number; jobId: number }
  | { kind: 'export'; orgId: number; jobId: number }
  | { kind: 'company-enrichment'; orgId: number; jobId: number };

export type JobKind = JobMessage['kind'];
