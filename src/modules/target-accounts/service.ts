/**
 * Target accounts: target a company (once per organization), read one with its health and
 * stakeholders, change, delete (its stakeholders and outreach plans go with it; the company
 * stays), and the list with the health, tier, owner and search filters. Every read joins the
 * health lateral (health.ts), so health is computed in the same statement as the rows.
 */
import type { z } from '@hono/zod-openapi';
import { eq, ilike, sql, type SQL } from 'drizzle-orm';
import { referencesExist } from '../../db/references';
import { companies, targetAccounts } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { Conflict, NotFound } from '../../core/errors';
import { columnValues } from '../../core/field-table';
import { containsPattern, defineList } from '../../core/list';
import { targetAccountFields } from './fields';
import { healthBand, healthLateral, healthScore } from './health';
import { presentStakeholder, type StakeholderRow, stakeholdersOf } from './stakeholders';
import { targetAccountListFilters } from './filters';
import type { CreateTargetAccountInput, UpdateTargetAccountInput } from './schemas';

/** Live: the account's company is not soft-deleted (an account of a deleted company reads as gone). */
const liveCompany = sql`exists (select 1 from ${companies} c where c.id = ${targetAccounts.companyId} and c.deleted_at is null)`;

function accountWhere(ctx: TenantContext, ...conditions: (SQL | undefined)[]) {
  return tenantWhere(ctx, targetAccounts, liveCompany, ...conditions);
}

const present = (row: Record<string, unknown>) => targetAccountFields.present(row);

export async function readTargetAccount(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select({ ...targetAccountFields.selection, stakeholders: stakeholdersOf })
    .from(targetAccounts)
    .leftJoinLateral(healthLateral, sql`true`)
    .where(accountWhere(ctx, eq(targetAccounts.id, id)));
  if (!row) throw new NotFound('Target account', id);
  const { stakeholders, ...fields } = row as Record<string, unknown> & { stakeholders: StakeholderRow[] };
  return { ...present(fields), stakeholders: stakeholders.map(presentStakeholder) };
}

const notAUser = (userId: number | null | undefined) => `user ${userId} is not a user of this organization`;

function duplicate(existingId: number, companyId: number) {
  return new Conflict(`Company ${companyId} is already a target account (${existingId})`, 'duplicate_target_account', {
    target_account_id: existingId,
    company_id: companyId,
  });
}

export async function createTargetAccount(ctx: TenantContext, input: CreateTargetAccountInput) {
  // The company, the owner and an existing account of the company, in one statement.
  const { existing } = await referencesExist(
    ctx,
    { company_id: input.company_id, owner_id: input.owner_id },
    { notFound: ['company_id'], messages: { owner_id: notAUser(input.owner_id) } },
    {
      existing: sql<
        number | string | null
      >`(select ${targetAccounts.id} from ${targetAccounts} where ${tenantWhere(ctx, targetAccounts, eq(targetAccounts.companyId, input.company_id))})`,
    },
  );
  if (existing !== null) throw duplicate(Number(existing), input.company_id);
  const [row] = await ctx.db
    .insert(targetAccounts)
    .values({
      ...(columnValues(targetAccountFields.writableColumns, input) as Partial<typeof targetAccounts.$inferInsert>),
      companyId: input.company_id,
      organizationId: ctx.orgId,
      createdBy: ctx.userId,
    })
    // A concurrent target of the same company loses here without aborting the transaction.
    .onConflictDoNothing()
    .returning({ id: targetAccounts.id });
  if (!row) {
    const [existing] = await ctx.db
      .select({ id: targetAccounts.id })
      .from(targetAccounts)
      .where(tenantWhere(ctx, targetAccounts, eq(targetAccounts.companyId, input.company_id)));
    throw duplicate(existing.id, input.company_id);
  }
  // The answer's read is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  return readTargetAccount(ctx, row.id);
}

export async function updateTargetAccount(ctx: TenantContext, id: number, input: UpdateTargetAccountInput) {
  await referencesExist(ctx, { owner_id: input.owner_id }, { messages: { owner_id: notAUser(input.owner_id) } });
  const [row] = await ctx.db
    .update(targetAccounts)
    .set({ ...columnValues(targetAccountFields.updateColumns, input), updatedAt: sql`now()` })
    .where(accountWhere(ctx, eq(targetAccounts.id, id)))
    .returning({ id: targetAccounts.id });
  if (!row) throw new NotFound('Target account', id);
  // The answer's read is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  return readTargetAccount(ctx, id);
}

/** Deletes the account with its stakeholders and outreach plans (foreign keys cascade); the company stays. */
export async function deleteTargetAccount(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .delete(targetAccounts)
    .where(accountWhere(ctx, eq(targetAccounts.id, id)))
    .returning({ id: targetAccounts.id });
  if (!row) throw new NotFound('Target account', id);
  return { id: row.id };
}

const companyName = sql<string>`(select c.company_name from ${companies} c where c.id = ${targetAccounts.companyId})`;

export const targetAccountList = defineList({
  sort: {
    id: targetAccounts.id,
    health_score: healthScore,
    icp_fit_score: sql`coalesce(${targetAccounts.icpFitScore}, -1)`,
    tier: targetAccounts.tier,
    company_name: sql`lower(${companyName})`,
    created_at: targetAccounts.createdAt,
    updated_at: targetAccounts.updatedAt,
  },
  filters: targetAccountListFilters,
  search: (term) => ilike(companyName, containsPattern(term)),
  createdAt: targetAccounts.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...targetAccountFields.selection, ...columns })
        .from(targetAccounts)
        .leftJoinLateral(healthLateral, sql`true`)
        .$dynamic(),
    // The total needs an account's health only to filter by its band.
    countRows:
      params.health === undefined
        ? () => ctx.db.select({ id: targetAccounts.id }).from(targetAccounts).$dynamic()
        : undefined,
    where: accountWhere(
      ctx,
      params.health !== undefined ? sql`${healthBand} = ${params.health}` : undefined,
      params.tier !== undefined ? eq(targetAccounts.tier, params.tier) : undefined,
      params.owner_id !== undefined ? eq(targetAccounts.ownerId, params.owner_id) : undefined,
      params.search !== undefined ? ilike(companyName, containsPattern(params.search)) : undefined,
    ),
  }),
  present: (row) => present(row),
});
export const TargetAccountListQuery = targetAccountList.query;

export async function listTargetAccounts(ctx: TenantContext, params: z.output<typeof TargetAccountListQuery>) {
  // `sort` is the spec's name for the order: "field" ascending, "-field" descending; it overrides order_by/order_in.
  const ordered = params.sort
    ? {
        ...params,
        order_by: params.sort.replace(/^-/, '') as typeof params.order_by,
        order_in: params.sort.startsWith('-') ? ('DESC' as const) : ('ASC' as const),
      }
    : params;
  return targetAccountList.run(ctx, ordered);
}
