/**
 * Request and response shapes of the AI email draft endpoints: the Draft component (from the
 * field table, draft-fields.ts), the bodies, the list filters, the bulk job, the 409s.
 */
import { z } from '@hono/zod-openapi';
import { positiveId, text } from '../../core/schemas';
import { conflictResponse } from '../../core/routes';
import { draftFields, DRAFT_STATUSES } from './draft-fields';

export const MAX_BULK_LEADS = 500;

const persona = text(1, 200).optional().openapi({
  description: 'The voice to write in (who the rep is, the tone), up to 200 characters',
  example: 'Ada, account executive; warm and brief',
});

/** The example of AiEmailDraft, also part of the answers that embed it. */
export const DRAFT_EXAMPLE = {
  id: 12,
  lead_id: 34,
  status: 'draft',
  persona: null,
  subject: 'An idea for Navy Labs',
  body: 'Hi Grace,\n\n…',
  provider: 'local',
  model: 'local-template',
  prompt_version: 'email-draft@v1',
  job_id: null,
  approved_by: null,
  approved_at: null,
  rejected_by: null,
  rejected_at: null,
  mail_message_id: null,
  failure_reason: null,
  created_by: 1,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};

export const DraftSchema = z.object(draftFields.readShape).openapi('AiEmailDraft', {
  description: 'An AI-written email to a lead, with its review state and provenance',
  example: DRAFT_EXAMPLE,
});

export const GenerateDraftBody = z.object({ persona }).openapi('GenerateDraftRequest', {
  description: 'How to write it (optional)',
  example: { persona: 'Ada, account executive' },
});

export const RegenerateDraftBody = z
  .object({ persona: persona.openapi({ description: 'A new voice; the draft’s own when absent' }) })
  .openapi('RegenerateDraftRequest', { description: 'How to rewrite it (optional)', example: {} });

export const BulkGenerateBody = z
  .object({
    lead_ids: z
      .array(positiveId.openapi({ type: 'integer', description: 'A lead of the organization', example: 34 }))
      .min(1, 'give at least one lead id')
      .max(MAX_BULK_LEADS, `at most ${MAX_BULK_LEADS} lead ids`)
      .openapi({
        description: `The leads to write to, 1 to ${MAX_BULK_LEADS} (duplicates count once)`,
        example: [34, 35],
      }),
    persona,
  })
  .openapi('BulkGenerateDraftsRequest', {
    description: 'Leads to write a draft to, one each',
    example: { lead_ids: [34, 35] },
  });

export const UpdateDraftBody = z
  .object(draftFields.updateShape)
  .refine((body) => body.subject !== undefined || body.body !== undefined, {
    message: 'give subject or body',
    path: ['subject'],
  })
  .openapi('UpdateDraftRequest', {
    description: 'New text; the draft needs a new approval',
    example: { subject: 'Quick question' },
  });

export const SendDraftBody = z
  .object({
    config_id: positiveId.openapi({
      type: 'integer',
      description: 'The mail account (configuration) to send from',
      example: 1,
    }),
  })
  .openapi('SendDraftRequest', { description: 'Where to send it from', example: { config_id: 1 } });

export const DraftListFilters = {
  status: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.split(',').map((part) => part.trim()) : value),
      z.array(z.enum(DRAFT_STATUSES)),
    )
    .optional()
    .openapi({
      type: 'string',
      description: 'Only drafts in these states, comma-separated',
      example: 'draft,approved',
    }),
};

export const BulkJobSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The job’s id', example: 7 }),
    status: z
      .enum(['queued', 'running', 'completed', 'failed', 'cancelled'])
      .openapi({ description: 'queued → running → completed (or failed)', example: 'queued' }),
    total_items: z.number().int().openapi({ description: 'Leads to write to', example: 2 }),
    processed_items: z.number().int().openapi({ description: 'Leads done so far', example: 0 }),
    drafts_created: z.number().int().openapi({ description: 'Drafts written', example: 0 }),
    item_errors: z
      .array(
        z.object({
          lead_id: z.number().int().openapi({ description: 'The lead', example: 35 }),
          error: z.string().openapi({ description: 'Why it got no draft', example: 'Not enough credits' }),
        }),
      )
      .openapi({ description: 'Leads that got no draft, and why (the rest complete)' }),
    persona: z.string().nullable().openapi({ description: 'The voice asked for', example: null }),
    error: z.string().nullable().openapi({ description: 'Why the job failed, when it did', example: null }),
    created_at: z.string().openapi({ description: 'When it was asked for', example: '2026-11-26T10:00:00.000Z' }),
    finished_at: z.string().nullable().openapi({ description: 'When it ended', example: null }),
  })
  .openapi('AiEmailBulkJob', {
    description: 'A bulk draft job and its progress',
    example: {
      id: 7,
      status: 'queued',
      total_items: 2,
      processed_items: 0,
      drafts_created: 0,
      item_errors: [],
      persona: null,
      error: null,
      created_at: '2026-11-26T10:00:00.000Z',
      finished_at: null,
    },
  });

const stateDetails = z.object({
  draft_id: z.number().int().openapi({ description: 'The draft', example: 12 }),
  status: z.enum(DRAFT_STATUSES).openapi({ description: 'Its state now', example: 'draft' }),
});

export const draftNotApprovedResponse = conflictResponse(
  'DraftNotApprovedConflict',
  'The draft is not approved (error.code draft_not_approved; error.details.status names its state): nothing is sent without an approval',
  [{ code: 'draft_not_approved', details: stateDetails, example: { draft_id: 12, status: 'draft' } }],
);

export const draftStateResponse = conflictResponse(
  'DraftStateConflict',
  'The draft’s state does not allow this (error.code invalid_draft_state; error.details.status names its state)',
  [{ code: 'invalid_draft_state', details: stateDetails, example: { draft_id: 12, status: 'queued' } }],
);
