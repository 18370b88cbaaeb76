/**
 * The references a lead holds, checked against the organization in a fixed number of queries
 * however many leads are checked: status/priority/source values and tag ids of its active
 * lookups, assigned users, linked companies.
 */
import { and, inArray, isNull, sql } from 'drizzle-orm';
import { companies, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { FieldIssue } from '../../core/errors';
import { type LeadLookups, leadLookups } from './lead-lookups';

/** The organization's active lead lookups (see lead-lookups.ts), plus the users and companies the checked leads name. */
export interface LeadReferences extends LeadLookups {
  users: Set<number>;
  companies: Map<number, string>;
}

export interface ReferencingInput {
  status?: number | null;
  priority?: number | null;
  lead_source?: number | null;
  tags?: number[] | null;
  assigned_to?: number | null;
  company_id?: number | null;
}

type Ctx = Pick<TenantContext, 'db' | 'orgId'>;

export async function loadLeadReferences(ctx: Ctx, inputs: ReferencingInput[]): Promise<LeadReferences> {
  const userIds = [...new Set(inputs.map((input) => input.assigned_to).filter((id): id is number => typeof id === 'number'))];
  const companyIds = [...new Set(inputs.map((input) => input.company_id).filter((id): id is number => typeof id === 'number'))];
  const [lookupRefs, userRows, companyRows] = await Promise.all([
    leadLookups(ctx),
    userIds.length
      ? ctx.db.select({ id: users.id }).from(users).where(tenantWhere(ctx, users, inArray(users.id, userIds), isNull(users.deletedAt)))
      : Promise.resolve([]),
    companyIds.length
      ? ctx.db
          .select({ id: companies.id, name: companies.companyName })
          .from(companies)
          .where(tenantWhere(ctx, companies, inArray(companies.id, companyIds), isNull(companies.deletedAt)))
      : Promise.resolve([]),
  ]);
  return {
    ...lookupRefs,
    users: new Set(userRows.map((row) => row.id)),
    companies: new Map(companyRows.map((row) => [row.id, row.name])),
  };
}

/** Field issues of one lead's references. On create an absent status takes the default; on update null is refused. */
export function checkLeadReferences(input: ReferencingInput, refs: LeadReferences, mode: 'create' | 'update'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (input.status != null && !refs.status.has(input.status)) issues.push({ field: 'status', message: 'is not an active status of this organization' });
  if (input.status === null && mode === 'update') issues.push({ field: 'status', message: 'cannot be empty' });
  if (input.status == null && mode === 'create' && refs.defaultStatus === null) {
    issues.push({ field: 'status', message: 'the organization has no active status to assign' });
  }
  if (input.priority != null && !refs.priority.has(input.priority)) issues.push({ field: 'priority', message: 'is not an active priority of this organization' });
  if (input.lead_source != null && !refs.source.has(input.lead_source)) {
    issues.push({ field: 'lead_source', message: 'is not an active lead source of this organization' });
  }
  (input.tags ?? []).forEach((tag, index) => {
    if (!refs.tags.has(tag)) issues.push({ field: `tags.${index}`, message: 'is not an active tag of this organization' });
  });
  if (input.assigned_to != null && !refs.users.has(input.assigned_to)) issues.push({ field: 'assigned_to', message: 'is not a user of this organization' });
  if (input.company_id != null && !refs.companies.has(input.company_id)) issues.push({ field: 'company_id', message: 'is not a company of this organization' });
  return issues;
}

/** Links each company name to the organization's live company of that name (any case), creating the missing ones. */
export async function ensureCompanies(ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>, names: string[]): Promise<Map<string, { id: number; name: string }>> {
  const byKey = new Map<string, string>();
  for (const name of names) if (!byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
  if (byKey.size === 0) return new Map();
  // The partial unique index on (organization_id, lower(company_name)) makes this race-free.
  await ctx.db.execute(sql`
    insert into companies (organization_id, company_name, created_by)
    select ${ctx.orgId}, name, ${ctx.userId} from unnest(${sql.param([...byKey.values()])}::text[]) as name
    on conflict (organization_id, lower(company_name)) where deleted_at is null do nothing`);
  const rows = await ctx.db
    .select({ id: companies.id, name: companies.companyName })
    .from(companies)
    .where(tenantWhere(ctx, companies, isNull(companies.deletedAt), and(sql`lower(${companies.companyName}) = any(${sql.param([...byKey.keys()])}::text[])`)));
  return new Map(rows.map((row) => [row.name.toLowerCase(), row]));
}
