/**
 * The `data` of each event as SQL (jsonb), for the writing statements that emit them; the
 * documented shapes are in payloads.ts, and test/webhooks.test.ts checks emitted payloads against them.
 */
import { type SQL, sql } from 'drizzle-orm';
import { isoTimestampSql } from '../../core/schemas';
import type { TenantContext } from '../../db/tenant';

/** lead.created, from the lead insert's `input r join inserted i`. */
export const leadCreatedData: SQL = sql`jsonb_build_object('lead_id', i.id, 'first_name', r.first_name, 'last_name', r.last_name,
  'email', i.email, 'company', i.company, 'status', i.status, 'assigned_to', r.assigned_to,
  'created_at', ${isoTimestampSql(sql`i.created_at`)})`;

/**
 * A lead's name as the writers join it (`first_name || ' ' || last_name`), trimmed, and null when
 * the lead has none: a lead captured by email alone was announced as "Lead assigned to you:  ".
 */
export function leadNameSql(joined: SQL): SQL {
  return sql`nullif(btrim(${joined}), '')`;
}

/** lead.assigned: the lead, its name, the new assignee and who assigned it (null: an API key's or job's writes credited to nobody). */
export function leadAssignedData(ctx: Pick<TenantContext, 'userId'>, leadId: SQL, leadName: SQL, assignedTo: SQL): SQL {
  return sql`jsonb_build_object('lead_id', ${leadId}, 'lead_name', ${leadNameSql(leadName)}, 'assigned_to', ${assignedTo},
    'assigned_by', ${ctx.userId}::bigint)`;
}
