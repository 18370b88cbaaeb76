/**
 * The one check that the records a write points at (its `lead_id`, `company_id`, `contact_id`,
 * `user_id`, `assigned_to`, `owner_id`) are live records of the organization: one `exists` per
 * reference built on the drizzle tables and `tenantWhere`, all in ONE statement together with
 * whatever else the caller needs to read before writing (its own columns, `also`).
 *
 * A missing record answers 422 naming the field, unless the route treats the reference as a
 * record it addresses (`notFound`): then 404 naming the record, exactly as for a record of
 * another organization, so the two cannot be told apart.
 */
import { eq, isNull, type SQL, sql } from 'drizzle-orm';
import { type FieldIssue, NotFound, ValidationFailed } from '../core/errors';
import { companies, contacts, leads, users } from './schema';
import { type TenantContext, tenantWhere } from './tenant';

/** The records a write may reference: the table and the name its 404 uses. */
const records = {
  lead: { table: leads, name: 'Lead' },
  company: { table: companies, name: 'Company' },
  contact: { table: contacts, name: 'Contact' },
  user: { table: users, name: 'User' },
} as const;

/** The request fields that reference a record, and the record each names. */
const referenceFields = {
  lead_id: 'lead',
  company_id: 'company',
  contact_id: 'contact',
  user_id: 'user',
  assigned_to: 'user',
  owner_id: 'user',
} as const satisfies Record<string, keyof typeof records>;

export type ReferenceField = keyof typeof referenceFields;
/** The ids a write names, by field; an absent or null id references nothing and is not checked. */
export type References = Partial<Record<ReferenceField, number | null>>;
export type ReferencesFound = Partial<Record<ReferenceField, boolean>>;

export interface ReferenceRules {
  /** Fields whose missing record answers 404 naming the record; the others answer 422 naming the field. */
  notFound?: readonly ReferenceField[];
  /** A 422 message in place of `is not a <record> of this organization`. */
  messages?: Partial<Record<ReferenceField, string>>;
}

function named(refs: References): [ReferenceField, number][] {
  return (Object.entries(refs) as [ReferenceField, number | null | undefined][]).filter(
    (entry): entry is [ReferenceField, number] => entry[1] !== null && entry[1] !== undefined,
  );
}

/** `exists (…)` for each named reference, to select in the caller's statement. */
export function referenceChecks(ctx: Pick<TenantContext, 'orgId'>, refs: References): Record<string, SQL<boolean>> {
  const checks: Record<string, SQL<boolean>> = {};
  for (const [field, id] of named(refs)) {
    const { table } = records[referenceFields[field]];
    checks[field] =
      sql<boolean>`exists (select 1 from ${table} where ${tenantWhere(ctx, table, eq(table.id, id), isNull(table.deletedAt))})`;
  }
  return checks;
}

/**
 * Throws the 404 of the first missing `notFound` reference (in the order of `refs`), and answers
 * the 422 issues of the other missing ones, for the caller to throw with its own.
 */
export function referenceIssues(refs: References, found: ReferencesFound, rules: ReferenceRules = {}): FieldIssue[] {
  const missing = named(refs).filter(([field]) => found[field] !== true);
  for (const [field, id] of missing) {
    if (rules.notFound?.includes(field)) throw new NotFound(records[referenceFields[field]].name, id);
  }
  return missing.map(([field]) => ({
    field,
    message: rules.messages?.[field] ?? `is not a ${referenceFields[field]} of this organization`,
  }));
}

type Selected<A> = { [K in keyof A]: A[K] extends SQL<infer T> ? T : never };

/**
 * Reads whether each named reference exists, and the `also` columns, in one statement (none when
 * there is nothing to read). For callers that order their own failures around the references'.
 */
export async function readReferences<A extends Record<string, SQL> = Record<never, SQL>>(
  ctx: Pick<TenantContext, 'db' | 'orgId'>,
  refs: References,
  also?: A,
): Promise<{ found: ReferencesFound; values: Selected<A> }> {
  const checks = referenceChecks(ctx, refs);
  // The checks under keys no `also` column can take.
  const selection: Record<string, SQL> = {
    ...Object.fromEntries(Object.entries(checks).map(([field, check]) => [`ref:${field}`, check])),
    ...also,
  };
  if (Object.keys(selection).length === 0) return { found: {}, values: {} as Selected<A> };
  const [row] = await ctx.db.select(selection).from(sql`(select 1) as one`);
  const found: ReferencesFound = {};
  for (const field of Object.keys(checks) as ReferenceField[]) found[field] = row[`ref:${field}`] === true;
  return { found, values: row as Selected<A> };
}

/**
 * Checks `refs` in one statement: 404 for a missing `notFound` reference, else 422 naming every
 * missing field. `also` rides along in the same statement; its values are answered.
 */
export async function referencesExist<A extends Record<string, SQL> = Record<never, SQL>>(
  ctx: Pick<TenantContext, 'db' | 'orgId'>,
  refs: References,
  rules: ReferenceRules = {},
  also?: A,
): Promise<Selected<A>> {
  const { found, values } = await readReferences(ctx, refs, also);
  const issues = referenceIssues(refs, found, rules);
  if (issues.length > 0) throw new ValidationFailed(issues);
  return values;
}
