/**
 * Per-organization lookup values (see defaults.ts for the vocabulary). Everyone in the
 * organization reads them; admins and managers add and change them (routes.ts declares the roles). A lead status, source or
 * priority always has a unique value; changing it moves the leads (and, for a status, the
 * contacts) that hold the old value, so no record loses its label, and the saved views' and
 * saved lead queries' filters on it, so none changes meaning. Deactivated lookups stay readable on the records that use them.
 */
import { count, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { contacts, customViews, leads, lookups, savedQueries } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { isUniqueViolation } from '../../db/errors';
import { bare } from '../../db/sql-names';
import { BadRequest, Conflict, NotFound, ValidationFailed } from '../../core/errors';
import { lockOrganizationKeys } from '../../db/key-locks';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { canonicalLookupKey, LEAD_LOOKUP_MODULE, LEAD_LOOKUP_TYPES, VALUED_TYPES } from './defaults';
import { leadRowsLocked } from '../leads';
import { lookupListFilters, type AddLookupInput, type UpdateLookupInput } from './schemas';

type LookupRow = typeof lookups.$inferSelect;

export function presentLookup(row: LookupRow) {
  return {
    id: row.id,
    module_name: row.moduleName,
    type: row.type,
    name: row.name,
    value: row.value,
    color_code: row.colorCode,
    parent_id: row.parentId,
    is_active: row.isActive,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

function isValued(moduleName: string, type: string): boolean {
  return moduleName === LEAD_LOOKUP_MODULE && VALUED_TYPES.includes(type);
}

/** The lead property that stores each valued lookup type. */
const leadPropertyFor = { status: 'status', priority: 'priority', source: 'leadSource' } as const;

/**
 * The lead filter (LeadFilters, leads/filters.ts) that selects by each valued lookup type: saved
 * views of module `lead` and saved queries of module `leads` store it in their filters.
 */
const leadFilterFor = { status: 'state_id', priority: 'priority', source: 'lead_source' } as const;

/**
 * A stored id-list filter (`list`, jsonb) with the value `from` replaced by `to`, in the shape it
 * was saved in (core/schemas.ts idList, kept as given): a number stays a number; a comma list
 * ("2, 40") and a digit string in an array keep their spacing and the other members; an array
 * keeps its order. Members are compared as parseIdList reads them (digits, spaces around).
 */
function renumberedIdList(list: SQL, from: number, to: number): SQL {
  const part = (text: SQL) =>
    sql`case when ${text} ~ '^[[:space:]]*[0-9]+[[:space:]]*$' and substring(${text} from '[0-9]+')::numeric = ${from}::int
      then regexp_replace(${text}, '[0-9]+', ${String(to)}::text) else ${text} end`;
  // jsonb compares numbers by value (40.0 = 40); a string member is one part.
  const member = (value: SQL) =>
    sql`case when ${value} = to_jsonb(${from}::int) then to_jsonb(${to}::int)
      when jsonb_typeof(${value}) = 'string' then to_jsonb(${part(sql`(${value} #>> '{}')`)}) else ${value} end`;
  return sql`case jsonb_typeof(${list})
    when 'array' then (select jsonb_agg(${member(sql.raw('m.e'))} order by m.n)
      from jsonb_array_elements(${list}) with ordinality as m(e, n))
    when 'string' then to_jsonb((select string_agg(${part(sql.raw('p.t'))}, ',' order by p.n)
      from regexp_split_to_table(${list} #>> '{}', ',') with ordinality as p(t, n)))
    else ${member(list)} end`;
}

export const lookupList = defineList({
  sort: {
    id: lookups.id,
    value: sql`coalesce(${lookups.value}, -1)`,
    name: lookups.name,
    created_at: lookups.createdAt,
  },
  filters: lookupListFilters,
  search: (term) => sql`${lookups.name} ilike ${containsPattern(term)}`,
  createdAt: lookups.createdAt,
  base: (ctx, params) => {
    const key = canonicalLookupKey(params.module_name, params.type);
    if (key.conflict) {
      throw new BadRequest(
        `type must be ${key.type} or omitted with module_name=${key.type} (module_name=lead&type=${key.type})`,
        'type',
      );
    }
    return {
      rows: (columns) =>
        ctx.db
          .select({ row: lookups, ...columns })
          .from(lookups)
          .$dynamic(),
      where: tenantWhere(
        ctx,
        lookups,
        key.module_name ? eq(lookups.moduleName, key.module_name) : undefined,
        key.type ? eq(lookups.type, key.type) : undefined,
        params.is_active === undefined ? undefined : eq(lookups.isActive, params.is_active),
        params.parent_id ? inArray(lookups.parentId, params.parent_id) : undefined,
      ),
    };
  },
  present: (entry) => presentLookup(entry.row),
});
export const LookupListQuery = lookupList.query;

export const listLookups = lookupList.run;

async function findLookup(ctx: TenantContext, id: number): Promise<LookupRow> {
  const [row] = await ctx.db
    .select()
    .from(lookups)
    .where(tenantWhere(ctx, lookups, eq(lookups.id, id)));
  if (!row) throw new NotFound('Lookup', id);
  return row;
}

/** The lookup of this module and type holding `name` (compared without case), active ones only when asked. */
async function nameHolder(
  ctx: TenantContext,
  key: { moduleName: string; type: string; name: string; exceptId?: number; activeOnly?: boolean },
): Promise<number | undefined> {
  const [holder] = await ctx.db
    .select({ id: lookups.id })
    .from(lookups)
    .where(
      tenantWhere(
        ctx,
        lookups,
        eq(lookups.moduleName, key.moduleName),
        eq(lookups.type, key.type),
        key.activeOnly ? eq(lookups.isActive, true) : undefined,
        sql`lower(${lookups.name}) = lower(${key.name})`,
        key.exceptId ? ne(lookups.id, key.exceptId) : undefined,
      ),
    )
    .limit(1);
  return holder?.id;
}

/** 409 `duplicate_lookup` naming the lookup that holds the name. */
function nameTaken(type: string, name: string, holderId: number): Conflict {
  return new Conflict(`A ${type} lookup named "${name}" already exists`, 'duplicate_lookup', {
    lookup_id: holderId,
    field: 'name',
  });
}

async function assertNameFree(
  ctx: TenantContext,
  moduleName: string,
  type: string,
  name: string,
  exceptId?: number,
): Promise<void> {
  const holder = await nameHolder(ctx, { moduleName, type, name, exceptId });
  if (holder !== undefined) throw nameTaken(type, name, holder);
}

/**
 * One writer at a time per (organization, module, type) where a check precedes the write: the next
 * value of an add, a name (unique per type without an index: compared without case), the last
 * active lead status. A second writer checks after the first committed (db/key-locks.ts).
 */
async function lockLookupType(ctx: TenantContext, moduleName: string, type: string): Promise<void> {
  await lockOrganizationKeys(ctx.db, ctx.orgId, 'lookup', [`${moduleName}:${type}`]);
}

/** One active tag per name without case (migration 0082): ingestion's find-or-create settles on it. */
const ACTIVE_TAG_NAME_KEY = 'lookups_organization_active_tag_name_key';

/** The lookup a write leaves as an active tag of this name (checked against the active tag name index). */
interface ActiveTag {
  moduleName: string;
  name: string;
  exceptId?: number;
}

/**
 * Runs a lookup's write, its unique indexes' refusals answered as the documented 409s. A write
 * that leaves an active tag (`activeTag`) may meet another active tag of that name that the name
 * check under the type's lock did not refuse: one ingestion created since (its find-or-create
 * takes no lock: ingestion/service.ts, tagIdsFor), or one ingestion created beside this tag while
 * it was inactive, which this write reactivates. That write runs in a savepoint, so that once the
 * index refuses it the holder can still be read and named: 409 duplicate_lookup, as the check's.
 */
async function saveUnique<T>(
  ctx: TenantContext,
  write: (db: TenantContext['db']) => Promise<T>,
  activeTag?: ActiveTag,
): Promise<T> {
  try {
    return await (activeTag ? ctx.db.transaction((savepoint) => write(savepoint)) : write(ctx.db));
  } catch (error) {
    if (isUniqueViolation(error, 'lookups_organization_value_key'))
      throw new Conflict('Another lookup of this type has this value', 'duplicate_value', { field: 'value' });
    if (activeTag && isUniqueViolation(error, ACTIVE_TAG_NAME_KEY)) await refuseActiveTagName(ctx, activeTag);
    throw error;
  }
}

async function refuseActiveTagName(ctx: TenantContext, tag: ActiveTag): Promise<void> {
  const holder = await nameHolder(ctx, { ...tag, type: 'tags', activeOnly: true });
  if (holder !== undefined) throw nameTaken('tags', tag.name, holder);
}

export async function addLookup(ctx: TenantContext, body: AddLookupInput) {
  const key = canonicalLookupKey(body.module_name, body.type);
  if (key.conflict) {
    throw ValidationFailed.field(
      'type',
      `must be ${key.type} or omitted with module_name ${key.type} (module_name lead, type ${key.type})`,
    );
  }
  if (!key.type) throw ValidationFailed.field('type', 'is required');
  const input = { ...body, module_name: key.module_name as string, type: key.type };
  if (input.module_name === LEAD_LOOKUP_MODULE && !(LEAD_LOOKUP_TYPES as readonly string[]).includes(input.type)) {
    throw ValidationFailed.field('type', `must be one of ${LEAD_LOOKUP_TYPES.join(', ')} for module lead`);
  }
  if (input.parent_id)
    await findLookup(ctx, input.parent_id).catch(() => {
      throw ValidationFailed.field('parent_id', 'is not a lookup of this organization');
    });
  // One writer at a time per (organization, module, type), so "next value" is never handed out twice.
  await lockLookupType(ctx, input.module_name, input.type);
  await assertNameFree(ctx, input.module_name, input.type, input.name);
  let value = input.value ?? null;
  if (value === null && isValued(input.module_name, input.type)) {
    const [{ next }] = await ctx.db
      .select({ next: sql<number>`coalesce(max(${lookups.value}), 0) + 1`.mapWith(Number) })
      .from(lookups)
      .where(tenantWhere(ctx, lookups, eq(lookups.moduleName, input.module_name), eq(lookups.type, input.type)));
    value = next;
  }
  const activeTag = input.type === 'tags' ? { moduleName: input.module_name, name: input.name } : undefined;
  const [row] = await saveUnique(
    ctx,
    (db) =>
      db
        .insert(lookups)
        .values({
          organizationId: ctx.orgId,
          moduleName: input.module_name,
          type: input.type,
          name: input.name,
          value,
          colorCode: input.color_code ?? null,
          parentId: input.parent_id ?? null,
        })
        .returning(),
    activeTag,
  );
  return presentLookup(row);
}

export async function updateLookup(ctx: TenantContext, id: number, input: UpdateLookupInput) {
  const current = await findLookup(ctx, id);
  const valued = isValued(current.moduleName, current.type);
  if (valued && input.value === null) throw ValidationFailed.field('value', `is required for a ${current.type} lookup`);
  const deactivatesStatus =
    input.is_active === false &&
    current.isActive &&
    current.moduleName === LEAD_LOOKUP_MODULE &&
    current.type === 'status';
  if (input.name !== undefined || deactivatesStatus) await lockLookupType(ctx, current.moduleName, current.type);
  if (input.name !== undefined) await assertNameFree(ctx, current.moduleName, current.type, input.name, id);
  if (deactivatesStatus) {
    const [{ n }] = await ctx.db
      .select({ n: count() })
      .from(lookups)
      .where(
        tenantWhere(
          ctx,
          lookups,
          eq(lookups.moduleName, LEAD_LOOKUP_MODULE),
          eq(lookups.type, 'status'),
          eq(lookups.isActive, true),
          ne(lookups.id, id),
        ),
      );
    if (n === 0) throw ValidationFailed.field('is_active', 'the organization needs at least one active lead status');
  }
  // A rename of an active tag, or a tag made active again, may meet an active tag of its name.
  const staysActive = input.is_active ?? current.isActive;
  const activeTag =
    current.type === 'tags' && staysActive && (input.name !== undefined || !current.isActive)
      ? { moduleName: current.moduleName, name: input.name ?? current.name, exceptId: id }
      : undefined;
  const type = valued ? (current.type as keyof typeof leadPropertyFor) : undefined;
  const renumbers = type && input.value != null && current.value !== null && input.value !== current.value;
  // The request's last statement carries its COMMIT: the update when nothing is renumbered (and no
  // savepoint holds it: an active tag's name), else the move of the records.
  if (!renumbers && !activeTag) ctx.commitWithNext?.();
  const [row] = await saveUnique(
    ctx,
    (db) =>
      db
        .update(lookups)
        .set({
          name: input.name,
          value: input.value,
          colorCode: input.color_code,
          isActive: input.is_active,
          updatedAt: sql`now()`,
        })
        .where(tenantWhere(ctx, lookups, eq(lookups.id, id)))
        .returning(),
    activeTag,
  );
  if (renumbers) {
    ctx.commitWithNext?.();
    await ctx.db.execute(renumberStatement(ctx, type, current.value as number, input.value as number));
  }
  return presentLookup(row);
}

/**
 * Records hold the value, not the lookup id: one statement moves them along so none loses its
 * label (or, once the old value is taken by another lookup, silently changes meaning). Leads hold
 * every valued type; contacts hold the same statuses as leads. Saved views (module `lead`) and
 * saved lead queries keep the value in their filters (state_id, lead_source, priority): those
 * holding it get the new one, in place (updated_at moves); the others, other filters and another
 * module's same-named filter (a deal query's `status` is a stage id) stay as they were.
 */
function renumberStatement(ctx: TenantContext, type: keyof typeof leadPropertyFor, from: number, to: number): SQL {
  const property = leads[leadPropertyFor[type]];
  const moves: [string, SQL][] = [
    [
      'moved_leads',
      // The leads locked in id order first, as every multi-lead writer locks them (leads/row-locks.ts).
      sql`update ${leads} set ${bare(property)} = ${to} where ${tenantWhere(
        ctx,
        leads,
        eq(property, from),
        leadRowsLocked(
          ctx.orgId,
          sql`select ${leads.id} from ${leads} where ${leads.organizationId} = ${ctx.orgId} and ${property} = ${from}`,
          'no key update',
        ),
      )}`,
    ],
  ];
  if (type === 'status')
    moves.push([
      'moved_contacts',
      // The contacts too, as every multi-contact writer locks them (contactTargetLocked): in the
      // order the plan read them, this and a bulk contact update or delete could deadlock.
      sql`update ${contacts} set ${bare(contacts.status)} = ${to}
        where ${tenantWhere(ctx, contacts, eq(contacts.status, from))} and ${contacts.id} in (
          select ${contacts.id} from ${contacts} where ${tenantWhere(ctx, contacts, eq(contacts.status, from))}
          order by ${contacts.id} for no key update)`,
    ]);
  // The filter's path in each table's jsonb column; `r` holds each candidate row's rewritten list.
  const path = sql`array[${leadFilterFor[type]}::text]`;
  const { id: viewId, filters, moduleName, updatedAt: viewUpdatedAt } = customViews;
  const viewList = sql`${filters} #> ${path}`;
  moves.push([
    'moved_views',
    sql`update ${customViews} as v set ${bare(filters)} = jsonb_set(v.${bare(filters)}, ${path}, r.list), ${bare(viewUpdatedAt)} = now()
      from (select ${viewId} as id, ${renumberedIdList(viewList, from, to)} as list from ${customViews}
        where ${tenantWhere(ctx, customViews, eq(moduleName, 'lead'), sql`${viewList} is not null`)}) r
      where v.${bare(viewId)} = r.id and r.list <> v.${bare(filters)} #> ${path}`,
  ]);
  const queryPath = sql`array['filters', ${leadFilterFor[type]}::text]`;
  const { id: queryId, definition, module: queryModule, updatedAt: queryUpdatedAt } = savedQueries;
  const queryList = sql`${definition} #> ${queryPath}`;
  const moveQueries = sql`update ${savedQueries} as q
      set ${bare(definition)} = jsonb_set(q.${bare(definition)}, ${queryPath}, r.list), ${bare(queryUpdatedAt)} = now()
    from (select ${queryId} as id, ${renumberedIdList(queryList, from, to)} as list from ${savedQueries}
      where ${tenantWhere(ctx, savedQueries, eq(queryModule, 'leads'), sql`${queryList} is not null`)}) r
    where q.${bare(queryId)} = r.id and r.list <> q.${bare(definition)} #> ${queryPath}`;
  return sql`with ${sql.join(
    moves.map(([name, move]) => sql`${sql.identifier(name)} as (${move})`),
    sql`, `,
  )} ${moveQueries}`;
}
