/**
 * An export's file is kept EXPORT_FILE_RETENTION_DAYS after the export finished, then deleted by
 * the minute cron: the row from stored_files, the bytes from R2. The job itself stays, completed,
 * with `file_id` null; its download answers 410 `export_expired`. An export is a copy of the
 * organization's leads, contacts or companies at one moment: kept for good, every export ever
 * asked for would be another full copy of that personal data, never updated and never deleted
 * with the records it copied. HubSpot's export links last 30 days; Salesforce keeps its data
 * export files 48 hours.
 */
import { sql } from 'drizzle-orm';
import { inBatches } from '../../db/batches';
import { withOwnDatabase, type Queryable } from '../../db/client';
import { exportJobs, storedFiles } from '../../db/schema';
import { readConfig, type Bindings } from '../../env';
import { storedFileUnused } from '../files';

export const EXPORT_FILE_RETENTION_DAYS = 30;

/** R2 deletes at most 1 000 keys a call. */
const R2_DELETE_LIMIT = 1000;

/** When a completed export's file expires (null while it is not completed). */
export function exportExpiresAt(finishedAt: Date | null): Date | null {
  return finishedAt ? new Date(finishedAt.getTime() + EXPORT_FILE_RETENTION_DAYS * 86_400_000) : null;
}

/**
 * Expires the files of exports that finished more than EXPORT_FILE_RETENTION_DAYS ago, across
 * organizations, as the tables' owner, at most `batch` exports a statement (oldest first,
 * export_jobs_file_expiry_idx). One statement clears the jobs' `file_id` and deletes the stored
 * files nothing else points at; the R2 objects go once it has committed. If that delete fails, the
 * bytes are left behind unreferenced (never a job pointing at missing bytes).
 */
export async function sweepExpiredExports(
  db: Queryable,
  bucket: R2Bucket,
  batch = 500,
  maxBatches = 20,
): Promise<number> {
  return inBatches(
    async () => {
      const result = await db.execute<{ expired: number; keys: string[] }>(sql`
        with due as (
          select id, organization_id, file_id from ${exportJobs}
          where status = 'completed' and file_id is not null
            and finished_at < now() - make_interval(days => ${EXPORT_FILE_RETENTION_DAYS})
          order by finished_at
          limit ${batch}
          for update skip locked
        ), cleared as (
          update ${exportJobs} e set file_id = null, updated_at = now()
          from due where e.id = due.id
          returning due.organization_id, due.file_id
        ), gone as (
          delete from ${storedFiles} f using cleared c
          where f.organization_id = c.organization_id and f.id = c.file_id and ${storedFileUnused}
          returning f.storage_key
        )
        select (select count(*) from cleared)::int as expired,
               coalesce((select array_agg(storage_key) from gone), '{}') as keys`);
      const { expired, keys } = result.rows[0] ?? { expired: 0, keys: [] };
      for (let start = 0; start < keys.length; start += R2_DELETE_LIMIT) {
        await bucket.delete(keys.slice(start, start + R2_DELETE_LIMIT));
      }
      return Number(expired);
    },
    batch,
    maxBatches,
  );
}

/** The cron trigger's entry, on its own connection. */
export async function runExportRetentionSweep(env: Bindings): Promise<number> {
  return withOwnDatabase(readConfig(env), (db) => sweepExpiredExports(db, env.FILES));
}
