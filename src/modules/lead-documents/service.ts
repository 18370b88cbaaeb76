/**
 * Documents of a lead: bytes in R2 (category `document`, key under the organization id),
 * metadata in `stored_files`, and an `attachments` row (subject lead, provider storage,
 * category document) that ties the file to the lead. Only the owning organization sees or
 * downloads them; a deleted lead's documents are 404 too.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, getTableName, ilike, isNull, sql } from 'drizzle-orm';
import { attachments, leads, storedFiles } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { changesSql, feedEntriesFrom } from '../feed';
import { requireLead } from '../leads';
import { deleteStoredFileIfUnused, fileResponse, findStoredFile, putUpload, storedFileInsert } from '../files';
import { acceptUpload } from '../files';
import { documentListFilters, type AddDocumentInput } from './schemas';

const documentFields = {
  id: attachments.id,
  leadId: attachments.subjectId,
  fileId: storedFiles.id,
  fileName: storedFiles.fileName,
  contentType: storedFiles.contentType,
  sizeBytes: storedFiles.sizeBytes,
  documentType: attachments.documentType,
  description: attachments.description,
  createdBy: attachments.createdBy,
  createdAt: attachments.createdAt,
};

type DocumentRow = {
  id: number;
  leadId: number;
  fileId: number;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  documentType: string | null;
  description: string | null;
  createdBy: number | null;
  createdAt: Date;
};

function presentDocument(row: DocumentRow) {
  return {
    id: row.id,
    lead_id: row.leadId,
    file_id: row.fileId,
    file_name: row.fileName,
    content_type: row.contentType,
    size_bytes: row.sizeBytes,
    document_type: row.documentType,
    description: row.description,
    download_url: `/api/lead/document/download/${row.id}`,
    created_by: row.createdBy,
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

const isLeadDocument = and(
  eq(attachments.subjectType, 'lead'),
  eq(attachments.category, 'document'),
  eq(attachments.provider, 'storage'),
);

function documentsQuery(ctx: TenantContext) {
  return ctx.db
    .select(documentFields)
    .from(attachments)
    .innerJoin(storedFiles, eq(storedFiles.id, attachments.fileId))
    .innerJoin(leads, and(eq(leads.id, attachments.subjectId), isNull(leads.deletedAt)));
}

async function findDocument(ctx: TenantContext, id: number): Promise<DocumentRow> {
  const [row] = await documentsQuery(ctx).where(tenantWhere(ctx, attachments, eq(attachments.id, id), isLeadDocument));
  if (!row) throw new NotFound('Document', id);
  return row;
}

/**
 * The bytes go to R2 first (nothing for a lead the caller cannot see), then one statement records
 * them: the stored file, the document and its feed entry, answered through CTEs named after their
 * tables (the statement's snapshot shows neither row through the tables), the COMMIT with it. The
 * lead deleted meanwhile: nothing is written, the bytes are removed, and the answer is its 404.
 */
export async function addDocument(ctx: TenantContext, bucket: R2Bucket, input: AddDocumentInput) {
  // The lead first: nothing is written to R2 for a lead the caller cannot see.
  await requireLead(ctx, input.lead_id);
  const upload = await acceptUpload(input.file, 'document', 'file');
  const file = await putUpload(ctx, bucket, 'document', upload);
  const liveLead = sql`exists (select 1 from ${leads} l where l.organization_id = ${ctx.orgId} and l.id = ${input.lead_id} and l.deleted_at is null)`;
  const writtenFile = ctx.db.$with('written_file', {}).as(storedFileInsert(ctx, file, liveLead));
  const writtenDocument = ctx.db.$with('written_document', {}).as(sql`
    insert into ${attachments} (organization_id, subject_type, subject_id, provider, category, name, mime_type, file_id, document_type, description, created_by)
    select ${ctx.orgId}::bigint, 'lead', ${input.lead_id}::bigint, 'storage', 'document', f.file_name, f.content_type, f.id,
      ${input.document_type ?? null}::text, ${input.description ?? null}::text, ${ctx.userId}::bigint
    from written_file f
    returning *`);
  const feed = ctx.db.$with('document_feed', {}).as(
    feedEntriesFrom(ctx, {
      from: sql`written_document d`,
      modelType: 'lead',
      modelId: sql`d.subject_id`,
      action: 'document_added',
      changes: changesSql({ document_id: { to: sql`d.id` }, file_name: { to: sql`d.name` } }),
    }),
  );
  const asFiles = ctx.db.$with(getTableName(storedFiles), {}).as(sql`select * from written_file`);
  const asAttachments = ctx.db.$with(getTableName(attachments), {}).as(sql`select * from written_document`);
  // The write is the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const [row] = await ctx.db
    .with(writtenFile, writtenDocument, feed, asFiles, asAttachments)
    .select(documentFields)
    .from(attachments)
    .innerJoin(storedFiles, eq(storedFiles.id, attachments.fileId));
  if (!row) {
    // Nothing was written (the lead was deleted after its check): its bytes go too.
    await bucket.delete(file.storageKey);
    throw new NotFound('Lead', input.lead_id);
  }
  return presentDocument(row);
}

export const documentList = defineList({
  sort: { id: attachments.id, created_at: attachments.createdAt, file_name: attachments.name },
  filters: documentListFilters,
  search: (term) => ilike(attachments.name, containsPattern(term)),
  createdAt: attachments.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...documentFields, ...columns })
        .from(attachments)
        .innerJoin(storedFiles, eq(storedFiles.id, attachments.fileId))
        .$dynamic(),
    where: tenantWhere(
      ctx,
      attachments,
      isLeadDocument,
      eq(attachments.subjectId, params.lead_id),
      params.document_type ? eq(attachments.documentType, params.document_type) : undefined,
    ),
  }),
  present: (row) => presentDocument(row),
});
export const DocumentListQuery = documentList.query;

export async function listDocuments(ctx: TenantContext, params: z.output<typeof DocumentListQuery>) {
  await requireLead(ctx, params.lead_id);
  return documentList.run(ctx, params);
}

export async function downloadDocument(ctx: TenantContext, bucket: R2Bucket, id: number): Promise<Response> {
  const document = await findDocument(ctx, id);
  return fileResponse(bucket, await findStoredFile(ctx, document.fileId));
}

/**
 * Removes the document; its bytes go too unless the file is still attached elsewhere. One statement
 * deletes the document of a live lead with its feed entry; the file's checked removal follows,
 * carrying the COMMIT (the bytes go after it).
 */
export async function deleteDocument(ctx: TenantContext, bucket: R2Bucket, id: number) {
  const result = await ctx.db.execute<{ file_id: number }>(sql`
    with removed as (
      delete from ${attachments}
      using ${storedFiles} f, ${leads} l
      where ${tenantWhere(ctx, attachments, eq(attachments.id, id), isLeadDocument)}
        and f.organization_id = ${attachments.organizationId} and f.id = ${attachments.fileId}
        and l.organization_id = ${attachments.organizationId} and l.id = ${attachments.subjectId} and l.deleted_at is null
      returning ${attachments.id} as id, ${attachments.subjectId} as subject_id, ${attachments.fileId} as file_id, f.file_name
    ), feed as (${feedEntriesFrom(ctx, {
      from: sql`removed r`,
      modelType: 'lead',
      modelId: sql`r.subject_id`,
      action: 'document_deleted',
      changes: changesSql({ document_id: { from: sql`r.id` }, file_name: { from: sql`r.file_name` } }),
    })})
    select file_id from removed`);
  const removed = result.rows[0];
  if (!removed) throw new NotFound('Document', id);
  // The file's removal is the request's last statement: its COMMIT goes with it (the bytes after it).
  ctx.commitWithNext?.();
  await deleteStoredFileIfUnused(ctx, bucket, Number(removed.file_id));
  return { id };
}
