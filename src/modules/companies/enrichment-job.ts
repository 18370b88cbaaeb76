/**
 * The queue consumer's side of a company enrichment (job kind 'company-enrichment'). A delivery
 * claims the job (marks it running with its step count), then, in ONE transaction scoped to the
 * organization, re-locks the job and the company, derives what it can (enrichment-derivation.ts),
 * fills only the fields that are still empty, records each filled value's source in the
 * company's `enrichment`, writes the company's feed entry `enriched` (the fields filled, from/to,
 * credited to the job's creator as every job's writes are) in the fill's own statement
 * (updateWithFeed), and completes the job with the result. A redelivered message finds the
 * job completed and does nothing; a delivery that died before its commit left nothing behind, so
 * every failure is retried. The job notifies nobody: its creator reads the result on the job.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { companies, companyEnrichmentJobs } from '../../db/schema';
import { actorContext } from '../../db/tenant';
import { retryUnlessPermanent } from '../../jobs/faults';
import type { JobHandler } from '../../jobs/job-handler';
import {
  claimJob,
  failJobIn,
  finishJob,
  type JobClaim,
  type JobRef,
  type JobSpec,
  lockRunningJob,
} from '../../jobs/lifecycle';
import { updateWithFeed } from '../feed';
import { deriveFirmographics, ENRICHABLE_FIELDS, type EnrichableField } from './enrichment-derivation';
import { companyFields } from './fields';
import { websiteDomain } from './firmographics';
import { companyRecord } from './service';

const COLUMN_OF: Record<EnrichableField, 'website' | 'industryType' | 'country' | 'city' | 'employeeSize'> = {
  website: 'website',
  industry_type: 'industryType',
  country: 'country',
  city: 'city',
  employee_size: 'employeeSize',
};

const enrichmentJobSpec: JobSpec<typeof companyEnrichmentJobs> = {
  table: companyEnrichmentJobs,
  // One transaction, a few queries: a lease long enough for a slow database.
  leaseSeconds: 120,
};

async function enrich(db: Database, message: JobRef, claim: JobClaim<typeof companyEnrichmentJobs>): Promise<void> {
  await withTenant(db, message.orgId, async (tx) => {
    const job = await lockRunningJob(tx, enrichmentJobSpec, message);
    const [company] = await tx
      .select()
      .from(companies)
      .where(and(eq(companies.organizationId, message.orgId), eq(companies.id, job.companyId)))
      .for('update');
    if (!company || company.deletedAt) {
      await failJobIn(
        tx,
        enrichmentJobSpec,
        message,
        `Company ${job.companyId} was deleted before it could be enriched`,
      );
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
      // The fill and its feed entry `enriched` (the filled fields, from/to) in one statement, as a
      // person's edit writes its `updated` entry; the actor is the job's, credited to its creator.
      await updateWithFeed(tx, { orgId: message.orgId, ...actorContext(claim.actor) }, companyRecord, {
        where: and(eq(companies.organizationId, message.orgId), eq(companies.id, company.id)) as SQL,
        set: {
          ...set,
          enrichment: sql`${companies.enrichment} || ${JSON.stringify(records)}::jsonb`,
          updatedAt: sql`now()`,
        },
        // The entry compares the record's fields as the update returns them.
        returning: companyFields.selection,
        action: 'enriched',
      });
    }
    await finishJob(tx, enrichmentJobSpec, message, {
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

export const ENRICHMENT_STALLED_REASON = 'The enrichment kept stopping before it finished. Please ask again.';

export const companyEnrichmentJobHandler: JobHandler<'company-enrichment', typeof companyEnrichmentJobs> = {
  ...enrichmentJobSpec,
  retry: retryUnlessPermanent,
  reasons: { deadLettered: ENRICHMENT_DEAD_LETTER_REASON, stalled: ENRICHMENT_STALLED_REASON },
  run: async (message, { db }) => {
    const claim = await claimJob(db, enrichmentJobSpec, message, () => ({
      totalSteps: ENRICHABLE_FIELDS.length,
      processedSteps: 0,
    }));
    if (claim) await enrich(db, message, claim);
  },
};
