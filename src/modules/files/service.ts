/**
 * Generic files: uploads kept in our storage (R2) and attachments of files to a lead, contact
 * or company, either our stored files or files living in a drive (by https link). The subject
 * and any stored file must belong to the caller's organization, else 404.
 */
import type { z } from '@hono/zod-openapi';
import { eq, getTableName, ilike, isNull, sql } from 'drizzle-orm';
import { attachments, companies, contacts, storedFiles } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { NotFound, ValidationFailed } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { changesSql, feedEntriesFrom } from '../feed';
import { requireLead } from '../leads';
import { attachmentListFilters, type AttachFileInput, type SUBJECT_TYPES } from './schemas';
import { findStoredFile, presentStoredFile, storedFileDownloadUrl, storeUpload } from './storage';
import { acceptUpload } from './upload-policy';

export type SubjectType = (typeof SUBJECT_TYPES)[number];

export async function uploadStorageFile(ctx: TenantContext, bucket: R2Bucket, file: File) {
  const upload = await acceptUpload(file, 'document', 'file');
  // The file's row is the request's only statement: its COMMIT goes with it (the bytes go to R2 first).
  ctx.commitWithNext?.();
  return presentStoredFile(await storeUpload(ctx, bucket, 'upload', upload));
}

/** The lead, contact or company exists in the caller's organization and is not deleted. */
export async function requireSubject(ctx: TenantContext, subjectType: SubjectType, subjectId: number): Promise<void> {
  if (subjectType === 'lead') {
    await requireLead(ctx, subjectId);
    return;
  }
  const table = subjectType === 'contact' ? contacts : companies;
  const [row] = await ctx.db
    .select({ id: table.id })
    .from(table)
    .where(tenantWhere(ctx, table, eq(table.id, subjectId), isNull(table.deletedAt)));
  if (!row) throw new NotFound(subjectType === 'contact' ? 'Contact' : 'Company', subjectId);
}

const attachmentFields = {
  id: attachments.id,
  subjectType: attachments.subjectType,
  subjectId: attachments.subjectId,
  provider: attachments.provider,
  category: attachments.category,
  name: attachments.name,
  mimeType: attachments.mimeType,
  webUrl: attachments.webUrl,
  externalId: attachments.externalId,
  fileId: attachments.fileId,
  sizeBytes: storedFiles.sizeBytes,
  documentType: attachments.documentType,
  description: attachments.description,
  createdBy: attachments.createdBy,
  createdAt: attachments.createdAt,
};

type AttachmentRow = {
  id: number;
  subjectType: string;
  subjectId: number;
  provider: string;
  category: string;
  name: string;
  mimeType: string | null;
  webUrl: string | null;
  externalId: string | null;
  fileId: number | null;
  sizeBytes: number | null;
  documentType: string | null;
  description: string | null;
  createdBy: number | null;
  createdAt: Date;
};

function presentAttachment(row: AttachmentRow) {
  return {
    id: row.id,
    subject_type: row.subjectType as SubjectType,
    subject_id: row.subjectId,
    provider: row.provider,
    category: row.category,
    name: row.name,
    mime_type: row.mimeType,
    web_url: row.webUrl,
    external_id: row.externalId,
    file_id: row.fileId,
    size_bytes: row.sizeBytes,
    document_type: row.documentType,
    description: row.description,
    download_url: row.fileId === null ? null : storedFileDownloadUrl(row.fileId),
    created_by: row.createdBy,
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

/** Records an attachment; a `storage` file takes its name and type from the stored file, not the input. */
export async function attachFile(ctx: TenantContext, input: AttachFileInput) {
  await requireSubject(ctx, input.subject_type, input.subject_id);
  const stored = input.provider === 'storage' ? await findStoredFile(ctx, Number(input.file.id)) : null;
  // An export's file is deleted with its export after 30 days (exports/retention.ts); attached, it would outlive it.
  if (stored?.category === 'export')
    throw ValidationFailed.field(
      'file.id',
      `file ${stored.id} is an export's file, which expires with its export: download it and upload it to attach it`,
    );
  // One statement: the attachment, its feed entry and the answer, read through a CTE named after
  // the table (the statement's snapshot does not show the new row through it); the COMMIT with it.
  const written = ctx.db.$with('written_attachment', {}).as(sql`
    insert into ${attachments} (organization_id, subject_type, subject_id, provider, category, name, mime_type, web_url, external_id, file_id, created_by)
    values (${ctx.orgId}, ${input.subject_type}, ${input.subject_id}, ${input.provider}, 'attachment',
      ${stored ? stored.fileName : (input.file.name as string)}, ${stored ? stored.contentType : (input.file.mime_type ?? null)},
      ${stored ? null : (input.file.web_url ?? null)}, ${stored || input.file.id === undefined ? null : String(input.file.id)},
      ${stored?.id ?? null}, ${ctx.userId})
    returning *`);
  const feed = ctx.db.$with('attachment_feed', {}).as(
    feedEntriesFrom(ctx, {
      from: sql`written_attachment a`,
      modelType: input.subject_type,
      modelId: sql`a.subject_id`,
      action: 'file_attached',
      changes: changesSql({ attachment_id: { to: sql`a.id` } }),
    }),
  );
  const asAttachments = ctx.db.$with(getTableName(attachments), {}).as(sql`select * from written_attachment`);
  ctx.commitWithNext?.();
  const [row] = await ctx.db
    .with(written, feed, asAttachments)
    .select(attachmentFields)
    .from(attachments)
    .leftJoin(storedFiles, eq(storedFiles.id, attachments.fileId));
  return presentAttachment(row);
}

export const attachmentList = defineList({
  sort: { id: attachments.id, created_at: attachments.createdAt, name: attachments.name },
  filters: attachmentListFilters,
  search: (term) => ilike(attachments.name, containsPattern(term)),
  createdAt: attachments.createdAt,
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...attachmentFields, ...columns })
        .from(attachments)
        .leftJoin(storedFiles, eq(storedFiles.id, attachments.fileId))
        .$dynamic(),
    where: tenantWhere(
      ctx,
      attachments,
      eq(attachments.subjectType, params.subject_type),
      eq(attachments.subjectId, params.subject_id),
      params.category ? eq(attachments.category, params.category) : undefined,
      params.provider ? eq(attachments.provider, params.provider) : undefined,
      params.document_type ? eq(attachments.documentType, params.document_type) : undefined,
    ),
  }),
  present: (row) => presentAttachment(row),
});
export const AttachmentListQuery = attachmentList.query;

export async function listAttachments(ctx: TenantContext, params: z.output<typeof AttachmentListQuery>) {
  await requireSubject(ctx, params.subject_type, params.subject_id);
  return attachmentList.run(ctx, params);
}
