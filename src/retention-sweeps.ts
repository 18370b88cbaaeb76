/**
 * What the service keeps only for a while (docs/data-path.md, "Retention"), deleted by the minute
 * cron a batch at a time, on one connection, one sweep after another (each is a few index probes
 * when it has nothing to do). A sweep that fails does not keep the next from running; the cron run
 * then fails with every error.
 */
import { errorText, log } from './core/log';
import { sweepIdempotencyKeys } from './core/idempotency';
import { withOwnDatabase, type Database } from './db/client';
import { readConfig, type Bindings } from './env';
import { sweepEndedJobs } from './jobs/ended-jobs';
import { sweepAuthRecords } from './modules/auth';
import { sweepExpiredExports } from './modules/exports';
import { sweepMeetingToolDeliveryIds } from './modules/meetings';
import { sweepWebhookDeliveries } from './modules/webhooks';

export const RETENTION_SWEEPS: Record<string, (db: Database, env: Bindings) => Promise<unknown>> = {
  /** An export's file 30 days after the export finished (modules/exports/retention.ts). */
  export_files: (db, env) => sweepExpiredExports(db, env.FILES),
  /** Idempotency keys after 24 hours (core/idempotency.ts). */
  idempotency_keys: (db) => sweepIdempotencyKeys(db),
  /** Lead scoring and calendar sync jobs 7 days after they ended (jobs/ended-jobs.ts). */
  ended_jobs: (db) => sweepEndedJobs(db),
  /** Finished webhook deliveries and their attempts after 90 days (modules/webhooks/retention.ts). */
  webhook_deliveries: (db) => sweepWebhookDeliveries(db),
  /** Meeting tools' delivery ids after 7 days (modules/meetings/retention.ts). */
  meeting_tool_delivery_ids: (db) => sweepMeetingToolDeliveryIds(db),
  /** Failed logins, trusted addresses and revoked tokens once spent (modules/auth/retention.ts). */
  sign_in_records: (db) => sweepAuthRecords(db),
};

/** The cron trigger's entry: every retention sweep in turn, on its own connection. */
export async function runRetentionSweeps(env: Bindings): Promise<Record<string, unknown>> {
  return withOwnDatabase(readConfig(env), async (db) => {
    const done: Record<string, unknown> = {};
    const failures: unknown[] = [];
    for (const [name, sweep] of Object.entries(RETENTION_SWEEPS)) {
      try {
        done[name] = await sweep(db, env);
      } catch (error) {
        log.error('retention sweep failed', { sweep: name, error: errorText(error) });
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, 'retention sweeps failed');
    return done;
  });
}
