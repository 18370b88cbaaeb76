/**
 * Request and response shapes of the files endpoints (storage uploads, attachments), and the
 * multipart file field every upload route declares.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, text, timestamp } from '../../core/schemas';
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
  .openapi('StorageFileUploadRequest');

export const StoredFileSchema = z
  .object({
    id: z.number().int(),
    file_name: z.string(),
    content_type: z.string().openapi({ description: 'The type recognised from the bytes', example: 'application/pdf' }),
    size_bytes: z.number().int(),
    category: z.string().openapi({ example: 'upload' }),
    created_at: timestamp(),
    download_url: z.string().openapi({ example: '/api/storage-file/download/1' }),
  })
  .openapi('StoredFile');

export const SUBJECT_TYPES = ['lead', 'contact', 'company'] as const;
/** Where an attachment's bytes live: our own R2 storage, or a drive the organization uses. */
export const EXTERNAL_PROVIDERS = ['google_drive', 'onedrive', 'dropbox', 'box', 'sharepoint'] as const;
export const PROVIDERS = ['storage', ...EXTERNAL_PROVIDERS] as const;

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

export const AttachFileBody = z
  .object({
    provider: z.enum(PROVIDERS).openapi({
      description: '`storage` for a file uploaded to /api/storage-file/add; otherwise the drive holding the file',
    }),
    subject_type: z.enum(SUBJECT_TYPES),
    subject_id: positiveId.openapi({ description: 'The lead, contact or company of the organization', example: 1 }),
    file: z.object({
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
        .optional(),
      web_url: z
        .string()
        .trim()
        .max(2048)
        .refine(isHttpsUrl, 'must be an https URL')
        .optional()
        .openapi({ description: 'Required for other providers' }),
    }),
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
  .openapi('AttachFileRequest');

export type AttachFileInput = z.infer<typeof AttachFileBody>;

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const attachmentListFilters = {
  subject_type: z.enum(SUBJECT_TYPES),
  subject_id: positiveId.openapi({ description: 'The lead, contact or company', example: 1 }),
  category: z
    .enum(['attachment', 'document'])
    .optional()
    .openapi({ description: '`document` for lead documents, `attachment` for /api/file/attach' }),
  provider: z.enum(PROVIDERS).optional(),
};

export const AttachmentSchema = z
  .object({
    id: z.number().int(),
    subject_type: z.enum(SUBJECT_TYPES),
    subject_id: z.number().int(),
    provider: z.string(),
    category: z.string(),
    name: z.string(),
    mime_type: z.string().nullable(),
    web_url: z.string().nullable().openapi({ description: 'Where another provider serves the file' }),
    external_id: z.string().nullable(),
    file_id: z.number().int().nullable(),
    size_bytes: z.number().int().nullable(),
    document_type: z.string().nullable(),
    description: z.string().nullable(),
    download_url: z.string().nullable().openapi({ description: 'For storage files' }),
    created_by: z.number().int().nullable(),
    created_at: timestamp(),
  })
  .openapi('Attachment');
