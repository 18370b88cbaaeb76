/**
 * Starting a bulk draft job (spec: `POST /api/ai-email/bulk-generate`, at most 500 leads) and
 * reading it (beyond the spec). Every id must be a live lead of the organization: the first that
 * is not is a 404 naming it, before any work. The job is written with its outbox message in the
 * request's transaction; the queue writes one draft per lead (bulk-job.ts).
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { aiEmailJobs, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { insertJob } from '../../jobs/outbox';

type JobRow = typeof aiEmailJobs.$inferSelect;

export function presentBulkJob(job: JobRow) {
  return {
    id: job.id,
    status: job.status as 'queued' | 'running' | 'completed' | 'failed' | 'cancelled',
    total_items: job.totalItems,
    processed_items: job.processedItems,
    drafts_created: job.draftsCreated,
    item_errors: job.itemErrors,
    persona: job.persona,
    error: job.error,
    created_at: isoTimestamp(job.createdAt) as string,
    finished_at: isoTimestamp(job.finishedAt),
  };
}

export async function startBulkDrafts(ctx: TenantContext, input: { lead_ids: number[]; persona?: string }) {
  const ids = [...new Set(input.lead_ids)];
  const found = await ctx.db
    .select({ id: leads.id })
    .from(leads)
    .where(tenantWhere(ctx, leads, inArray(leads.id, ids), isNull(leads.deletedAt)));
  const live = new Set(found.map((row) => row.id));
  const missing = ids.find((id) => !live.has(id));
  if (missing !== undefined) throw new NotFound('Lead', missing);
  // The job with its outbox message, the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const job = await insertJob(ctx, 'ai-email-bulk', aiEmailJobs, {
    organizationId: ctx.orgId,
    leadIds: ids,
    persona: input.persona ?? null,
    totalItems: ids.length,
    createdBy: ctx.userId,
  });
  return presentBulkJob(job);
}

export async function viewBulkJob(ctx: TenantContext, jobId: number) {
  const [job] = await ctx.db
    .select()
    .from(aiEmailJobs)
    .where(tenantWhere(ctx, aiEmailJobs, and(eq(aiEmailJobs.id, jobId))));
  if (!job) throw new NotFound('Job', jobId);
  return presentBulkJob(job);
}
