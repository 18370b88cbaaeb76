/**
 * CRM imports as seen through the API: starting one (the CRM connection found, the mapping checked
 * against the CRM's properties, the job queued through the outbox in the request's transaction)
 * and reading its status with its first errors. The queue consumer's side is crm-import-job.ts.
 */
import type { z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import { NotFound, ValidationFailed } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import { crmImportJobs, crmImportRecords } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import type { JobStatus } from '../../jobs/job-status';
import { insertJob } from '../../jobs/outbox';
import { callProvider } from '../../providers/calls';
import { requestWriter, requireUsable } from '../../providers/connections';
import { crmProviderFor } from '../../providers/crm/select';
import { crmConnection } from './connected-apps';
import { checkMapping } from './crm-mapping';
import type { CrmImportBody } from './schemas';

type CrmImportRow = typeof crmImportJobs.$inferSelect;

/** How many errors the status answers. */
export const STATUS_ERRORS = 50;

export interface CrmImportOptions {
  from?: string | null;
  to?: string | null;
  limit?: number | null;
}

export function presentCrmImport(job: CrmImportRow) {
  const options = job.options as CrmImportOptions;
  const done = job.status === 'completed';
  const total = job.totalEstimate === null ? null : Math.max(job.totalEstimate, job.processedCount);
  return {
    id: job.id,
    provider: job.provider,
    connection_id: job.connectionId,
    status: job.status as JobStatus,
    phase: job.phase,
    mapping: { lead: job.mapping.leads ?? {}, company: job.mapping.companies ?? {} },
    from: options.from ?? null,
    to: options.to ?? null,
    limit: options.limit ?? null,
    counts: {
      created: job.createdCount,
      updated: job.updatedCount,
      skipped: job.skippedCount,
      failed: job.failedCount,
    },
    processed: job.processedCount,
    total: done ? job.processedCount : total,
    progress: done ? 100 : total ? Math.min(99, Math.floor((job.processedCount / total) * 100)) : 0,
    error: job.error,
    created_by: job.createdBy,
    started_at: isoTimestamp(job.startedAt),
    finished_at: isoTimestamp(job.finishedAt),
    created_at: isoTimestamp(job.createdAt) as string,
    updated_at: isoTimestamp(job.updatedAt) as string,
  };
}

export async function startCrmImport(ctx: TenantContext, env: Bindings, input: z.output<typeof CrmImportBody>) {
  if (input.from && input.to && input.from > input.to) throw ValidationFailed.field('to', 'must not be before from');
  const connection = requireUsable(await crmConnection(ctx, input.connection_id));
  const writer = requestWriter(env);
  const provider = crmProviderFor({ env, writer }, connection);
  const mapping = await callProvider(writer, connection, 'properties', () => checkMapping(provider, input.mapping));
  const options: CrmImportOptions = {
    from: input.from?.toISOString() ?? null,
    to: input.to?.toISOString() ?? null,
    limit: input.limit ?? null,
  };
  // The job with its outbox message, the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const job = await insertJob(ctx, 'crm-import', crmImportJobs, {
    organizationId: ctx.orgId,
    connectionId: connection.id,
    provider: connection.provider,
    mapping: { leads: mapping.lead, companies: mapping.company },
    options: { ...options },
    // A side without a mapping is not read at all.
    phase: Object.keys(mapping.company).length > 0 ? 'companies' : 'contacts',
    createdBy: ctx.userId,
  });
  return presentCrmImport(job);
}

type OutcomeRow = {
  object_type: 'contact' | 'company';
  crm_record_id: string;
  outcome: 'error' | 'skipped' | 'merged';
  field: string | null;
  message: string;
  record_id: number | null;
};

/** The job with its first errors and its merge count, in one statement; another organization's is a 404. */
export async function crmImportStatus(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select({
      job: crmImportJobs,
      errors: sql<OutcomeRow[]>`(select coalesce(json_agg(e order by e.id), '[]'::json) from (
        select id, object_type, external_id as crm_record_id, outcome, field, message, record_id from ${crmImportRecords}
        where organization_id = ${ctx.orgId} and job_id = ${id} and outcome = 'error' order by id limit ${STATUS_ERRORS}) e)`,
      merged: sql<number>`(select count(*)::int from ${crmImportRecords}
        where organization_id = ${ctx.orgId} and job_id = ${id} and outcome = 'merged')`,
    })
    .from(crmImportJobs)
    .where(tenantWhere(ctx, crmImportJobs, eq(crmImportJobs.id, id)));
  if (!row) throw new NotFound('CRM import', id);
  return {
    ...presentCrmImport(row.job),
    errors: row.errors.map((error) => ({
      object_type: error.object_type,
      crm_record_id: error.crm_record_id,
      outcome: error.outcome,
      field: error.field,
      message: error.message,
      record_id: error.record_id === null ? null : Number(error.record_id),
    })),
    merged: Number(row.merged),
  };
}
