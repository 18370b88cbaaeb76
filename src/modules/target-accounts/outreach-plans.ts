/**
 * Outreach plans of a target account: who (a live contact of the account's company, stakeholder
 * or not), how (channel), when, and who does it (a user of the organization; the caller when
 * absent). The list is a standard list scoped to the account.
 */
import type { z } from '@hono/zod-openapi';
import { eq, ilike, or, sql } from 'drizzle-orm';
import { referencesExist } from '../../db/references';
import { outreachPlans, targetAccounts, companies } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { checkAccountContact } from './stakeholders';
import { contactName, type OutreachPlanRecord, outreachPlanFields } from './outreach-plan-fields';
import type { AddOutreachPlanInput } from './schemas';

const presentPlan = (row: Record<string, unknown>): OutreachPlanRecord => outreachPlanFields.present(row);

export async function addOutreachPlan(ctx: TenantContext, accountId: number, input: AddOutreachPlanInput) {
  await checkAccountContact(ctx, accountId, input.contact_id, 'contact_id');
  const assignee = input.assigned_to ?? ctx.userId;
  await referencesExist(
    ctx,
    { assigned_to: input.assigned_to },
    { messages: { assigned_to: `user ${input.assigned_to} is not a user of this organization` } },
  );
  const [row] = await ctx.db
    .insert(outreachPlans)
    .values({
      organizationId: ctx.orgId,
      targetAccountId: accountId,
      contactId: input.contact_id,
      channel: input.channel,
      scheduledAt: input.scheduled_at,
      assignedTo: assignee,
      notes: input.notes === '' ? null : (input.notes ?? null),
      createdBy: ctx.userId,
    })
    .returning(outreachPlanFields.selection);
  return presentPlan(row);
}

export const outreachPlanList = defineList({
  sort: {
    id: outreachPlans.id,
    scheduled_at: outreachPlans.scheduledAt,
    created_at: outreachPlans.createdAt,
  },
  search: (term) => or(ilike(outreachPlans.notes, containsPattern(term)), ilike(contactName, containsPattern(term))),
  createdAt: outreachPlans.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...outreachPlanFields.selection, ...columns })
        .from(outreachPlans)
        .$dynamic(),
    // Plans of an account whose company is soft-deleted are gone with it.
    where: tenantWhere(
      ctx,
      outreachPlans,
      sql`exists (select 1 from ${targetAccounts} t join ${companies} c on c.id = t.company_id and c.deleted_at is null
        where t.id = ${outreachPlans.targetAccountId})`,
    ),
  }),
  present: (row) => presentPlan(row),
});
export const OutreachPlanListQuery = outreachPlanList.query;

export async function listOutreachPlans(
  ctx: TenantContext,
  accountId: number,
  params: z.output<typeof OutreachPlanListQuery>,
) {
  // The page is scoped to the organization, so another organization's account lists nothing; only
  // an empty page asks whether the account exists at all (404), after the cursor has been checked.
  const page = await outreachPlanList.run(ctx, params, { where: eq(outreachPlans.targetAccountId, accountId) });
  if (page.rows.length === 0) {
    const [account] = await ctx.db
      .select({ id: targetAccounts.id })
      .from(targetAccounts)
      .where(
        tenantWhere(
          ctx,
          targetAccounts,
          eq(targetAccounts.id, accountId),
          sql`exists (select 1 from ${companies} c where c.id = ${targetAccounts.companyId} and c.deleted_at is null)`,
        ),
      );
    if (!account) throw new NotFound('Target account', accountId);
  }
  return page;
}
