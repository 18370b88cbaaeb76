/**
 * Storing bytes in R2 (binding FILES) under `<organization id>/<category>/<uuid>/<name>` with
 * metadata in `stored_files`, and streaming them back only to the owning organization.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { attachments, calls, companies, contacts, leads, storedFiles } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { isoTimestamp } from '../../core/schemas';
import type { AcceptedUpload } from './upload-policy';

export type FileCategory =
  | 'upload'
  | 'document'
  | 'profile_image'
  | 'company_logo'
  | 'import'
  | 'export'
  | 'call_recording';

export interface StoredFile {
  id: number;
  storageKey: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  category: string;
  createdAt: Date;
}

/**
 * A file's name as kept and shown: the user's own letters and digits in any script (`Müller`,
 * `見積書`), with anything that could act as a path, a header delimiter or a control character
 * (`/ \\ " ; : CR LF …`) replaced by `_`; at most 150 characters.
 */
export function safeFileName(name: string): string {
  const cleaned = Array.from(
    name
      .normalize('NFKC')
      .replace(/[^\p{L}\p{M}\p{N}_.\-() ]+/gu, '_')
      .trim(),
  )
    .slice(0, 150)
    .join('')
    .trim();
  return cleaned || 'file';
}

/** The name in ASCII (accents dropped, other letters `_`): storage keys and the plain `filename=`. */
export function asciiFileName(name: string): string {
  return (
    safeFileName(name)
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^\w.\-() ]+/g, '_')
      .trim() || 'file'
  );
}

/**
 * `Content-Disposition` for a stored name (RFC 6266): `filename="…"` in ASCII, and, when the name
 * is not plain ASCII, `filename*=UTF-8''…` with the name itself, which browsers prefer.
 */
export function contentDisposition(disposition: 'attachment' | 'inline', fileName: string): string {
  const ascii = asciiFileName(fileName);
  if (ascii === fileName) return `${disposition}; filename="${ascii}"`;
  // RFC 5987 attr-char: encodeURIComponent also leaves ! ' ( ) * as they are.
  const encoded = encodeURIComponent(fileName).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function storageKeyFor(orgId: number, category: FileCategory, fileName: string): string {
  return `${orgId}/${category}/${crypto.randomUUID()}/${asciiFileName(fileName)}`;
}

/** Bytes written to R2 under a new key and not recorded yet: the values of their `stored_files` row. */
export interface PutFile {
  storageKey: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  category: FileCategory;
}

/**
 * Writes the bytes to R2 under a new key of the organization. The object is deleted again if the
 * caller's transaction rolls back (when the caller's context carries transaction effects, as every
 * API request's does). The caller records it: `storeFile`, or `storedFileInsert` in a statement of
 * its own.
 */
export async function putFile(
  ctx: Pick<TenantContext, 'orgId' | 'effects'>,
  bucket: R2Bucket,
  input: {
    category: FileCategory;
    fileName: string;
    contentType: string;
    body: ReadableStream | ArrayBuffer | Uint8Array | string;
    sizeBytes?: number;
  },
): Promise<PutFile> {
  const storageKey = storageKeyFor(ctx.orgId, input.category, input.fileName);
  const object = await bucket.put(storageKey, input.body, { httpMetadata: { contentType: input.contentType } });
  ctx.effects?.afterRollback(() => bucket.delete(storageKey));
  return {
    storageKey,
    fileName: safeFileName(input.fileName),
    contentType: input.contentType,
    sizeBytes: input.sizeBytes ?? object?.size ?? 0,
    category: input.category,
  };
}

/**
 * The `stored_files` insert of a put file, returning its row, for a data-modifying CTE; `when`
 * makes it conditional (nothing is inserted where it is false).
 */
export function storedFileInsert(
  ctx: Pick<TenantContext, 'orgId' | 'userId'>,
  file: PutFile,
  when: SQL = sql`true`,
): SQL {
  return sql`insert into ${storedFiles} (organization_id, storage_key, file_name, content_type, size_bytes, category, created_by)
    select ${ctx.orgId}::bigint, ${file.storageKey}::text, ${file.fileName}::text, ${file.contentType}::text, ${file.sizeBytes}::bigint, ${file.category}::text, ${ctx.userId}::bigint
    where ${when}
    returning *`;
}

/** Writes the bytes to R2 (`putFile`) and records the metadata row in the caller's transaction. */
export async function storeFile(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'effects'>,
  bucket: R2Bucket,
  input: Parameters<typeof putFile>[2],
): Promise<StoredFile> {
  const file = await putFile(ctx, bucket, input);
  const [row] = await ctx.db
    .insert(storedFiles)
    .values({ organizationId: ctx.orgId, ...file, createdBy: ctx.userId })
    .returning();
  return row;
}

/**
 * The live or the deleted lead, contact or company that points at `stored_files` (an attachment, a
 * profile image, a logo, or the recording of a call with it).
 */
function referencedBy(deleted: boolean) {
  const state = deleted ? sql`is not null` : sql`is null`;
  const file = storedFiles.id;
  const org = storedFiles.organizationId;
  return sql`(
    exists (select 1 from ${attachments} a join ${leads} l on l.organization_id = a.organization_id and l.id = a.subject_id
      where a.organization_id = ${org} and a.file_id = ${file} and a.subject_type = 'lead' and l.deleted_at ${state})
    or exists (select 1 from ${attachments} a join ${contacts} ct on ct.organization_id = a.organization_id and ct.id = a.subject_id
      where a.organization_id = ${org} and a.file_id = ${file} and a.subject_type = 'contact' and ct.deleted_at ${state})
    or exists (select 1 from ${attachments} a join ${companies} co on co.organization_id = a.organization_id and co.id = a.subject_id
      where a.organization_id = ${org} and a.file_id = ${file} and a.subject_type = 'company' and co.deleted_at ${state})
    or exists (select 1 from ${leads} l where l.organization_id = ${org} and l.profile_image_file_id = ${file} and l.deleted_at ${state})
    or exists (select 1 from ${companies} co where co.organization_id = ${org} and co.logo_file_id = ${file} and co.deleted_at ${state})
    or exists (select 1 from ${calls} c join ${leads} l on l.organization_id = c.organization_id and l.id = c.lead_id
      where c.organization_id = ${org} and c.recording_file_id = ${file} and l.deleted_at ${state})
    or exists (select 1 from ${calls} c join ${contacts} ct on ct.organization_id = c.organization_id and ct.id = c.contact_id
      where c.organization_id = ${org} and c.recording_file_id = ${file} and ct.deleted_at ${state})
  )`;
}

/**
 * A file is served as long as a live record points at it, or none ever did (an upload not attached
 * yet, an export, the recording of a call with no lead or contact). A file that only deleted
 * records point at (a soft-deleted lead's document or profile image, a deleted contact's
 * attachment, the recording of a deleted lead's or contact's call) is 404 like its record, on
 * every route that serves it or takes its id; restoring the record brings it back.
 */
const servable = sql`(${referencedBy(false)} or not ${referencedBy(true)})`;

export async function findStoredFile(ctx: Pick<TenantContext, 'db' | 'orgId'>, id: number): Promise<StoredFile> {
  const [row] = await ctx.db
    .select()
    .from(storedFiles)
    .where(tenantWhere(ctx, storedFiles, and(eq(storedFiles.id, id), servable)));
  if (!row) throw new NotFound('File', id);
  return row;
}

/** A streaming download response with the stored content type and a Content-Disposition. */
export async function fileResponse(
  bucket: R2Bucket,
  file: StoredFile,
  disposition: 'attachment' | 'inline' = 'attachment',
): Promise<Response> {
  const object = await bucket.get(file.storageKey);
  if (!object) throw new NotFound('File', file.id);
  return new Response(object.body, {
    headers: {
      'content-type': file.contentType,
      'content-length': String(object.size),
      'content-disposition': contentDisposition(disposition, file.fileName),
      'x-content-type-options': 'nosniff',
      // Tenant data: never kept by shared caches.
      'cache-control': 'private, no-store',
    },
  });
}

/** The R2 write of an upload that passed the policy (upload-policy.ts): `putFile`'s input. */
function uploadBody(category: FileCategory, upload: AcceptedUpload): Parameters<typeof putFile>[2] {
  return {
    category,
    fileName: upload.fileName,
    contentType: upload.contentType,
    // R2 needs the length of a streamed body up front.
    body: upload.file.stream().pipeThrough(new FixedLengthStream(upload.file.size)),
    sizeBytes: upload.file.size,
  };
}

/** Streams an upload that passed the policy (upload-policy.ts) to R2 and records it. */
export function storeUpload(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'effects'>,
  bucket: R2Bucket,
  category: FileCategory,
  upload: AcceptedUpload,
): Promise<StoredFile> {
  return storeFile(ctx, bucket, uploadBody(category, upload));
}

/** Streams an upload that passed the policy to R2, for the caller to record (`storedFileInsert`). */
export function putUpload(
  ctx: Pick<TenantContext, 'orgId' | 'effects'>,
  bucket: R2Bucket,
  category: FileCategory,
  upload: AcceptedUpload,
): Promise<PutFile> {
  return putFile(ctx, bucket, uploadBody(category, upload));
}

/**
 * For a statement over `stored_files f`: nothing points at the file `f` any more (no attachment,
 * no lead profile image, no company logo, no call recording), so its row and bytes may go.
 * Set-based: each test is an index probe per file (calls by calls_recording_file_idx).
 */
export const storedFileUnused = sql`not exists (select 1 from ${attachments} a where a.organization_id = f.organization_id and a.file_id = f.id)
      and not exists (select 1 from ${leads} l where l.organization_id = f.organization_id and l.profile_image_file_id = f.id)
      and not exists (select 1 from ${companies} c where c.organization_id = f.organization_id and c.logo_file_id = f.id)
      and not exists (select 1 from ${calls} k where k.organization_id = f.organization_id and k.recording_file_id = f.id)`;

/**
 * Removes a stored file (row and bytes) once nothing points at it any more: no attachment, no
 * lead profile image, no company logo and no call recording. One statement checks and deletes the row; the bytes
 * go only once the transaction has committed (`ctx.effects`), so a request that then fails and
 * rolls back keeps its file whole. Without a transaction the statement has committed already.
 */
export async function deleteStoredFileIfUnused(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'effects'>,
  bucket: R2Bucket,
  fileId: number,
): Promise<boolean> {
  const orgId = ctx.orgId;
  const result = await ctx.db.execute<{ storage_key: string }>(sql`
    delete from ${storedFiles} f
    where f.organization_id = ${orgId} and f.id = ${fileId} and ${storedFileUnused}
    returning f.storage_key`);
  const storageKey = result.rows[0]?.storage_key;
  if (!storageKey) return false;
  if (ctx.effects) ctx.effects.afterCommit(() => bucket.delete(storageKey));
  else await bucket.delete(storageKey);
  return true;
}

export function storedFileDownloadUrl(id: number): string {
  return `/api/storage-file/download/${id}`;
}

/** The wire shape of a stored file's metadata. */
export function presentStoredFile(file: StoredFile) {
  return {
    id: file.id,
    file_name: file.fileName,
    content_type: file.contentType,
    size_bytes: file.sizeBytes,
    category: file.category,
    created_at: isoTimestamp(file.createdAt) as string,
    download_url: storedFileDownloadUrl(file.id),
  };
}
