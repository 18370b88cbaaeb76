/**
 * ABM reports over the organization's target accounts that are not archived (of live
 * companies): the funnel (accounts by stage, with conversion between consecutive stages) and
 * the most engaged accounts with the reasons. Each is one SQL statement over the health lateral.
 */
import { z } from '@hono/zod-openapi';
import { desc, asc, sql } from 'drizzle-orm';
import { companies, targetAccounts } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { ABM_STAGES, abmStage, healthLateral, healthReasons, healthScore } from './health';
import { targetAccountFields } from './fields';

export const TOP_ENGAGED_DEFAULT = 10;
export const TOP_ENGAGED_MAX = 100;

export const TopEngagedQuery = z.object({
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, `must be 1 to ${TOP_ENGAGED_MAX}`)
    .max(TOP_ENGAGED_MAX, `must be 1 to ${TOP_ENGAGED_MAX}`)
    .default(TOP_ENGAGED_DEFAULT)
    .openapi({
      type: 'integer',
      description: `How many accounts, 1 to ${TOP_ENGAGED_MAX} (default ${TOP_ENGAGED_DEFAULT})`,
    }),
});

const reportScope = (ctx: TenantContext) =>
  tenantWhere(
    ctx,
    targetAccounts,
    sql`${targetAccounts.status} <> 'archived'`,
    sql`exists (select 1 from ${companies} c where c.id = ${targetAccounts.companyId} and c.deleted_at is null)`,
  );

/** reached / reached of the stage before, to 4 decimals; null for the first stage or when none reached the one before. */
function conversion(reached: number, before: number | undefined): number | null {
  if (before === undefined || before === 0) return null;
  return Math.round((reached / before) * 10_000) / 10_000;
}

export async function abmFunnel(ctx: TenantContext) {
  const [row] = await ctx.db
    .select({
      targeted: sql<number>`count(*) filter (where ${abmStage} = 'targeted')`.mapWith(Number),
      engaged: sql<number>`count(*) filter (where ${abmStage} = 'engaged')`.mapWith(Number),
      opportunity: sql<number>`count(*) filter (where ${abmStage} = 'opportunity')`.mapWith(Number),
      customer: sql<number>`count(*) filter (where ${abmStage} = 'customer')`.mapWith(Number),
    })
    .from(targetAccounts)
    .leftJoinLateral(healthLateral, sql`true`)
    .where(reportScope(ctx));
  const counts = ABM_STAGES.map((stage) => row[stage]);
  // An account at a later stage has passed the earlier ones: reached = at this stage or later.
  const reached = counts.map((_, index) => counts.slice(index).reduce((sum, n) => sum + n, 0));
  return {
    total: reached[0],
    stages: ABM_STAGES.map((stage, index) => ({
      stage,
      count: counts[index],
      reached: reached[index],
      conversion_rate: conversion(reached[index], index === 0 ? undefined : reached[index - 1]),
    })),
  };
}

export async function topEngagedAccounts(ctx: TenantContext, limit: number) {
  const rows = await ctx.db
    .select(targetAccountFields.selection)
    .from(targetAccounts)
    .leftJoinLateral(healthLateral, sql`true`)
    .where(reportScope(ctx))
    .orderBy(desc(healthScore), sql`health.last_signal_at desc nulls last`, asc(targetAccounts.id))
    .limit(limit);
  return rows.map((row) => {
    const account = targetAccountFields.present(row);
    return { ...account, reasons: healthReasons(account.health) };
  });
}
