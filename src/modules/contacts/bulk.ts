/**
 * POST /api/contact/bulk-update: sets company_id, lead_score and/or tags on explicit
 * contact_ids or on every contact the filters select (the list's filter builder), in ONE
 * statement. The new company is checked inside that statement: when it is not a live company of
 * the organization nothing is updated and the answer is a 404. Contacts already holding every
 * given value do not count as updated; each contact that changed gets an `updated` feed entry
 * (the fields that changed, from/to) in the same statement.
 */
import { sql, type SQL } from 'drizzle-orm';
import { referenceChecks, referenceIssues } from '../../db/references';
import { contacts } from '../../db/schema';
import { bare } from '../../db/sql-names';
import type { TenantContext } from '../../db/tenant';
import { changedFieldsSql, feedEntriesFrom, fieldValuesSql } from '../feed';
import { contactRecord, contactTargetWhere } from './service';
import type { ContactTarget } from './schemas';

export interface ContactChanges {
  company_id?: number;
  lead_score?: number | null;
  tags?: string[];
}

export async function bulkUpdateContacts(
  ctx: TenantContext,
  target: ContactTarget,
  changes: ContactChanges,
): Promise<number> {
  const sets: SQL[] = [sql`${bare(contacts.updatedAt)} = now()`];
  const differs: SQL[] = [];
  if (changes.company_id !== undefined) {
    sets.push(sql`${bare(contacts.companyId)} = ${changes.company_id}::bigint`);
    differs.push(sql`${contacts.companyId} is distinct from ${changes.company_id}::bigint`);
  }
  if (changes.lead_score !== undefined) {
    sets.push(sql`${bare(contacts.leadScore)} = ${changes.lead_score}::int`);
    differs.push(sql`${contacts.leadScore} is distinct from ${changes.lead_score}::int`);
  }
  if (changes.tags !== undefined) {
    sets.push(sql`${bare(contacts.tags)} = ${sql.param(changes.tags)}::text[]`);
    differs.push(sql`${contacts.tags} is distinct from ${sql.param(changes.tags)}::text[]`);
  }
  const refs = { company_id: changes.company_id };
  const fields = contactRecord.fields;
  const result = await ctx.db.execute<{ company_found: boolean; updated: number }>(sql`
    with found as (select ${referenceChecks(ctx, refs).company_id ?? sql`true`} as ok),
    target as (
      -- Locked in id order (contactTargetLocked), each read as last committed: the feed's before.
      select ${contacts.id} as id, ${fieldValuesSql('contacts', fields)} as before from ${contacts}
      where ${contactTargetWhere(ctx, target)} and (${sql.join(differs, sql` or `)}) and (select ok from found)
      order by ${contacts.id} for no key update
    ),
    changed as (
      update ${contacts} set ${sql.join(sets, sql`, `)} from target
      where ${contacts.id} = target.id and ${contacts.organizationId} = ${ctx.orgId}
      returning ${contacts.id}, target.before, ${fieldValuesSql('contacts', fields)} as after
    ),
    feed as (
      ${feedEntriesFrom(ctx, {
        from: sql`changed`,
        modelType: 'contact',
        modelId: sql`changed.id`,
        action: 'updated',
        changes: changedFieldsSql(sql`changed.before`, sql`changed.after`),
      })}
    )
    select (select ok from found) as company_found, (select count(*)::int from changed) as updated`);
  const row = result.rows[0];
  referenceIssues(refs, { company_id: row.company_found }, { notFound: ['company_id'] });
  return Number(row.updated);
}
