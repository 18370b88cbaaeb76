/**
 * The lead's row is the first lock of every write that reaches a lead's other rows, so that two
 * such writes lock in one order (lead, then its deals, signals, meetings, rollups) and cannot
 * deadlock:
 * - a change of a lead's company or its deletion holds the lead FOR UPDATE from its first
 *   statement (updateLead, deleteLeads, an import's merge), then its statement trigger
 *   (pass_on_lead_company, drizzle/0063) writes the lead's deals, signals and meetings;
 * - a deal write (add, update, delete) holds its leads FOR NO KEY UPDATE before its deal (deals
 *   service), where the deal's trigger (count_lead_deals, drizzle/0063) used to lock the lead only
 *   after the deal: a deal won while its lead changed company each held what the other needed.
 * - a company delete (deleteCompanies) holds its companies, then their leads FOR NO KEY UPDATE, and
 *   reads their open deals from the locked leads' open_deals, which a deal write recounts while it
 *   holds the lead: a deal reopened or added at the same moment is seen (the company is kept);
 * - a lead moved into a company (updateLead, by company_id or by name) holds that company FOR
 *   SHARE before its lead (loadLeadReferences, ensureCompanies), companies before leads as a
 *   company delete locks them: a delete holding the company makes the move wait and then find it
 *   gone (422 company_id); a move holding it makes the delete wait, which then reads the companies'
 *   leads in a statement after the wait (deleteCompanies) and sees the lead and its open deals;
 * - a multi-lead write (bulk status, assign, tags; a company rename's leads; a lookup value's
 *   renumbering, whose contacts are locked in id order too; scoring) locks its leads in id order.
 * An insert of a signal, meeting or deal reads its lead's company FOR KEY SHARE (drizzle/0093),
 * which waits for the FOR UPDATE of a company change and then reads the changed row.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { leads } from '../../db/schema';

/** `for update` (a change of the lead's company or liveness) or `for no key update` (a deal write). */
export type LeadRowLock = 'update' | 'no key update';

/** The `for …` clause of a lock. */
export function leadRowLockClause(mode: LeadRowLock): SQL {
  return mode === 'update' ? sql`for update` : sql`for no key update`;
}

/** The organization's leads (deleted ones too) whose ids `leadIds` yields, locked in id order. */
function lockedLeadRows(orgId: number, leadIds: SQL, mode: LeadRowLock): SQL {
  return sql`select l.id from ${leads} l where l.organization_id = ${orgId} and l.id in (${leadIds})
    order by l.id ${leadRowLockClause(mode)}`;
}

/**
 * A condition that is true once the organization's leads whose ids `leadIds` yields (a subquery of
 * one bigint column) are locked, in id order. It names no column of the statement's rows, so
 * PostgreSQL evaluates it before the statement reads (and locks) any of them: a deal write takes
 * its leads before its deal in the statement it already makes (as intentScoresLocked does).
 */
export function leadRowsLocked(orgId: number, leadIds: SQL, mode: LeadRowLock): SQL {
  return sql`(select count(*) from (${lockedLeadRows(orgId, leadIds, mode)}) as locked) >= 0`;
}

/**
 * Locks the organization's leads (deleted ones too) whose ids `leadIds` yields (a subquery of one
 * bigint column), in id order, in a statement of its own; answers the ids locked.
 */
export async function lockLeadRows(db: Queryable, orgId: number, leadIds: SQL, mode: LeadRowLock): Promise<number[]> {
  const result = await db.execute<{ id: string }>(lockedLeadRows(orgId, leadIds, mode));
  return result.rows.map((row) => Number(row.id));
}
