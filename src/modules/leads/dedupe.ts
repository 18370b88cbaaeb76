/**
 * Lead uniqueness: an email (compared lower-cased) and a profile URL (compared normalised, see
 * profileUrlKeySql) each belong to at most one live lead of an organization, except leads let in
 * on purpose as duplicates (`duplicate_of` set, POST /api/v1/lead with `duplicate: 1`). Creates
 * rely on the partial unique indexes (insert ... on conflict do nothing); updates take a
 * transaction-scoped advisory lock per (organization, email) before checking, so two concurrent
 * writers of the same email cannot both pass the check.
 */
import { and, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { leads, profileUrlKeySql } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict } from '../../core/errors';

type Ctx = Pick<TenantContext, 'db' | 'orgId'>;

export function emailKey(email: string | null | undefined): string | null {
  return email ? email.toLowerCase() : null;
}

/** Locks in sorted order, so two writers locking overlapping sets cannot deadlock. */
export async function lockLeadEmails(ctx: Ctx, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  const sorted = [...new Set(keys)].sort();
  await ctx.db.execute(
    sql`select count(pg_advisory_xact_lock(hashtextextended(${String(ctx.orgId)} || ':lead-email:' || k, 0))) from unnest(${sql.param(sorted)}::text[]) with ordinality as t(k, n)`,
  );
}

export interface LiveLeadByEmail {
  id: number;
  importJobId: number | null;
  importRow: number | null;
}

/** The field a duplicate collides on. */
export type DedupeField = 'email' | 'profile_url';

/** A row's dedupe keys, email first: `email:<lower-cased>`, `profile_url:<normalised>`. */
export function dedupeKeys(email: string | null | undefined, profileKey: string | null | undefined): string[] {
  const keys: string[] = [];
  if (email) keys.push(`email:${email.toLowerCase()}`);
  if (profileKey) keys.push(`profile_url:${profileKey}`);
  return keys;
}

export function fieldOfKey(key: string): DedupeField {
  return key.startsWith('email:') ? 'email' : 'profile_url';
}

/** SQL: the normalised keys of these profile URLs as a JSON object url → key (one rule: the column's). */
export function profileKeysSql(urls: string[]): SQL<Record<string, string | null>> {
  return sql`(select coalesce(json_object_agg(u, ${profileUrlKeySql(sql`u`)}), '{}'::json) from unnest(${sql.param(urls)}::text[]) as u)`;
}

/**
 * SQL: the live leads holding any of the emails or profile URLs, as a JSON array of
 * {id, keys, import_job_id, import_row}: leads counted by the unique indexes first, then in id order.
 */
export function liveHoldersSql(ctx: { orgId: number | SQL }, emailKeys: string[], urls: string[]): SQL {
  return sql`(select coalesce(json_agg(json_build_object('id', id, 'email_key', lower(email), 'profile_key', profile_url_key,
      'import_job_id', import_job_id, 'import_row', import_row) order by duplicate_of is not null, id), '[]'::json)
    from ${leads} where organization_id = ${ctx.orgId} and deleted_at is null
      and (lower(email) = any(${sql.param(emailKeys)}::text[])
        or profile_url_key = any(array(select ${profileUrlKeySql(sql`u`)} from unnest(${sql.param(urls)}::text[]) as u))))`;
}

export interface HolderRow {
  id: number | string;
  email_key: string | null;
  profile_key: string | null;
  import_job_id: number | string | null;
  import_row: number | null;
}

/** Holder rows by dedupe key (several per key only if they were let in as duplicates). */
export function holdersByKey(rows: HolderRow[]): Map<string, LiveLeadByEmail[]> {
  const found = new Map<string, LiveLeadByEmail[]>();
  for (const row of rows) {
    const holder = {
      id: Number(row.id),
      importJobId: row.import_job_id === null ? null : Number(row.import_job_id),
      importRow: row.import_row,
    };
    for (const key of dedupeKeys(row.email_key, row.profile_key)) found.set(key, [...(found.get(key) ?? []), holder]);
  }
  return found;
}

/** The live holders of these emails and profile URLs, by dedupe key, in one statement. */
export async function findLiveHolders(
  ctx: Ctx,
  emailKeys: string[],
  urls: string[],
): Promise<{ holders: Map<string, LiveLeadByEmail[]>; profileKeys: Record<string, string | null> }> {
  if (emailKeys.length === 0 && urls.length === 0) return { holders: new Map(), profileKeys: {} };
  const result = await ctx.db.execute<{ holders: HolderRow[]; profile_keys: Record<string, string | null> }>(
    sql`select ${liveHoldersSql(ctx, emailKeys, urls)} as holders, ${profileKeysSql(urls)} as profile_keys`,
  );
  return { holders: holdersByKey(result.rows[0].holders), profileKeys: result.rows[0].profile_keys };
}

/** For an update: 409 `duplicate_lead` when another live lead holds this profile URL (normalised). */
export async function assertProfileUrlFree(ctx: Ctx, url: string, exceptLeadId: number): Promise<void> {
  const [existing] = await ctx.db
    .select({ id: leads.id })
    .from(leads)
    .where(
      tenantWhere(
        ctx,
        leads,
        isNull(leads.deletedAt),
        isNull(leads.duplicateOf),
        sql`${leads.profileUrlKey} = ${profileUrlKeySql(sql`${url}::text`)}`,
        ne(leads.id, exceptLeadId),
      ),
    )
    .limit(1);
  if (existing) throw duplicateLead(existing.id, 'profile_url');
}

/** For a single write (update): 409 `duplicate_lead` with the existing lead's id when another live lead has the email. */
export async function assertEmailFree(ctx: Ctx, email: string, exceptLeadId?: number): Promise<void> {
  const key = email.toLowerCase();
  await lockLeadEmails(ctx, [key]);
  const [existing] = await ctx.db
    .select({ id: leads.id })
    .from(leads)
    .where(
      tenantWhere(
        ctx,
        leads,
        isNull(leads.deletedAt),
        isNull(leads.duplicateOf),
        sql`lower(${leads.email}) = ${key}`,
        and(exceptLeadId ? ne(leads.id, exceptLeadId) : undefined),
      ),
    )
    .orderBy(leads.id)
    .limit(1);
  if (existing) throw duplicateLead(existing.id);
}

export function duplicateLead(leadId: number, field: DedupeField = 'email'): Conflict {
  const what = field === 'email' ? 'this email' : 'this profile URL';
  return new Conflict(`A lead with ${what} already exists in the organization`, 'duplicate_lead', {
    lead_id: leadId,
    field,
  });
}
