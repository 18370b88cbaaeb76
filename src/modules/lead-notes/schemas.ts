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
    title: text(1, 255).openapi({ description: 'Title, 1 to 255 characters' }),
    note: optionalText(MAX_NOTE_LENGTH).openapi({ description: 'Text, up to 10 000 characters; optional' }),
  })
  .openapi('AddLeadNoteRequest', {
    description: 'A note to add to a lead',
    example: { lead_id: 1, title: 'First call', note: 'Interested in the annual plan; call back in March.' },
  });

export const UpdateNoteBody = z
  .object({
    title: text(1, 255).optional().openapi({ description: 'New title, 1 to 255 characters' }),
    note: optionalText(MAX_NOTE_LENGTH).openapi({ description: 'New text, up to 10 000 characters; null clears it' }),
  })
  .refine((body) => body.title !== undefined || body.note !== undefined, {
    message: 'give title or note',
    path: ['title'],
  })
  .openapi('UpdateLeadNoteRequest', {
    description: 'The note fields to change: title, note or both (at least one); omitted ones keep their value',
    example: { note: 'Signed the annual plan.' },
  });

/** Filters of the list beyond the standard list parameters (the list itself: service.ts). */
export const noteListFilters = { lead_id: leadId };

export const NoteSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The note’s id' }),
    lead_id: z.number().int().openapi({ description: 'The lead the note is on' }),
    title: z.string().openapi({ description: 'Title' }),
    note: z.string().nullable().openapi({ description: 'Text; null when none' }),
    created_by: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Id of the user who created it; null when that user is gone' }),
    created_at: timestamp('When the note was written'),
    updated_at: timestamp('When the note last changed'),
  })
  .openapi('LeadNote', {
    description: 'A note on a lead',
    example: {
      id: 9,
      lead_id: 1,
      title: 'First call',
      note: 'Interested in the annual plan; call back in March.',
      created_by: 1,
      created_at: '2026-01-15T09:30:00.000Z',
      updated_at: '2026-01-15T09:30:00.000Z',
    },
  });

export type AddNoteInput = z.infer<typeof AddNoteBody>;
export type UpdateNoteInput = z.infer<typeof UpdateNoteBody>;
