/**
 * The meeting tools' delivery ids (meeting_tool_deliveries) are remembered so that a replay, or the
 * tool's retry of a delivery we already took, changes nothing. A retry carries the same id with a
 * fresh timestamp and signature, so the signature's 5-minute window does not bound how long an id
 * must be kept: the tool's retry schedule does (Standard Webhooks senders such as Svix retry for
 * about a day and a half; Stripe for three days). MEETING_TOOL_DELIVERY_ID_DAYS covers them; the
 * minute cron then deletes the ids, which otherwise grew by one row per delivery for good.
 */
import { sql } from 'drizzle-orm';
import { deleteInBatches } from '../../db/batches';
import type { Queryable } from '../../db/client';
import { meetingToolDeliveries } from '../../db/schema';

export const MEETING_TOOL_DELIVERY_ID_DAYS = 7;

/** Deletes delivery ids older than MEETING_TOOL_DELIVERY_ID_DAYS across organizations, as the table's owner, a batch a statement (meeting_tool_deliveries_received_idx). */
export function sweepMeetingToolDeliveryIds(db: Queryable, batch = 5000, maxBatches = 20): Promise<number> {
  const table = meetingToolDeliveries;
  return deleteInBatches(
    db,
    table,
    sql`${table.organizationId}, ${table.endpointId}, ${table.deliveryId}`,
    sql`${table.receivedAt} < now() - make_interval(days => ${MEETING_TOOL_DELIVERY_ID_DAYS})`,
    batch,
    maxBatches,
  );
}
