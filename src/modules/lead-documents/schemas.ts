/**
 * Request and response shapes of the lead-document and lead profile-image endpoints.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, timestamp } from '../../core/schemas';
import { fileField, MAX_UPLOAD_MB } from '../files/schemas';
import { DOCUMENT_TYPES_DESCRIPTION } from '../files/upload-policy';

const leadId = positiveId.openapi({ description: 'A lead of the organization', example: 1 });

/** An optional form text field; blank means absent. */
function formText(max: number) {
  return z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((value) => value || null);
}

export const AddDocumentForm = z
  .object({
    lead_id: leadId,
    file: fileField(`${DOCUMENT_TYPES_DESCRIPTION}, recognised by content; at most ${MAX_UPLOAD_MB} MB (larger: 413)`),
    document_type: formText(100).openapi({
      type: 'string',
      description: 'Free label, e.g. contract, proposal, invoice',
    }),
    description: formText(1_000).openapi({ type: 'string' }),
  })
  .openapi('AddLeadDocumentRequest');

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const documentListFilters = {
  lead_id: leadId,
  document_type: z.string().trim().max(100).optional(),
};

export const DocumentSchema = z
  .object({
    id: z.number().int(),
    lead_id: z.number().int(),
    file_id: z.number().int(),
    file_name: z.string(),
    content_type: z.string().openapi({ description: 'The type recognised from the bytes', example: 'application/pdf' }),
    size_bytes: z.number().int(),
    document_type: z.string().nullable(),
    description: z.string().nullable(),
    download_url: z.string().openapi({ example: '/api/lead/document/download/1' }),
    created_by: z.number().int().nullable(),
    created_at: timestamp(),
  })
  .openapi('LeadDocument');

export const ProfileImageForm = z
  .object({
    image: fileField(
      `PNG, JPEG, GIF or WebP, recognised by its magic bytes (not its name or declared type); at most ${MAX_UPLOAD_MB} MB`,
    ),
  })
  .openapi('UploadProfileImageRequest');

export const ProfileImageSchema = z
  .object({
    lead_id: z.number().int(),
    file_id: z.number().int(),
    file_name: z.string(),
    content_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
    size_bytes: z.number().int(),
    profile_image_url: z.string().openapi({ example: '/api/lead/1/profile-image' }),
  })
  .openapi('LeadProfileImage');

export type AddDocumentInput = z.infer<typeof AddDocumentForm>;
