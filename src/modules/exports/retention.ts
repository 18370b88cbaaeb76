/**
 * An export's file is kept EXPORT_FILE_RETENTION_DAYS after the export finished, then deleted by
 * the minute cron: the row from stored_files, the bytes from R2. The job itself stays, completed,
 * with `file_id` null; its download answers 410 `export_expired`. An export is a copy of the
 * organization's leads, contacts or companies at one moment: kept for good, every export ever
 * asked for would be another full copy of that personal data, never updated and never deleted
 * with the records it copied. Hosted CRMs keep export files for a while, not for good
 * (Salesforce's data export files: 48 hours); 30 days leaves room to fetch a file late.
 */
import { sql } from 'drizzle-orm';
import { inBatches } from '../../db/batches';
import type { Queryable } from '../../db/client';
import { exportJobs, storedFiles } from '../../db/schema';
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
 * organizations, as the tables' owner, at most `batch` exports a round, oldest first
 * (export_jobs_file_expiry_idx). The bytes go first, then one statement clears the jobs'
 * `file_id` and deletes the stored files nothing else points at. Each step is safe to repeat, so
 * a round that fails half-way (R2 or the database unavailable) is finished by the next run: at
 * worst an expired export's download is a 404 for a minute, and no bytes are ever left behind
 * unreferenced.
 */
export async function sweepExpiredExports(
  db: Queryable,
  bucket: R2Bucket,
  batch = 500,
  maxBatches = 20,
): Promise<number> {
  return inBatches(
    async () => {
      const due = await db.execute<{ id: number; file_id: number; storage_key: string | null }>(sql`
        select e.id, e.file_id, case when f.id is not null and ${storedFileUnused} then f.storage_key end as storage_key
        from ${exportJobs} e
        left join ${storedFiles} f on f.organization_id = e.organization_id and f.id = e.file_id
        where e.status = 'completed' and e.file_id is not null
          and e.finished_at < now() - make_interval(days => ${EXPORT_FILE_RETENTION_DAYS})
        order by e.finished_at
        limit ${batch}`);
      if (due.rows.length === 0) return 0;
      const keys = due.rows.flatMap((row) => (row.storage_key ? [row.storage_key] : []));
      for (let start = 0; start < keys.length; start += R2_DELETE_LIMIT) {
        await bucket.delete(keys.slice(start, start + R2_DELETE_LIMIT));
      }
      const ids = `{${due.rows.map((row) => Number(row.id)).join(',')}}`;
      await db.execute(sql`
        with cleared as (
          update ${exportJobs} e set file_id = null, updated_at = now()
          from (select e2.id, e2.file_id from ${exportJobs} e2 where e2.id = any(${ids}::bigint[]) and e2.file_id is not null) d
          where e.id = d.id
          returning e.organization_id, d.file_id
        )
        delete from ${storedFiles} f using cleared c
        where f.organization_id = c.organization_id and f.id = c.file_id and ${storedFileUnused}`);
      return due.rows.length;
    },
    batch,
    maxBatches,
  );
}
