/**
 * The delivery log's retention: a finished delivery (completed, failed or cancelled) is kept
 * WEBHOOK_DELIVERY_RETENTION_DAYS after it was written, then deleted with its attempts by the
 * minute cron. Svix keeps messages 90 days by default, and the log is for seeing and replaying
 * what was sent: after that a delivery is only a copy of lead data at an endpoint that had it.
 * A delivery still queued or running is never deleted.
 */
import { sql } from 'drizzle-orm';
import { inBatches } from '../../db/batches';
import type { Queryable } from '../../db/client';
import { webhookDeliveries } from '../../db/schema';
import { ENDED_JOB_STATUSES } from '../../jobs/job-status';

export const WEBHOOK_DELIVERY_RETENTION_DAYS = 90;

/**
 * Deletes finished deliveries older than the retention, across organizations, as the tables'
 * owner: at most `batch` a statement, oldest first (webhook_deliveries_created_idx), so no sweep
 * holds long locks or a long transaction. Attempts go through the foreign key's cascade
 * (webhook_attempts_delivery_idx).
 */
export async function sweepWebhookDeliveries(db: Queryable, batch = 5000, maxBatches = 20): Promise<number> {
  const ended = sql.join(
    ENDED_JOB_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  return inBatches(
    async () =>
      (
        await db.execute(sql`
          delete from ${webhookDeliveries} where id in (
            select id from ${webhookDeliveries}
            where created_at < now() - make_interval(days => ${WEBHOOK_DELIVERY_RETENTION_DAYS}) and status in (${ended})
            order by created_at limit ${batch})`)
      ).rowCount ?? 0,
    batch,
    maxBatches,
  );
}
