/**
 * Request and response shapes of the lead-note endpoints.
 */
import { z } from '@hono/zod-openapi';
import { optionalText, positiveId, text, timestamp } from '../../core/schemas';

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
  .refine((body) => body.title !== undefined || body.note !== undefined, {
    message: 'give title or note',
    path: ['title'],
  })
  .openapi('UpdateLeadNoteRequest');

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const noteListFilters = { lead_id: leadId };

export const NoteSchema = z
  .object({
    id: z.number().int(),
    lead_id: z.number().int(),
    title: z.string(),
    note: z.string().nullable(),
    created_by: z.number().int().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi('LeadNote');

export type AddNoteInput = z.infer<typeof AddNoteBody>;
export type UpdateNoteInput = z.infer<typeof UpdateNoteBody>;
