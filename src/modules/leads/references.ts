/**
 * The references a lead holds, checked against the organization in a fixed number of queries
 * however many leads are checked: status/priority/source values and tag ids of its active
 * lookups, assigned users, linked companies.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { companies, lookups, users } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { FieldIssue } from '../../core/errors';
import { LEAD_LOOKUP_MODULE } from '../lookups/defaults';

export interface LeadReferences {
  /** Active values per lookup type. */
  status: Set<number>;
  priority: Set<number>;
  source: Set<number>;
  /** Active tag lookup ids. */
  tags: Set<number>;
  /** The first active status (lowest value): the default when a lead gives none. */
  defaultStatus: number | null;
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

export async function loadLeadLookups(ctx: Ctx): Promise<Pick<LeadReferences, 'status' | 'priority' | 'source' | 'tags' | 'defaultStatus'>> {
  const rows = await ctx.db
    .select({ id: lookups.id, type: lookups.type, value: lookups.value })
    .from(lookups)
    .where(tenantWhere(ctx, lookups, eq(lookups.moduleName, LEAD_LOOKUP_MODULE), eq(lookups.isActive, true)))
    .orderBy(lookups.value, lookups.id);
  const refs = { status: new Set<number>(), priority: new Set<number>(), source: new Set<number>(), tags: new Set<number>(), defaultStatus: null as number | null };
  for (const row of rows) addLookup(refs, row);
  return refs;
}

/** Adds one active lookup to the sets; rows come in value order, so the first status is the default. */
function addLookup(refs: Pick<LeadReferences, 'status' | 'priority' | 'source' | 'tags' | 'defaultStatus'>, row: { id: number; type: string; value: number | null }): void {
  if (row.type === 'tags') refs.tags.add(row.id);
  else if ((row.type === 'status' || row.type === 'priority' || row.type === 'source') && row.value !== null) {
    refs[row.type].add(row.value);
    if (row.type === 'status' && refs.defaultStatus === null) refs.defaultStatus = row.value;
  }
}

export async function loadLeadReferences(ctx: Ctx, inputs: ReferencingInput[]): Promise<LeadReferences> {
  const userIds = [...new Set(inputs.map((input) => input.assigned_to).filter((id): id is number => typeof id === 'number'))];
  const companyIds = [...new Set(inputs.map((input) => input.company_id).filter((id): id is number => typeof id === 'number'))];
  const [lookupRefs, userRows, companyRows] = await Promise.all([
    loadLeadLookups(ctx),
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

export interface LeadWriteContext extends LeadReferences {
  /** Live leads holding any of the given emails, by lower-cased email, in id order. */
  existing: Map<string, { id: number; importJobId: number | null; importRow: number | null }[]>;
  /** Lead ids allocated for the rows about to be inserted, in row order. */
  allocatedIds: number[];
}

type WriteContextRow = {
  lookups: { id: number; type: string; value: number | null }[];
  users: number[];
  companies: { id: number; name: string }[];
  existing: { id: number; key: string; import_job_id: number | null; import_row: number | null }[];
  ids: number[];
};

/**
 * Everything creating leads needs to read, in one statement (one round trip): the active lead
 * lookups, the referenced users and companies, the live leads holding the emails, and ids for the
 * new rows (allocated up front so feed entries and notifications can name them in the same write).
 */
export async function loadLeadWriteContext(ctx: Ctx, inputs: ReferencingInput[], emailKeys: string[], newRows: number): Promise<LeadWriteContext> {
  const userIds = [...new Set(inputs.map((input) => input.assigned_to).filter((id): id is number => typeof id === 'number'))];
  const companyIds = [...new Set(inputs.map((input) => input.company_id).filter((id): id is number => typeof id === 'number'))];
  const result = await ctx.db.execute<WriteContextRow>(sql`
    select
      (select coalesce(json_agg(json_build_object('id', id, 'type', type, 'value', value) order by value, id), '[]'::json)
        from ${lookups} where organization_id = ${ctx.orgId} and module_name = ${LEAD_LOOKUP_MODULE} and is_active) as lookups,
      (select coalesce(json_agg(id), '[]'::json) from ${users}
        where organization_id = ${ctx.orgId} and deleted_at is null and id = any(${sql.param(userIds)}::bigint[])) as users,
      (select coalesce(json_agg(json_build_object('id', id, 'name', company_name)), '[]'::json) from ${companies}
        where organization_id = ${ctx.orgId} and deleted_at is null and id = any(${sql.param(companyIds)}::bigint[])) as companies,
      (select coalesce(json_agg(json_build_object('id', id, 'key', lower(email), 'import_job_id', import_job_id, 'import_row', import_row) order by id), '[]'::json)
        from leads where organization_id = ${ctx.orgId} and deleted_at is null and lower(email) = any(${sql.param(emailKeys)}::text[])) as existing,
      (select coalesce(json_agg(nextval(pg_get_serial_sequence('leads', 'id'))), '[]'::json) from generate_series(1, ${newRows})) as ids`);
  const row = result.rows[0];
  const refs: LeadWriteContext = {
    status: new Set(),
    priority: new Set(),
    source: new Set(),
    tags: new Set(),
    defaultStatus: null,
    users: new Set(row.users.map(Number)),
    companies: new Map(row.companies.map((company) => [Number(company.id), company.name])),
    existing: new Map(),
    allocatedIds: row.ids.map(Number),
  };
  for (const lookup of row.lookups) addLookup(refs, { id: Number(lookup.id), type: lookup.type, value: lookup.value === null ? null : Number(lookup.value) });
  for (const lead of row.existing) {
    const holder = { id: Number(lead.id), importJobId: lead.import_job_id === null ? null : Number(lead.import_job_id), importRow: lead.import_row };
    refs.existing.set(lead.key, [...(refs.existing.get(lead.key) ?? []), holder]);
  }
  return refs;
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
