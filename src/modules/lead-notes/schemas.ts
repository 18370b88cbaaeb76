/**
 * Request and response shapes of the lead-note endpoints.
 */
import { z } from '@hono/zod-openapi';
import { listQuery } from '../../core/list';
import { optionalText, positiveId, text } from '../../core/schemas';

export const MAX_NOTE_LENGTH = 10_000;

const leadId = positiveId.openapi({ description: 'A lead of the organization', example: 1 });

export const AddNoteBody = z
  .object({
    lead_id: leadId,
    title: text(1, 255),
    note: optionalText(MAX_NOTE_LENGTH),
  })
  .openapi('AddLeadNoteRequest');

export const UpdateNoteBody = z
  .object({
    title: text(1, 255).optional(),
    note: optionalText(MAX_NOTE_LENGTH),
  })
  .refine((body) => body.title !== undefined || body.note !== undefined, { message: 'give title or note', path: ['title'] })
  .openapi('UpdateLeadNoteRequest');

export const NoteListQuery = listQuery(['id', 'created_at', 'updated_at', 'title'] as const, { lead_id: leadId });

export const NoteSchema = z
  .object({
    id: z.number().int(),
    lead_id: z.number().int(),
    title: z.string(),
    note: z.string().nullable(),
    created_by: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('LeadNote');

export type AddNoteInput = z.infer<typeof AddNoteBody>;
export type UpdateNoteInput = z.infer<typeof UpdateNoteBody>;
