/**
 * Company enrichment as seen through the API: POST /api/company/enrich queues a job (written
 * with its outbox message in the request's transaction) and answers it; GET
 * /api/company/enrich/{id} reads its status, progress and result. The work is enrichment-job.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { companies, companyEnrichmentJobs } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { isoTimestamp, timestamp } from '../../core/schemas';
import { JOB_STATUSES, type JobStatus } from '../../jobs/job-status';
import { insertJob } from '../../jobs/outbox';
import { companyFilterWhere } from './filters';

type JobRow = typeof companyEnrichmentJobs.$inferSelect;

const derived = z
  .object({
    value: z.string().openapi({ description: 'The value' }),
    source: z.string().openapi({ description: 'Where it came from', example: 'leads_at_domain' }),
  })
  .openapi({ description: 'A derived value and its source' });

export const EnrichmentJobSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The job’s id' }),
    company_id: z.number().int().openapi({ description: 'The company being enriched' }),
    status: z.enum(JOB_STATUSES).openapi({ description: 'queued, running, completed or failed' }),
    total: z.number().int().openapi({ description: 'Fields the job evaluates (0 until it starts)' }),
    processed: z.number().int().openapi({ description: 'Fields evaluated so far' }),
    percentage: z
      .number()
      .int()
      .openapi({ description: 'processed / total as a whole percentage; 100 when completed' }),
    result: z
      .object({
        domain: derived.nullable().openapi({ description: 'The domain people were matched on; null when none' }),
        filled: z
          .record(z.string(), derived)
          .openapi({ description: 'Empty fields the job filled, with their source' }),
        kept: z
          .record(z.string(), z.unknown())
          .openapi({ description: 'Fields that already had a value, left as they were' }),
        unresolved: z
          .record(z.string(), z.string())
          .openapi({ description: 'Empty fields nothing supported a value for (they stay empty), with why' }),
        evidence: z
          .object({
            leads: z.number().int().openapi({ description: 'Leads at the domain or linked to the company' }),
            contacts: z.number().int().openapi({ description: 'Contacts at the domain or of the company' }),
          })
          .openapi({ description: 'How many people the values were derived from' }),
      })
      .nullable()
      .openapi({ description: 'What the job did; null until it completes' }),
    error: z.string().nullable().openapi({ description: 'Why the job failed; null otherwise' }),
    created_by: z.number().int().nullable().openapi({ description: 'The user who asked for it' }),
    started_at: timestamp('When a delivery first started it').nullable(),
    finished_at: timestamp('When it ended').nullable(),
    created_at: timestamp('When it was queued'),
  })
  .openapi('CompanyEnrichmentJob', {
    description: 'A company enrichment job with its progress and result',
    example: {
      id: 7,
      company_id: 3,
      status: 'completed',
      total: 5,
      processed: 5,
      percentage: 100,
      result: {
        domain: { value: 'example.com', source: 'website' },
        filled: { country: { value: 'Germany', source: 'leads_at_domain' } },
        kept: { website: 'https://example.com' },
        unresolved: { employee_size: 'no headcount hint in the custom fields of the 3 lead(s) and 1 contact(s)' },
        evidence: { leads: 3, contacts: 1 },
      },
      error: null,
      created_by: 1,
      started_at: '2026-01-15T09:30:01.000Z',
      finished_at: '2026-01-15T09:30:02.000Z',
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });
export type EnrichmentJobView = z.infer<typeof EnrichmentJobSchema>;

export function presentEnrichmentJob(job: JobRow): EnrichmentJobView {
  const done = job.status === 'completed';
  return {
    id: job.id,
    company_id: job.companyId,
    status: job.status as JobStatus,
    total: job.totalSteps,
    processed: job.processedSteps,
    percentage: done ? 100 : job.totalSteps > 0 ? Math.floor((job.processedSteps / job.totalSteps) * 100) : 0,
    result: (job.result as EnrichmentJobView['result']) ?? null,
    error: job.error,
    created_by: job.createdBy,
    started_at: isoTimestamp(job.startedAt),
    finished_at: isoTimestamp(job.finishedAt),
    created_at: isoTimestamp(job.createdAt) as string,
  };
}

export async function startEnrichment(ctx: TenantContext, companyId: number): Promise<EnrichmentJobView> {
  const [company] = await ctx.db
    .select({ id: companies.id })
    .from(companies)
    .where(and(companyFilterWhere(ctx, {}), eq(companies.id, companyId)));
  if (!company) throw new NotFound('Company', companyId);
  // The job with its outbox message (sent only after the request's transaction commits), the
  // request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const job = await insertJob(ctx, 'company-enrichment', companyEnrichmentJobs, {
    organizationId: ctx.orgId,
    companyId,
    status: 'queued',
    createdBy: ctx.userId,
  });
  return presentEnrichmentJob(job);
}

export async function readEnrichmentJob(ctx: TenantContext, id: number): Promise<EnrichmentJobView> {
  const [job] = await ctx.db
    .select()
    .from(companyEnrichmentJobs)
    .where(tenantWhere(ctx, companyEnrichmentJobs, eq(companyEnrichmentJobs.id, id)));
  if (!job) throw new NotFound('Enrichment job', id);
  return presentEnrichmentJob(job);
}
