/**
 * The queue consumer's side of a CRM import (job kind 'crm-import'): reads the CRM a page at a
 * time (companies first, so contacts link to them by name, then contacts) and commits each page's
 * records, outcomes, counters and checkpoint (phase, the CRM's cursor of the next page, records
 * read) in one transaction, under the job row's lock and only if the checkpoint is still the one
 * the page started from. A redelivered or re-sent message resumes at the checkpoint; a page it
 * had read but not committed is read again. The CRM id each record leaves on its lead or company
 * (unique per organization) makes a second run, or a page written twice, update instead of duplicate.
 * Retry policy: the CRM unavailable, or a database fault, is retried by the queue; HubSpot's 429
 * is snoozed by the runner for HubSpot's own wait, no retry spent (the adapter never sleeps; at
 * most 24 h of throttling without a page committed, docs/jobs.md); a refused credential, or
 * an OAuth token that can no longer be renewed, marks the connection needs_reconnect and fails
 * the job.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { withTenant, type Database } from '../../db/client';
import { connections, crmImportJobs, crmImportRecords, type CrmImportPhase } from '../../db/schema';
import { isTransientFault, JobSuperseded, PermanentJobFault, userFacingJobError } from '../../jobs/faults';
import type { Bindings } from '../../env';
import type { JobContext, JobHandler } from '../../jobs/job-handler';
import {
  claimJob,
  finishJob,
  heartbeat,
  type JobClaim,
  type JobSpec,
  jobTenantContext,
  lockRunningJob,
} from '../../jobs/lifecycle';
import { withTenantEffects } from '../../core/transaction-effects';
import { markNeedsReconnect, poolWriter, type ConnectionRow } from '../../providers/connections';
import type { CrmObjectType, CrmProvider } from '../../providers/crm/interface';
import { crmProviderFor } from '../../providers/crm/select';
import { ConnectionNeedsReconnect, ProviderFailure } from '../../providers/failures';
import { NOTIFICATION_TYPES } from '../notifications';
import type { CrmImportOptions } from './crm-import';
import type { CrmMapping } from './crm-mapping';
import { type NumberedRecord, type PageTally, writeCompanyPage, writeContactPage } from './crm-pages';

/** Records per CRM request: HubSpot's maximum page. */
export const CRM_PAGE_SIZE = 100;

const spec: JobSpec<typeof crmImportJobs> = {
  table: crmImportJobs,
  // A page of 100 records commits in well under a minute; a 429 is never waited out inside it.
  leaseSeconds: 300,
  notice: {
    typeId: NOTIFICATION_TYPES.importFinished,
    completed: (job) => ({
      title: `CRM import finished: ${job.createdCount} created, ${job.updatedCount} updated, ${job.skippedCount} skipped, ${job.failedCount} failed`,
      data: { crm_import_job_id: job.id, status: 'completed' },
    }),
    failed: (job) => ({ title: 'CRM import failed', data: { crm_import_job_id: job.id, status: 'failed' } }),
  },
};

type Claim = JobClaim<typeof crmImportJobs>;
interface Checkpoint {
  phase: CrmImportPhase;
  cursor: string | null;
  recordsRead: number;
  phaseRead: number;
}

/** The source every record of this connection carries: the CRM and the account, so two portals never collide. */
export function crmSource(connection: Pick<ConnectionRow, 'provider' | 'identity'>): string {
  return `${connection.provider}:${connection.identity}`;
}

const nextPhase = (phase: CrmImportPhase): CrmImportPhase => (phase === 'companies' ? 'contacts' : 'done');

async function loadConnection(db: Database, claim: Claim): Promise<ConnectionRow> {
  const [row] = await withTenant(db, claim.orgId, (tx) =>
    tx
      .select()
      .from(connections)
      .where(and(eq(connections.id, claim.job.connectionId ?? 0), isNull(connections.deletedAt))),
  );
  if (!row) throw new PermanentJobFault('The CRM connection was disconnected before the import finished.');
  if (row.state !== 'active') throw new PermanentJobFault(`The CRM connection is ${row.state.replace('_', ' ')}.`);
  return row;
}

function inWindow(updatedAt: string | null, options: CrmImportOptions): boolean {
  if (!options.from && !options.to) return true;
  if (!updatedAt) return false;
  const at = Date.parse(updatedAt);
  return (!options.from || at >= Date.parse(options.from)) && (!options.to || at <= Date.parse(options.to));
}

/** Writes one page and moves the checkpoint, atomically; JobSuperseded when another delivery moved it first. */
async function commitPage(
  db: Database,
  env: Bindings,
  claim: Claim,
  start: Checkpoint,
  next: Checkpoint,
  total: number | null,
  work: (ctx: ReturnType<typeof jobTenantContext>) => Promise<PageTally>,
  read: number,
): Promise<void> {
  await withTenantEffects(db, env, claim.orgId, async (tx, effects) => {
    const job = await lockRunningJob(tx, spec, claim);
    if (job.phase !== start.phase || job.cursor !== start.cursor || job.recordsRead !== start.recordsRead) {
      throw new JobSuperseded();
    }
    const tally = await work(jobTenantContext(claim, tx, effects));
    if (tally.outcomes.length > 0) {
      await tx.insert(crmImportRecords).values(
        tally.outcomes.map((outcome) => ({
          organizationId: claim.orgId,
          jobId: claim.jobId,
          objectType: outcome.objectType,
          externalId: outcome.externalId,
          outcome: outcome.outcome,
          field: outcome.field,
          message: outcome.message.slice(0, 1000),
          recordId: outcome.recordId,
        })),
      );
    }
    await tx
      .update(crmImportJobs)
      .set({
        phase: next.phase,
        cursor: next.cursor,
        recordsRead: next.recordsRead,
        phaseRead: next.phaseRead,
        processedCount: job.processedCount + read,
        createdCount: job.createdCount + tally.created,
        updatedCount: job.updatedCount + tally.updated,
        skippedCount: job.skippedCount + tally.skipped,
        failedCount: job.failedCount + tally.failed,
        ...(total !== null ? { totalEstimate: total } : {}),
        ...heartbeat(spec),
      })
      .where(eq(crmImportJobs.id, claim.jobId));
  });
}

const RECONNECT_REASON = 'The CRM refused the connection’s credential: reconnect it, then start the import again.';

/**
 * A refused credential: the connection needs its owner (one notice, committed on its own), and the
 * job cannot go on. So for an OAuth token that could not be renewed (invalid_grant: the OAuth
 * layer already marked the connection and told its owner).
 */
async function refusedCredential(db: Database, connection: ConnectionRow, error: unknown): Promise<never> {
  if (error instanceof ProviderFailure && error.kind === 'auth') {
    await withTenant(db, connection.organizationId, (tx) => markNeedsReconnect(tx, connection, error.reason));
    throw new PermanentJobFault(RECONNECT_REASON);
  }
  if (error instanceof ConnectionNeedsReconnect) throw new PermanentJobFault(RECONNECT_REASON);
  throw error;
}

async function readPage(
  provider: CrmProvider,
  type: CrmObjectType,
  entries: Record<string, string>,
  at: Checkpoint,
  size: number,
) {
  return provider.listPage(type, { after: at.cursor, limit: size, properties: Object.keys(entries).sort() });
}

export async function runCrmImport(message: { orgId: number; jobId: number }, { db, env }: JobContext): Promise<void> {
  const claim = await claimJob(db, spec, message);
  if (!claim) return;
  const connection = await loadConnection(db, claim);
  const provider = crmProviderFor({ env, writer: poolWriter(db) }, connection);
  const source = crmSource(connection);
  const mapping: CrmMapping = { lead: claim.job.mapping.leads ?? {}, company: claim.job.mapping.companies ?? {} };
  const options = claim.job.options as CrmImportOptions;
  let at: Checkpoint = {
    phase: claim.job.phase,
    cursor: claim.job.cursor,
    recordsRead: claim.job.recordsRead,
    phaseRead: claim.job.phaseRead,
  };
  /** Records of the phases before this one, for the total. */
  let before = at.phase === 'contacts' ? at.recordsRead - at.phaseRead : 0;
  while (at.phase !== 'done') {
    const type: CrmObjectType = at.phase === 'companies' ? 'companies' : 'contacts';
    const entries = type === 'companies' ? mapping.company : mapping.lead;
    const remaining = options.limit ? options.limit - at.phaseRead : Number.POSITIVE_INFINITY;
    const skipPhase = Object.keys(entries).length === 0 || remaining <= 0;
    const page = skipPhase
      ? { records: [], next: null, total: null }
      : await readPage(provider, type, entries, at, Math.min(CRM_PAGE_SIZE, remaining)).catch((error) =>
          refusedCredential(db, connection, error),
        );
    const records = page.records.slice(0, Number.isFinite(remaining) ? remaining : undefined);
    const phaseRead = at.phaseRead + records.length;
    const phaseDone =
      !page.next || (options.limit !== null && options.limit !== undefined && phaseRead >= options.limit);
    const next: Checkpoint = phaseDone
      ? { phase: nextPhase(at.phase), cursor: null, recordsRead: at.recordsRead + records.length, phaseRead: 0 }
      : { phase: at.phase, cursor: page.next, recordsRead: at.recordsRead + records.length, phaseRead };
    const phaseTotal = page.total === null ? null : Math.min(page.total, options.limit ?? page.total);
    const total = phaseTotal === null ? null : before + phaseTotal;
    const numbered: NumberedRecord[] = records
      .map((record, index) => ({ rowNumber: at.recordsRead + index + 1, record }))
      .filter(({ record }) => inWindow(record.updatedAt, options));
    const outside = records.length - numbered.length;
    await commitPage(
      db,
      env,
      claim,
      at,
      next,
      total,
      async (ctx) => {
        const tally =
          type === 'companies'
            ? await writeCompanyPage(ctx, source, mapping, numbered)
            : await writeContactPage(ctx, source, mapping, numbered);
        return { ...tally, skipped: tally.skipped + outside };
      },
      records.length,
    );
    if (phaseDone) before = next.recordsRead;
    at = next;
  }
  await withTenant(db, claim.orgId, (tx) => finishJob(tx, spec, claim));
}

export const crmImportJobHandler: JobHandler<'crm-import', typeof crmImportJobs> = {
  ...spec,
  retry: {
    permanentReason: (error) => {
      if (error instanceof PermanentJobFault) return error.message;
      if (error instanceof ProviderFailure)
        return error.kind === 'unavailable' ? null : `The CRM refused the import: ${error.reason}.`;
      return isTransientFault(error) ? null : `The import failed: ${userFacingJobError(error)}.`;
    },
  },
  reasons: {
    deadLettered:
      'The CRM import stopped: every attempt failed. Records already imported are kept; start it again to import the rest (nothing is duplicated).',
    stalled:
      'The CRM import kept stopping before it finished. Records already imported are kept; start it again to import the rest (nothing is duplicated).',
  },
  run: runCrmImport,
};
