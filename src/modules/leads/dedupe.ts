/**
 * Lead uniqueness: an email (compared lower-cased) and a profile URL (compared normalised, see
 * profileUrlKeySql) each belong to at most one live lead of an organization, except leads let in
 * on purpose as duplicates (`duplicate_of` set, POST /api/v1/lead with `duplicate: 1`). Creates
 * rely on the partial unique indexes (insert ... on conflict do nothing); updates take a
 * transaction-scoped advisory lock per (organization, email or profile URL key) before checking
 * (db/key-locks.ts), so two concurrent writers of the same key cannot both pass the check.
 */
import { sql, type SQL } from 'drizzle-orm';
import { lockOrganizationKeySql, lockOrganizationKeys } from '../../db/key-locks';
import { leadKeyScope, profileUrlKeySql } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { Conflict } from '../../core/errors';

type Ctx = Pick<TenantContext, 'db' | 'orgId'>;

export function emailKey(email: string | null | undefined): string | null {
  return email ? email.toLowerCase() : null;
}

/** The advisory locks of these lead emails (lower-cased), see db/key-locks.ts. */
export async function lockLeadEmails(ctx: Ctx, keys: string[]): Promise<void> {
  await lockOrganizationKeys(ctx.db, ctx.orgId, 'lead-email', keys);
}

export interface LiveLeadByEmail {
  id: number;
  importJobId: number | null;
  importRow: number | null;
  /** Let in as a duplicate (`duplicate_of` set): outside the uniqueness indexes. */
  flagged: boolean;
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
 * SQL, a select: the organization's live leads holding any of these email keys (lower-cased) or
 * profile URLs (normalised here), as rows (id, email_key, profile_key, import_job_id, import_row,
 * flagged), `flagged` for a lead let in as a duplicate. Through lead_key_scope (row-level security
 * would keep lower(email) out of index conditions), in two arms each served by its own indexes: the
 * originals (`duplicate_of is null`) by the unique indexes, the flagged ones by the partial indexes
 * of migration 0073. One condition over both matches no index and reads every lead of the
 * organization (a sequential scan on every create, linear in the organization's size).
 */
export function liveLeadsHoldingSql(orgId: number | SQL, emailKeys: string[], urls: string[]): SQL {
  const parts: SQL[] = [];
  if (emailKeys.length > 0) parts.push(sql`email_key = any(${sql.param(emailKeys)}::text[])`);
  if (urls.length > 0)
    parts.push(
      sql`profile_key = any(array(select ${profileUrlKeySql(sql`u`)} from unnest(${sql.param(urls)}::text[]) as u))`,
    );
  const holds = parts.length > 0 ? sql.join(parts, sql` or `) : sql`false`;
  const arm = (flagged: boolean) =>
    sql`select id, email_key, profile_key, import_job_id, import_row, ${sql.raw(String(flagged))} as flagged
      from ${leadKeyScope} where organization_id = ${orgId}
        and duplicate_of is ${sql.raw(flagged ? 'not null' : 'null')} and (${holds})`;
  return sql`${arm(false)} union all ${arm(true)}`;
}

/**
 * SQL: the live leads holding any of the emails or profile URLs, as a JSON array of
 * {id, email_key, profile_key, import_job_id, import_row, flagged}: leads counted by the unique
 * indexes first, then in id order.
 */
export function liveHoldersSql(ctx: { orgId: number | SQL }, emailKeys: string[], urls: string[]): SQL {
  return sql`(select coalesce(json_agg(json_build_object('id', id, 'email_key', email_key, 'profile_key', profile_key,
      'import_job_id', import_job_id, 'import_row', import_row, 'flagged', flagged) order by flagged, id), '[]'::json)
    from (${liveLeadsHoldingSql(ctx.orgId, emailKeys, urls)}) as holders)`;
}

export interface HolderRow {
  id: number | string;
  email_key: string | null;
  profile_key: string | null;
  import_job_id: number | string | null;
  import_row: number | null;
  flagged?: boolean;
}

/** Holder rows by dedupe key (several per key only if they were let in as duplicates). */
export function holdersByKey(rows: HolderRow[]): Map<string, LiveLeadByEmail[]> {
  const found = new Map<string, LiveLeadByEmail[]>();
  for (const row of rows) {
    const holder = {
      id: Number(row.id),
      importJobId: row.import_job_id === null ? null : Number(row.import_job_id),
      importRow: row.import_row,
      flagged: row.flagged === true,
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

/**
 * SQL: the id of the live lead (not a flagged duplicate) other than `exceptLeadId` holding this
 * email or profile URL, through lead_key_scope so the unique index serves it (see liveLeadsHoldingSql).
 * The unique index allows one such lead, so no order: `order by id` made the planner walk the
 * primary key instead, reading the organization's leads until it met the one.
 */
export function originalHolderSql(orgId: number, key: { email: string } | { url: string }, exceptLeadId?: number): SQL {
  const holds =
    'email' in key
      ? sql`email_key = ${key.email.toLowerCase()}`
      : sql`profile_key = ${profileUrlKeySql(sql`${key.url}::text`)}`;
  const except = exceptLeadId === undefined ? sql`` : sql` and id <> ${exceptLeadId}`;
  return sql`select id from ${leadKeyScope} where organization_id = ${orgId} and duplicate_of is null and ${holds}${except} limit 1`;
}

/** For an update: 409 `duplicate_lead` when another live lead holds this profile URL (normalised). */
export async function assertProfileUrlFree(ctx: Ctx, url: string, exceptLeadId: number): Promise<void> {
  await lockOrganizationKeySql(ctx.db, ctx.orgId, 'lead-profile', profileUrlKeySql(sql`${url}::text`));
  const result = await ctx.db.execute<{ id: string }>(originalHolderSql(ctx.orgId, { url }, exceptLeadId));
  if (result.rows[0]) throw duplicateLead(Number(result.rows[0].id), 'profile_url');
}

/** For a single write (update): 409 `duplicate_lead` with the existing lead's id when another live lead has the email. */
export async function assertEmailFree(ctx: Ctx, email: string, exceptLeadId?: number): Promise<void> {
  await lockLeadEmails(ctx, [email.toLowerCase()]);
  const result = await ctx.db.execute<{ id: string }>(originalHolderSql(ctx.orgId, { email }, exceptLeadId));
  if (result.rows[0]) throw duplicateLead(Number(result.rows[0].id));
}

export function duplicateLead(leadId: number, field: DedupeField = 'email'): Conflict {
  const what = field === 'email' ? 'this email' : 'this profile URL';
  return new Conflict(`A lead with ${what} already exists in the organization`, 'duplicate_lead', {
    lead_id: leadId,
    field,
  });
}
