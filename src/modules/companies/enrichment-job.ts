/**
 * The queue consumer's side of a company enrichment (job kind 'company-enrichment'). A delivery
 * claims the job (marks it running with its step count), then, in ONE transaction scoped to the
 * organization, re-locks the job and the company, derives what it can (enrichment-derivation.ts),
 * fills only the fields that are still empty, records each filled value's source in the
 * company's `enrichment`, and completes the job with the result. A redelivered message finds the
 * job completed and does nothing; a delivery that died before its commit left nothing behind.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { companies, companyEnrichmentJobs } from '../../db/schema';
import { claimJob } from '../../jobs/claim';
import type { JobHandler } from '../../jobs/job-handler';
import { deriveFirmographics, ENRICHABLE_FIELDS, type EnrichableField } from './enrichment-derivation';
import { websiteDomain } from './firmographics';

const COLUMN_OF: Record<EnrichableField, 'website' | 'industryType' | 'country' | 'city' | 'employeeSize'> = {
  website: 'website',
  industry_type: 'industryType',
  country: 'country',
  city: 'city',
  employee_size: 'employeeSize',
};

async function claim(db: Database, message: { orgId: number; jobId: number }): Promise<boolean> {
  const claimed = await claimJob(db, companyEnrichmentJobs, message, async (tx) => {
    await tx
      .update(companyEnrichmentJobs)
      .set({
        status: 'running',
        startedAt: sql`coalesce(${companyEnrichmentJobs.startedAt}, now())`,
        totalSteps: ENRICHABLE_FIELDS.length,
        processedSteps: 0,
        updatedAt: sql`now()`,
      })
      .where(eq(companyEnrichmentJobs.id, message.jobId));
    return true;
  });
  return claimed === true;
}

async function enrich(db: Database, message: { orgId: number; jobId: number }): Promise<void> {
  await withTenant(db, message.orgId, async (tx) => {
    const [job] = await tx
      .select()
      .from(companyEnrichmentJobs)
      .where(and(eq(companyEnrichmentJobs.organizationId, message.orgId), eq(companyEnrichmentJobs.id, message.jobId)))
      .for('update');
    if (job?.status !== 'running') return;
    const finish = (values: Partial<typeof companyEnrichmentJobs.$inferInsert>) =>
      tx
        .update(companyEnrichmentJobs)
        .set({ ...values, finishedAt: sql`now()`, updatedAt: sql`now()` })
        .where(eq(companyEnrichmentJobs.id, job.id));
    const [company] = await tx
      .select()
      .from(companies)
      .where(and(eq(companies.organizationId, message.orgId), eq(companies.id, job.companyId)))
      .for('update');
    if (!company || company.deletedAt) {
      await finish({ status: 'failed', error: `Company ${job.companyId} was deleted before it could be enriched` });
      return;
    }
    const derivation = await deriveFirmographics(tx, {
      id: company.id,
      orgId: message.orgId,
      website: company.website,
      websiteDomain: company.websiteDomain,
      contactEmail: company.contactEmail,
    });
    const at = new Date().toISOString();
    const filled: Record<string, { value: string; source: string }> = {};
    const kept: Record<string, unknown> = {};
    const unresolved: Record<string, string> = {};
    const set: Record<string, unknown> = {};
    for (const field of ENRICHABLE_FIELDS) {
      const current = company[COLUMN_OF[field]];
      if (current !== null && current !== '') {
        kept[field] = current;
        continue;
      }
      const derived = derivation.values[field];
      if (!derived) {
        unresolved[field] = derivation.unresolved[field] ?? 'nothing to derive it from';
        continue;
      }
      filled[field] = derived;
      set[COLUMN_OF[field]] = derived.value;
      if (field === 'website') set.websiteDomain = websiteDomain(derived.value);
    }
    if (Object.keys(filled).length > 0) {
      const records = Object.fromEntries(Object.entries(filled).map(([field, value]) => [field, { ...value, at }]));
      await tx
        .update(companies)
        .set({
          ...set,
          enrichment: sql`${companies.enrichment} || ${JSON.stringify(records)}::jsonb`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(companies.organizationId, message.orgId), eq(companies.id, company.id)));
    }
    await finish({
      status: 'completed',
      processedSteps: ENRICHABLE_FIELDS.length,
      result: {
        domain: derivation.domain ? { value: derivation.domain.value, source: derivation.domain.source } : null,
        filled,
        kept,
        unresolved,
        evidence: derivation.evidence,
      },
    });
  });
}

export const ENRICHMENT_DEAD_LETTER_REASON = 'The enrichment could not run: every attempt failed. Please ask again.';

export const companyEnrichmentJobHandler: JobHandler<'company-enrichment'> = {
  run: async (message, { db }) => {
    if (!(await claim(db, message))) return;
    await enrich(db, message);
  },
  deadLettered: async (message, { db }) => {
    await withTenant(db, message.orgId, (tx) =>
      tx
        .update(companyEnrichmentJobs)
        .set({
          status: 'failed',
          error: ENRICHMENT_DEAD_LETTER_REASON,
          finishedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(
          and(
            eq(companyEnrichmentJobs.organizationId, message.orgId),
            eq(companyEnrichmentJobs.id, message.jobId),
            inArray(companyEnrichmentJobs.status, ['queued', 'running']),
          ),
        ),
    );
  },
};
