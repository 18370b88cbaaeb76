/**
 * The references a lead holds, checked against the organization in one statement however many
 * leads are checked: status/priority/source values and tag ids of its active lookups, assigned
 * users, linked companies (and, for creation, the live leads holding the emails and new ids).
 */
import { type SQL, sql } from 'drizzle-orm';
import { companies, companyKeyScope, lookups, users } from '../../db/schema';
import { companyNamedSql, givenNameKeysSql } from '../../db/company-names';
import type { TenantContext } from '../../db/tenant';
import type { FieldIssue } from '../../core/errors';
import { changedFieldsSql, type FeedActor, type FeedFields, feedEntriesFrom, fieldValuesSql } from '../feed';
import { LEAD_LOOKUP_MODULE } from '../lookups';
import type { EventType } from '../../core/event-types';
import { listenedEventsSql } from '../webhooks';
import { holdersByKey, type HolderRow, liveHoldersSql, type LiveLeadByEmail, profileKeysSql } from './dedupe';
import { type LeadLookupRow, type LeadLookups, leadLookupsFromRows } from './lead-lookups';

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

export interface LeadWriteContext extends LeadReferences {
  /** Live leads holding any of the given emails or profile URLs, by dedupe key (dedupe.ts), counted ones first. */
  existing: Map<string, LiveLeadByEmail[]>;
  /** Each given profile URL's normalised key (null: nothing left to compare). */
  profileKeys: Record<string, string | null>;
  /** Lead ids allocated for the rows about to be inserted, in row order. */
  allocatedIds: number[];
  /**
   * The events of a create (lead.created, lead.assigned) that have a listener in the organization;
   * null when not read (no rows to create), which means "assume they do".
   */
  listenedEvents: Set<EventType> | null;
}

/** The webhook events a lead insert may emit (create-leads.ts). */
const CREATE_EVENTS: readonly EventType[] = ['lead.created', 'lead.assigned'];

type WriteContextRow = {
  lookups: LeadLookupRow[];
  users: number[];
  companies: { id: number; name: string }[];
  existing: HolderRow[];
  profile_keys: Record<string, string | null>;
  ids: number[];
  listened: EventType[] | null;
};

/**
 * Everything writing leads needs to read, in one statement (one round trip): the active lead
 * lookups, the referenced users and companies, the live leads holding the emails or profile
 * URLs (with the URLs' normalised keys), and ids for
 * `newRows` new leads (allocated up front so their feed entries and notifications can be written
 * by the same statement as the leads), with which of a create's webhook events have listeners.
 */
export async function loadLeadWriteContext(
  ctx: Ctx,
  inputs: ReferencingInput[],
  emailKeys: string[],
  newRows: number,
  profileUrls: string[] = [],
  lockCompanies = false,
): Promise<LeadWriteContext> {
  const result = await ctx.db.execute<{ context: WriteContextRow }>(
    sql`select ${leadWriteContextSql(ctx, inputs, emailKeys, newRows, profileUrls, lockCompanies)} as context`,
  );
  return leadWriteContextFrom(result.rows[0].context);
}

/** An empty JSON array: a part of the read with nothing to look for is left out of the statement (less to plan). */
const NONE = sql`'[]'::json`;

/**
 * The read of `loadLeadWriteContext` as one scalar JSON expression, so that a statement the
 * request sends anyway can carry it: the API-key scope statement does for POST /api/v1/lead
 * (modules/ingestion/prefetch.ts). Every subquery filters by organization itself.
 */
export function leadWriteContextSql(
  /** The organization: an id, or an expression of the enclosing query (the booking rep's row). */
  ctx: { orgId: number | SQL },
  inputs: ReferencingInput[],
  emailKeys: string[],
  newRows: number,
  profileUrls: string[] = [],
  /**
   * Lock the named companies FOR SHARE (in id order) as they are read, so that a company delete
   * (which holds its companies FOR NO KEY UPDATE) waits for the write, or the write for the delete,
   * and then reads the company as last committed: a deleted one is not found.
   */
  lockCompanies = false,
): SQL {
  const userIds = [
    ...new Set(inputs.map((input) => input.assigned_to).filter((id): id is number => typeof id === 'number')),
  ];
  const companyIds = [
    ...new Set(inputs.map((input) => input.company_id).filter((id): id is number => typeof id === 'number')),
  ];
  return sql`json_build_object(
      'lookups', (select coalesce(json_agg(json_build_object('id', id, 'type', type, 'value', value) order by value, id), '[]'::json)
        from ${lookups} where organization_id = ${ctx.orgId} and module_name = ${LEAD_LOOKUP_MODULE} and is_active),
      'users', ${
        userIds.length === 0
          ? NONE
          : sql`(select coalesce(json_agg(id), '[]'::json) from ${users}
        where organization_id = ${ctx.orgId} and deleted_at is null and id = any(${sql.param(userIds)}::bigint[]))`
      },
      'companies', ${
        companyIds.length === 0
          ? NONE
          : lockCompanies
            ? sql`(select coalesce(json_agg(json_build_object('id', c.id, 'name', c.company_name)), '[]'::json)
        from (select id, company_name from ${companies}
          where organization_id = ${ctx.orgId} and deleted_at is null and id = any(${sql.param(companyIds)}::bigint[])
          order by id for share) c)`
            : sql`(select coalesce(json_agg(json_build_object('id', id, 'name', company_name)), '[]'::json) from ${companies}
        where organization_id = ${ctx.orgId} and deleted_at is null and id = any(${sql.param(companyIds)}::bigint[]))`
      },
      'existing', ${emailKeys.length + profileUrls.length === 0 ? NONE : liveHoldersSql(ctx, emailKeys, profileUrls)},
      'profile_keys', ${profileUrls.length === 0 ? sql`'{}'::json` : profileKeysSql(profileUrls)},
      'ids', (select coalesce(json_agg(nextval(pg_get_serial_sequence('leads', 'id'))), '[]'::json) from generate_series(1, ${newRows})),
      'listened', ${newRows === 0 ? sql`null::json` : listenedEventsSql(ctx.orgId, CREATE_EVENTS)})`;
}

export type LeadWriteContextRow = WriteContextRow;

/** The write context from the JSON that leadWriteContextSql selects. */
export function leadWriteContextFrom(row: WriteContextRow): LeadWriteContext {
  const existing: Map<string, LiveLeadByEmail[]> = holdersByKey(row.existing);
  return {
    ...leadLookupsFromRows(
      row.lookups.map((lookup) => ({
        id: Number(lookup.id),
        type: lookup.type,
        value: lookup.value === null ? null : Number(lookup.value),
      })),
    ),
    users: new Set(row.users.map(Number)),
    companies: new Map(row.companies.map((company) => [Number(company.id), company.name])),
    existing,
    profileKeys: row.profile_keys,
    allocatedIds: row.ids.map(Number),
    listenedEvents: row.listened ? new Set(row.listened) : null,
  };
}

/**
 * The references of leads being updated, in one statement; the companies they name are locked FOR
 * SHARE until the write commits, so a lead is never moved into a company a concurrent delete
 * removes, nor a delete blind to a lead moved in meanwhile (leads/row-locks.ts). Read before the
 * lead is locked: companies before leads, as a company delete locks them.
 */
export async function loadLeadReferences(ctx: Ctx, inputs: ReferencingInput[]): Promise<LeadReferences> {
  return loadLeadWriteContext(ctx, inputs, [], 0, [], true);
}

/** Field issues of one lead's references. On create an absent status takes the default; on update null is refused. */
export function checkLeadReferences(
  input: ReferencingInput,
  refs: LeadReferences,
  mode: 'create' | 'update',
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (input.status != null && !refs.status.has(input.status))
    issues.push({ field: 'status', message: 'is not an active status of this organization' });
  if (input.status === null && mode === 'update') issues.push({ field: 'status', message: 'cannot be empty' });
  if (input.status == null && mode === 'create' && refs.defaultStatus === null) {
    issues.push({ field: 'status', message: 'the organization has no active status to assign' });
  }
  if (input.priority != null && !refs.priority.has(input.priority))
    issues.push({ field: 'priority', message: 'is not an active priority of this organization' });
  if (input.lead_source != null && !refs.source.has(input.lead_source)) {
    issues.push({ field: 'lead_source', message: 'is not an active lead source of this organization' });
  }
  (input.tags ?? []).forEach((tag, index) => {
    if (!refs.tags.has(tag))
      issues.push({ field: `tags.${index}`, message: 'is not an active tag of this organization' });
  });
  if (input.assigned_to != null && !refs.users.has(input.assigned_to))
    issues.push({ field: 'assigned_to', message: 'is not a user of this organization' });
  if (input.company_id != null && !refs.companies.has(input.company_id))
    issues.push({ field: 'company_id', message: 'is not a company of this organization' });
  return issues;
}

/**
 * Links each company name to the organization's live company of that name (any case, as the
 * database's lower() folds it), creating the missing ones, and locks them FOR SHARE until the write
 * commits (see `holdCompanies`): one statement. Keyed by the names as given.
 */
export async function ensureCompanies(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'apiKeyId'>,
  names: string[],
): Promise<Map<string, { id: number; name: string }>> {
  return (await holdCompanies(ctx, names, [])).byName;
}

/**
 * A company made by name has its name alone (every other field of the record empty), so its
 * `created` feed entry lists only `company_name`, as POST /api/company/add's entry for a company
 * given only a name does (companies' `insertWithFeed`; test/feed.test.ts compares the two).
 */
const MADE_COMPANY_FIELDS: FeedFields = [['company_name', companies.companyName]];

/**
 * The `created` feed entries of companies a lead write made by name, in that write's statement:
 * the rows of the CTE `cte` (returning the companies' `id` and `company_name`) that `where` picks.
 */
export function madeCompaniesFeedSql(ctx: FeedActor, cte: string, where?: SQL): SQL {
  return feedEntriesFrom(ctx, {
    from: where ? sql`${sql.identifier(cte)} where ${where}` : sql`${sql.identifier(cte)}`,
    modelType: 'company',
    modelId: sql`${sql.identifier(cte)}.id`,
    action: 'created',
    changes: changedFieldsSql(null, fieldValuesSql(cte, MADE_COMPANY_FIELDS)),
  });
}

type FoundCompanyRow = { kind: 'held' | 'key'; id: number; name: string | null; name_key: string | null };

function linkNames(given: string[], rows: FoundCompanyRow[]): Map<string, { id: number; name: string }> {
  const byKey = new Map<string, { id: number; name: string }>();
  for (const row of rows)
    if (row.kind === 'held' && row.name_key !== null)
      byKey.set(row.name_key, { id: Number(row.id), name: String(row.name) });
  const linked = new Map<string, { id: number; name: string }>();
  for (const row of rows) {
    const company = row.kind === 'key' && row.name_key !== null ? byKey.get(row.name_key) : undefined;
    if (company) linked.set(given[Number(row.id) - 1], company);
  }
  return linked;
}

/** The companies `holdCompanies` locked: by the names as given, and the given ids still live (id to name). */
export interface HeldCompanies {
  byName: Map<string, { id: number; name: string }>;
  ids: Map<number, string>;
}

/**
 * Locks FOR SHARE, until the write commits, the live companies a set of leads is moved into: those
 * named by id and those named by name (created when missing, each with its `created` feed entry),
 * in ONE statement, in id order, so a company delete (which holds its companies FOR NO KEY UPDATE
 * in id order) waits for the write or the write for the delete, with no lock cycle between them.
 * Called before the leads are locked: companies before leads. A locked company is read as last
 * committed: an id a delete removed meanwhile is missing from `ids` (the caller reports it), a name
 * whose company it removed is linked again (created anew, by the next attempt).
 *
 * The insert of the missing names and the locking read are CTEs of one statement, and the read
 * does not see what the insert made (one snapshot for the statement): the made companies come from
 * the insert's RETURNING, the others from the locking read. A name neither gives was created (or
 * its company deleted) by a concurrent writer after the statement's snapshot; the next attempt,
 * a statement with a new snapshot, finds it. So a race costs one statement more, the rest none:
 * until 2026-12-02 the insert and the read were two statements every time.
 */
export async function holdCompanies(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'apiKeyId'>,
  names: string[],
  ids: number[],
  attempt = 1,
): Promise<HeldCompanies> {
  const given = [...new Set(names)];
  const wanted = [...new Set(ids)];
  if (given.length === 0 && wanted.length === 0) return { byName: new Map(), ids: new Map() };
  // Read from the table by id (the view finds them by name): the lock waits for a delete holding
  // one, then reads it as last committed, and a deleted one drops out.
  const named =
    given.length > 0
      ? sql`c.id in (select ${companyKeyScope.id} from ${companyKeyScope} where ${companyNamedSql(ctx.orgId, given)})`
      : sql`false`;
  const held = sql`held as (
      select c.id, c.company_name from ${companies} c where c.organization_id = ${ctx.orgId}
        and c.deleted_at is null and (c.id = any(${sql.param(wanted)}::bigint[]) or ${named})
        order by c.id for share of c
    )`;
  const found = await ctx.db.execute<FoundCompanyRow>(
    given.length > 0
      ? sql`with made as (
      -- The partial unique index on (organization_id, lower(company_name)) makes this race-free; of two given names with one key, the first is created.
      insert into ${companies} (organization_id, company_name, created_by)
      select ${ctx.orgId}, n.name, ${ctx.userId} from unnest(${sql.param(given)}::text[]) with ordinality as n(name, position)
      order by n.position
      on conflict (organization_id, lower(company_name)) where deleted_at is null do nothing
      returning id, company_name
    ), made_feed as (
      ${madeCompaniesFeedSql(ctx, 'made')}
    ), ${held}
    select 'held' as kind, id, company_name as name, lower(company_name) as name_key from held
    union all select 'held', id, company_name, lower(company_name) from made
    union all select 'key', k.position, null, k.name_key from ${givenNameKeysSql(given)} as k`
      : sql`with ${held} select 'held' as kind, id, company_name as name, lower(company_name) as name_key from held`,
  );
  const byName = linkNames(given, found.rows);
  // A name created (or its company deleted or renamed) by a concurrent writer after this
  // statement's snapshot: the next statement finds it, or creates it.
  if (byName.size < given.length && attempt < 3) return holdCompanies(ctx, names, ids, attempt + 1);
  const wantedIds = new Set(wanted);
  const heldIds = new Map<number, string>();
  for (const row of found.rows)
    if (row.kind === 'held' && wantedIds.has(Number(row.id))) heldIds.set(Number(row.id), String(row.name));
  return { byName, ids: heldIds };
}
