/**
 * Per-organization lookup values (see defaults.ts for the vocabulary). Everyone in the
 * organization reads them; admins and managers add and change them (routes.ts declares the roles). A lead status, source or
 * priority always has a unique value; changing it moves the leads (and, for a status, the
 * contacts) that hold the old value, so no record loses its label. Deactivated lookups stay readable on the records that use them.
 */
import { count, eq, inArray, ne, sql } from 'drizzle-orm';
import { contacts, leads, lookups } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { isUniqueViolation } from '../../db/errors';
import { BadRequest, Conflict, NotFound, ValidationFailed } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { canonicalLookupKey, LEAD_LOOKUP_MODULE, LEAD_LOOKUP_TYPES, VALUED_TYPES } from './defaults';
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

async function assertNameFree(
  ctx: TenantContext,
  moduleName: string,
  type: string,
  name: string,
  exceptId?: number,
): Promise<void> {
  const [taken] = await ctx.db
    .select({ id: lookups.id })
    .from(lookups)
    .where(
      tenantWhere(
        ctx,
        lookups,
        eq(lookups.moduleName, moduleName),
        eq(lookups.type, type),
        sql`lower(${lookups.name}) = lower(${name})`,
        exceptId ? ne(lookups.id, exceptId) : undefined,
      ),
    );
  if (taken)
    throw new Conflict(`A ${type} lookup named "${name}" already exists`, 'duplicate_lookup', {
      lookup_id: taken.id,
      field: 'name',
    });
}

async function saveUnique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'lookups_organization_value_key'))
      throw new Conflict('Another lookup of this type has this value', 'duplicate_value', { field: 'value' });
    throw error;
  }
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
  await ctx.db.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`${ctx.orgId}:lookup:${input.module_name}:${input.type}`}, 0))`,
  );
  await assertNameFree(ctx, input.module_name, input.type, input.name);
  let value = input.value ?? null;
  if (value === null && isValued(input.module_name, input.type)) {
    const [{ next }] = await ctx.db
      .select({ next: sql<number>`coalesce(max(${lookups.value}), 0) + 1`.mapWith(Number) })
      .from(lookups)
      .where(tenantWhere(ctx, lookups, eq(lookups.moduleName, input.module_name), eq(lookups.type, input.type)));
    value = next;
  }
  const [row] = await saveUnique(() =>
    ctx.db
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
  );
  return presentLookup(row);
}

export async function updateLookup(ctx: TenantContext, id: number, input: UpdateLookupInput) {
  const current = await findLookup(ctx, id);
  const valued = isValued(current.moduleName, current.type);
  if (valued && input.value === null) throw ValidationFailed.field('value', `is required for a ${current.type} lookup`);
  if (input.name !== undefined) await assertNameFree(ctx, current.moduleName, current.type, input.name, id);
  if (
    input.is_active === false &&
    current.isActive &&
    current.moduleName === LEAD_LOOKUP_MODULE &&
    current.type === 'status'
  ) {
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
  const [row] = await saveUnique(() =>
    ctx.db
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
  );
  const property = valued ? leadPropertyFor[current.type as keyof typeof leadPropertyFor] : undefined;
  if (property && input.value != null && current.value !== null && input.value !== current.value) {
    // Records hold the value, not the lookup id: move them along so none loses its label (or,
    // once the old value is taken by another lookup, silently changes meaning). Leads hold every
    // valued type; contacts hold the same statuses as leads. One statement.
    const moveLeads = sql`update ${leads} set ${sql.identifier(leads[property].name)} = ${input.value}
      where ${tenantWhere(ctx, leads, eq(leads[property], current.value))}`;
    await ctx.db.execute(
      current.type === 'status'
        ? sql`with moved_leads as (${moveLeads})
            update ${contacts} set status = ${input.value}
            where ${tenantWhere(ctx, contacts, eq(contacts.status, current.value))}`
        : moveLeads,
    );
  }
  return presentLookup(row);
}
