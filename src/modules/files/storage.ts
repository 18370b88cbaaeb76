/**
 * Storing bytes in R2 (binding FILES) under `<organization id>/<category>/<uuid>/<name>` with
 * metadata in `stored_files`, and streaming them back only to the owning organization.
 */
import { and, eq } from 'drizzle-orm';
import { storedFiles } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';

export type FileCategory = 'upload' | 'document' | 'profile_image' | 'import' | 'export';

export interface StoredFile {
  id: number;
  storageKey: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  category: string;
  createdAt: Date;
}

/** A name safe for a storage key and a Content-Disposition header. */
export function safeFileName(name: string): string {
  const cleaned = name.normalize('NFKC').replace(/[^\w.\- ]+/g, '_').trim().slice(0, 150);
  return cleaned || 'file';
}

export function storageKeyFor(orgId: number, category: FileCategory, fileName: string): string {
  return `${orgId}/${category}/${crypto.randomUUID()}/${safeFileName(fileName)}`;
}

/** Writes the bytes to R2 and records the metadata row in the caller's transaction. */
export async function storeFile(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId'>,
  bucket: R2Bucket,
  input: { category: FileCategory; fileName: string; contentType: string; body: ReadableStream | ArrayBuffer | Uint8Array | string; sizeBytes?: number },
): Promise<StoredFile> {
  const storageKey = storageKeyFor(ctx.orgId, input.category, input.fileName);
  const object = await bucket.put(storageKey, input.body, { httpMetadata: { contentType: input.contentType } });
  const [row] = await ctx.db
    .insert(storedFiles)
    .values({
      organizationId: ctx.orgId,
      storageKey,
      fileName: safeFileName(input.fileName),
      contentType: input.contentType,
      sizeBytes: input.sizeBytes ?? object?.size ?? 0,
      category: input.category,
      createdBy: ctx.userId,
    })
    .returning();
  return row;
}

export async function findStoredFile(ctx: Pick<TenantContext, 'db' | 'orgId'>, id: number): Promise<StoredFile> {
  const [row] = await ctx.db.select().from(storedFiles).where(tenantWhere(ctx, storedFiles, and(eq(storedFiles.id, id))));
  if (!row) throw new NotFound('File', id);
  return row;
}

/** A streaming download response with the stored content type and a Content-Disposition. */
export async function fileResponse(bucket: R2Bucket, file: StoredFile, disposition: 'attachment' | 'inline' = 'attachment'): Promise<Response> {
  const object = await bucket.get(file.storageKey);
  if (!object) throw new NotFound('File', file.id);
  return new Response(object.body, {
    headers: {
      'content-type': file.contentType,
      'content-length': String(object.size),
      'content-disposition': `${disposition}; filename="${file.fileName.replace(/"/g, '')}"`,
      'x-content-type-options': 'nosniff',
    },
  });
}
