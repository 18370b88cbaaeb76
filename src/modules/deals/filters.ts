/**
 * The deal list's filters and the one WHERE they make in the caller's organization. The saved
 * queries reuse the filters' shapes.
 */
import type { z } from '@hono/zod-openapi';
import { eq, type SQL } from 'drizzle-orm';
import { positiveId } from '../../core/schemas';
import { deals } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';

const optionalId = (description: string) => positiveId.optional().openapi({ type: 'integer', description });

export const dealListFilters = {
  lead_id: optionalId('Deals of this lead'),
  pipeline_id: optionalId('Deals of this pipeline'),
  status: optionalId('Deals in this stage (a stage id)'),
};

export type DealListFilters = Partial<z.output<z.ZodObject<typeof dealListFilters>>>;

/** The deal filters as one WHERE in the caller's organization. */
export function dealFilterWhere(ctx: Pick<TenantContext, 'orgId'>, params: DealListFilters): SQL {
  return tenantWhere(
    ctx,
    deals,
    params.lead_id !== undefined ? eq(deals.leadId, params.lead_id) : undefined,
    params.pipeline_id !== undefined ? eq(deals.pipelineId, params.pipeline_id) : undefined,
    params.status !== undefined ? eq(deals.stageId, params.status) : undefined,
  );
}
