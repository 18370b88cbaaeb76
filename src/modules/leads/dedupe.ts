/**
 * Lead email uniqueness: an email (compared lower-cased) belongs to at most one live lead of an
 * organization. Writers take a transaction-scoped advisory lock per (organization, email)
 * before checking, so two concurrent creates of the same email cannot both pass the check.
 */
import { and, isNull, ne, sql } from 'drizzle-orm';
import { leads } from '../../db/schema';
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

/** Live leads holding any of these emails, by lower-cased email (several per email only if they were let in as duplicates). */
export async function findLiveLeadsByEmail(ctx: Ctx, keys: string[]): Promise<Map<string, LiveLeadByEmail[]>> {
  const found = new Map<string, LiveLeadByEmail[]>();
  if (keys.length === 0) return found;
  const rows = await ctx.db
    .select({
      id: leads.id,
      key: sql<string>`lower(${leads.email})`,
      importJobId: leads.importJobId,
      importRow: leads.importRow,
    })
    .from(leads)
    .where(
      tenantWhere(ctx, leads, isNull(leads.deletedAt), sql`lower(${leads.email}) = any(${sql.param(keys)}::text[])`),
    )
    .orderBy(leads.id);
  for (const row of rows) found.set(row.key, [...(found.get(row.key) ?? []), row]);
  return found;
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
        sql`lower(${leads.email}) = ${key}`,
        and(exceptLeadId ? ne(leads.id, exceptLeadId) : undefined),
      ),
    )
    .orderBy(leads.id)
    .limit(1);
  if (existing) throw duplicateLead(existing.id);
}

export function duplicateLead(leadId: number): Conflict {
  return new Conflict('A lead with this email already exists in the organization', 'duplicate_lead', {
    lead_id: leadId,
    field: 'email',
  });
}
