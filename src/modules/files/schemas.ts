/**
 * Request and response shapes of the files endpoints (storage uploads, attachments), and the
 * multipart file field every upload route declares.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, text, timestamp, webUrl } from '../../core/schemas';
import { DOCUMENT_TYPES_DESCRIPTION, MAX_UPLOAD_BYTES } from './upload-policy';

/** A multipart field holding one file; missing or not a file is a 422 naming the field. */
export function fileField(description: string) {
  return z
    .custom<File>((value) => value instanceof File, { message: 'is required and must be a file' })
    .openapi({ type: 'string', format: 'binary', description });
}

export const MAX_UPLOAD_MB = MAX_UPLOAD_BYTES / 1024 / 1024;

export const StorageFileForm = z
  .object({
    file: fileField(`${DOCUMENT_TYPES_DESCRIPTION}, recognised by content; at most ${MAX_UPLOAD_MB} MB (larger: 413)`),
  })
  .openapi('StorageFileUploadRequest', {
    description: 'A multipart form with the file',
    example: { file: '(binary)' },
  });

export const StoredFileSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The stored file’s id (file.id of POST /api/file/attach)' }),
    file_name: z.string().openapi({ description: 'The uploaded file’s name (made safe for storage)' }),
    content_type: z.string().openapi({ description: 'The type recognised from the bytes', example: 'application/pdf' }),
    size_bytes: z.number().int().openapi({ description: 'Size in bytes' }),
    category: z.string().openapi({
      description: 'Why it was stored: upload (this route), document (lead document), profile_image or company_logo',
      example: 'upload',
    }),
    created_at: timestamp('When it was stored'),
    download_url: z.string().openapi({
      description: 'Relative URL streaming the bytes (same credentials)',
      example: '/api/storage-file/download/1',
    }),
  })
  .openapi('StoredFile', {
    description: 'A file kept in the organization’s storage',
    example: {
      id: 1,
      file_name: 'contract.pdf',
      content_type: 'application/pdf',
      size_bytes: 48213,
      category: 'upload',
      created_at: '2026-01-15T09:30:00.000Z',
      download_url: '/api/storage-file/download/1',
    },
  });

export const SUBJECT_TYPES = ['lead', 'contact', 'company'] as const;
/** Where an attachment's bytes live: our own R2 storage, or a drive the organization uses. */
export const EXTERNAL_PROVIDERS = ['google_drive', 'onedrive', 'dropbox', 'box', 'sharepoint'] as const;
export const PROVIDERS = ['storage', ...EXTERNAL_PROVIDERS] as const;

export const AttachFileBody = z
  .object({
    provider: z.enum(PROVIDERS).openapi({
      description: '`storage` for a file uploaded to /api/storage-file/add; otherwise the drive holding the file',
    }),
    subject_type: z.enum(SUBJECT_TYPES).openapi({ description: 'What the file is attached to' }),
    subject_id: positiveId.openapi({ description: 'The lead, contact or company of the organization', example: 1 }),
    file: z
      .object({
        id: z
          .union([z.string().trim().min(1).max(255), z.number().int().positive().max(Number.MAX_SAFE_INTEGER)])
          .optional()
          .openapi({ description: 'storage: the stored file id (required); other providers: the id in that drive' }),
        name: text(1, 255)
          .optional()
          .openapi({ description: 'Required for other providers; storage files keep their stored name' }),
        mime_type: z
          .string()
          .trim()
          .max(255)
          .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as application/pdf')
          .optional()
          .openapi({ description: 'Other providers: the file’s media type, e.g. application/pdf; optional' }),
        web_url: webUrl(2048)
          .refine((value) => value.slice(0, 6).toLowerCase() === 'https:', 'must be an https URL')
          .optional()
          .openapi({ description: 'Required for other providers' }),
      })
      .openapi({ description: 'The file: a stored file by id, or a drive file by id, name and https URL' }),
  })
  .superRefine((body, ctx) => {
    if (body.provider === 'storage') {
      if (body.file.id === undefined || !/^[1-9]\d{0,15}$/.test(String(body.file.id))) {
        ctx.addIssue({ code: 'custom', path: ['file', 'id'], message: 'must be the id of a stored file' });
      }
      return;
    }
    if (!body.file.name) ctx.addIssue({ code: 'custom', path: ['file', 'name'], message: 'is required' });
    if (!body.file.web_url) ctx.addIssue({ code: 'custom', path: ['file', 'web_url'], message: 'is required' });
  })
  .openapi('AttachFileRequest', {
    description: 'What to attach, and to which lead, contact or company',
    example: { provider: 'storage', subject_type: 'lead', subject_id: 1, file: { id: 1 } },
  });

export type AttachFileInput = z.infer<typeof AttachFileBody>;

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const attachmentListFilters = {
  subject_type: z.enum(SUBJECT_TYPES).openapi({ description: 'What the files are attached to' }),
  subject_id: positiveId.openapi({ description: 'The lead, contact or company', example: 1 }),
  category: z
    .enum(['attachment', 'document'])
    .optional()
    .openapi({ description: '`document` for lead documents, `attachment` for /api/file/attach' }),
  provider: z.enum(PROVIDERS).optional().openapi({ description: 'Only files of this provider' }),
  // As the lead document list takes it (GET /api/lead/document/list): exact, after trimming.
  document_type: z
    .string()
    .trim()
    .max(100)
    .optional()
    .openapi({ description: 'Only lead documents with exactly this document_type (attachments have none)' }),
};

export const AttachmentSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The attachment’s id (for a lead document, the document id)' }),
    subject_type: z.enum(SUBJECT_TYPES).openapi({ description: 'What the file is attached to' }),
    subject_id: z.number().int().openapi({ description: 'The lead, contact or company’s id' }),
    provider: z.string().openapi({ description: 'storage, or the drive holding the file (google_drive, onedrive …)' }),
    category: z.string().openapi({ description: 'document (lead document) or attachment (POST /api/file/attach)' }),
    name: z.string().openapi({ description: 'File name' }),
    mime_type: z.string().nullable().openapi({ description: 'Media type; null when a drive file gave none' }),
    web_url: z.string().nullable().openapi({ description: 'Where another provider serves the file' }),
    external_id: z.string().nullable().openapi({ description: 'The file’s id in its drive; null for storage files' }),
    file_id: z.number().int().nullable().openapi({ description: 'The stored file’s id; null for drive files' }),
    size_bytes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Size in bytes of a stored file; null for drive files' }),
    document_type: z.string().nullable().openapi({ description: 'Lead documents: the free label; otherwise null' }),
    description: z.string().nullable().openapi({ description: 'Lead documents: the free text; otherwise null' }),
    download_url: z.string().nullable().openapi({ description: 'For storage files' }),
    created_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Id of the user who created it; null when that user is gone' }),
    created_at: timestamp('When it was attached'),
  })
  .openapi('Attachment', {
    description: 'A file attached to a lead, contact or company',
    example: {
      id: 3,
      subject_type: 'lead',
      subject_id: 1,
      provider: 'google_drive',
      category: 'attachment',
      name: 'Brief.docx',
      mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      web_url: 'https://drive.google.com/file/d/abc123/view',
      external_id: 'abc123',
      file_id: null,
      size_bytes: null,
      document_type: null,
      description: null,
      download_url: null,
      created_by: 1,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });
