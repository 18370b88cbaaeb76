/**
 * Request and response shapes of the lead-document and lead profile-image endpoints.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, timestamp } from '../../core/schemas';
import { fileField, MAX_UPLOAD_MB } from '../files';
import { DOCUMENT_TYPES_DESCRIPTION } from '../files';

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
    description: formText(1_000).openapi({
      type: 'string',
      description: 'Free text, up to 1 000 characters; optional',
    }),
  })
  .openapi('AddLeadDocumentRequest', {
    description: 'A multipart form: the lead, the file and optional labels',
    example: { lead_id: 1, file: '(binary)', document_type: 'proposal', description: 'Q1 proposal, signed' },
  });

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const documentListFilters = {
  lead_id: leadId,
  document_type: z
    .string()
    .trim()
    .max(100)
    .optional()
    .openapi({ description: 'Only documents with exactly this document_type' }),
};

export const DocumentSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The document’s id' }),
    lead_id: z.number().int().openapi({ description: 'The lead it belongs to' }),
    file_id: z.number().int().openapi({ description: 'The stored file holding its bytes' }),
    file_name: z.string().openapi({ description: 'The uploaded file’s name (made safe for storage)' }),
    content_type: z.string().openapi({ description: 'The type recognised from the bytes', example: 'application/pdf' }),
    size_bytes: z.number().int().openapi({ description: 'Size in bytes' }),
    document_type: z.string().nullable().openapi({ description: 'Free label given on upload; null: none' }),
    description: z.string().nullable().openapi({ description: 'Free text given on upload; null: none' }),
    download_url: z.string().openapi({
      description: 'Relative URL streaming the bytes (same credentials)',
      example: '/api/lead/document/download/1',
    }),
    created_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Id of the user who created it; null when that user is gone' }),
    created_at: timestamp('When it was uploaded'),
  })
  .openapi('LeadDocument', {
    description: 'A document uploaded to a lead',
    example: {
      id: 1,
      lead_id: 1,
      file_id: 14,
      file_name: 'proposal.pdf',
      content_type: 'application/pdf',
      size_bytes: 48213,
      document_type: 'proposal',
      description: 'Q1 proposal, signed',
      download_url: '/api/lead/document/download/1',
      created_by: 1,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });

export const ProfileImageForm = z
  .object({
    image: fileField(
      `PNG, JPEG, GIF or WebP, recognised by its magic bytes (not its name or declared type); at most ${MAX_UPLOAD_MB} MB`,
    ),
  })
  .openapi('UploadProfileImageRequest', {
    description: 'A multipart form with the image',
    example: { image: '(binary)' },
  });

export const ProfileImageSchema = z
  .object({
    lead_id: z.number().int().openapi({ description: 'The lead' }),
    file_id: z.number().int().openapi({ description: 'The stored file holding the image' }),
    file_name: z.string().openapi({ description: 'The uploaded file’s name' }),
    content_type: z
      .enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
      .openapi({ description: 'The image type recognised from the bytes' }),
    size_bytes: z.number().int().openapi({ description: 'Size in bytes' }),
    profile_image_url: z.string().openapi({
      description: 'Relative URL serving the image (same credentials)',
      example: '/api/lead/1/profile-image',
    }),
  })
  .openapi('LeadProfileImage', {
    description: 'A lead’s new profile image',
    example: {
      lead_id: 1,
      file_id: 15,
      file_name: 'ada.png',
      content_type: 'image/png',
      size_bytes: 20480,
      profile_image_url: '/api/lead/1/profile-image',
    },
  });

export type AddDocumentInput = z.infer<typeof AddDocumentForm>;
