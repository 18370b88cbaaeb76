/**
 * Request and response shapes of the leads module (spec "Lead" and "Leads"). The lead's own
 * shapes (add, update, Lead) are derived from the field table (fields.ts): the add body is also
 * the row contract of the spreadsheet import. Read-only fields (id, score, ai_information on
 * create, last_activity_at, timestamps, *_text) are not part of the add body and are dropped if sent.
 */
import { z } from '@hono/zod-openapi';
import { idsBody } from '../../core/schemas';
import {
  customFieldsInput,
  customValue,
  duplicateModeFields,
  integerInput,
  refuseBothDuplicateModes,
} from './field-inputs';
import { leadFields } from './fields';
import { leadFiltersObject } from './filters';

/** A lead as the API answers it: the example of the Lead component. */
export const leadExample = {
  id: 1,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone_number: '+44 20 7946 0000',
  company: 'Analytical Engines Ltd',
  company_id: 3,
  job_title: 'Head of Research',
  industry: 'Computing',
  website: 'https://example.com',
  address: '12 St James’s Square',
  city: 'London',
  state: null,
  country: 'United Kingdom',
  pin_code: 'SW1Y 4JH',
  status: 2,
  status_text: 'Contacted',
  priority: 3,
  priority_text: 'High',
  lead_source: 1,
  lead_source_text: 'Website',
  score: 70,
  fit_score: 62,
  engagement_score: 40,
  score_factors: {
    positive_factors: [
      { feature: 'engagement', label: 'Recent intent signals (decaying)', value: 0.4, contribution: 0.9 },
    ],
    negative_factors: [
      { feature: 'country', label: 'Country against the ideal profile', value: 0, contribution: -0.3 },
    ],
  },
  estimated_value: 25000,
  assigned_to: 2,
  profile_url: 'https://www.linkedin.com/in/ada',
  tags: [{ id: 12, name: 'VIP', color: '#A855F7' }],
  custom_fields: { budget: '10k', newsletter: true },
  notes: 'Met at the Analytical Society dinner',
  ai_information: {
    summary: 'Series B fintech, hiring sales engineers',
    score: {
      score: 70,
      fit: 62,
      engagement: 40,
      model_version: null,
      model_kind: 'default',
      training_sample_size: 0,
      positive_factors: [
        { feature: 'engagement', label: 'Recent intent signals (decaying)', value: 0.4, contribution: 0.9 },
      ],
      negative_factors: [
        { feature: 'country', label: 'Country against the ideal profile', value: 0, contribution: -0.3 },
      ],
      scored_at: '2026-05-04T10:00:05.000Z',
    },
  },
  last_activity_at: '2026-01-16T10:00:00.000Z',
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-16T10:00:00.000Z',
};

export const AddLeadBody = z.object(leadFields.createShape).openapi('AddLeadRequest', {
  description:
    'A new lead: first_name and last_name are required, everything else optional. Read-only fields (id, score, *_text, timestamps) are ignored if sent',
  example: {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    company: 'Analytical Engines Ltd',
    status: 2,
    assigned_to: 2,
    tags: [12],
    custom_fields: { budget: '10k', newsletter: true },
  },
});
export type AddLeadInput = z.infer<typeof AddLeadBody>;

/**
 * The body of POST /api/lead/add: the lead (AddLeadRequest, also the import's row contract) and
 * what to do when a live lead has its email or profile URL (spec Errors rule 2), as on POST /api/v1/lead.
 */
export const AddLeadRequestBody = AddLeadBody.extend(duplicateModeFields)
  .superRefine(refuseBothDuplicateModes)
  .openapi('AddLeadWithDuplicateModeRequest', {
    description:
      'A new lead (the AddLeadRequest fields), with `duplicate` or `merge` to say what happens when a live lead has the same email or profile URL: 409 `duplicate_lead` without either',
    example: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      company: 'Analytical Engines Ltd',
      merge: 1,
    },
  });

export const UpdateLeadBody = z.object(leadFields.updateShape).openapi('UpdateLeadRequest', {
  description:
    'The lead fields to change: omitted fields keep their value, null clears a clearable one; custom_fields and ai_information merge key by key (null removes a key); tags replace the lead’s tags',
  example: { status: 3, assigned_to: null, custom_fields: { budget: null, plan: 'annual' } },
});
export type UpdateLeadInput = z.infer<typeof UpdateLeadBody>;

export const LeadSchema = z.object(leadFields.readShape).openapi('Lead', {
  description: 'A lead of the organization, with its lookup labels, tags and custom fields',
  example: leadExample,
});
export type LeadView = z.infer<typeof LeadSchema>;

export const DeleteLeadsBody = z
  .object({
    ids: idsBody.openapi({
      description: 'Ids of the leads to delete (1 to 10 000); unknown and other organizations’ ids are ignored',
    }),
  })
  .openapi('DeleteLeadsRequest', { description: 'The leads to soft-delete', example: { ids: [1, 2, 3] } });

const leadIdInput = integerInput.openapi({
  description: 'A live lead of the organization (404 otherwise)',
  example: 1,
});

export const UpdateCustomFieldsBody = z
  .object({
    lead_id: leadIdInput,
    custom_fields: customFieldsInput.openapi({
      description:
        'Keys to set (a value replaces or adds the key) or remove (null); keys not sent stay. Keys up to 100 characters, at most 200',
    }),
  })
  .openapi('UpdateLeadCustomFieldsRequest', {
    description: 'Custom fields to merge into a lead',
    example: { lead_id: 1, custom_fields: { budget: '10k', newsletter: null } },
  });

export const SetCustomFieldBody = z
  .object({
    lead_id: leadIdInput,
    field_name: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(100, 'must be at most 100 characters')
      .openapi({ description: 'The custom field’s key, 1 to 100 characters' }),
    field_value: customValue.optional().openapi({ description: 'Omitted or null removes the field' }),
  })
  .openapi('SetLeadCustomFieldRequest', {
    description: 'One custom field to set or remove',
    example: { lead_id: 1, field_name: 'budget', field_value: '10k' },
  });

/**
 * Which leads a bulk action touches: explicit `ids` (other organizations' and unknown ids are
 * ignored), or `select_all: true` with optional `filters` (the list filters; `select_all`
 * wins when both are sent).
 */
const bulkTarget = {
  ids: z.array(integerInput).max(10_000, 'at most 10000 ids per request').optional().openapi({
    description:
      'The leads to change (at most 10 000); other organizations’ and unknown ids are ignored. Required unless select_all is true',
  }),
  select_all: z.boolean().optional().openapi({
    description: 'true: every live lead matching `filters` (all leads when no filters); wins over ids',
  }),
  filters: leadFiltersObject.optional(),
};

function withTarget<S extends z.ZodRawShape>(
  shape: S,
  name: string,
  description: string,
  example: Record<string, unknown>,
) {
  return z
    .object({ ...shape, ...bulkTarget })
    .superRefine((body, ctx) => {
      const target = body as { ids?: number[]; select_all?: boolean };
      if (!target.select_all && !(target.ids && target.ids.length > 0)) {
        ctx.addIssue({ code: 'custom', path: ['ids'], message: 'give ids, or select_all: true with filters' });
      }
    })
    .openapi(name, {
      description: `${description}: explicit ids, or select_all: true with optional filters (the list filters)`,
      example,
    });
}

export const StatusChangeBody = withTarget(
  { status: integerInput.openapi({ description: 'The value of an active status lookup of the organization' }) },
  'LeadStatusChangeRequest',
  'The new status, and which leads get it',
  { ids: [1, 2], status: 3 },
);
export const AssignUserBody = withTarget(
  { assigned_to: integerInput.nullable().openapi({ description: 'User id; null unassigns' }) },
  'LeadAssignUserRequest',
  'The assignee, and which leads to assign',
  { select_all: true, filters: { unassigned: 'true', country: 'Germany' }, assigned_to: 2 },
);
export const AssignTagsBody = withTarget(
  {
    tags: z
      .array(integerInput)
      .min(1, 'must contain at least one tag')
      .max(50)
      .openapi({ description: 'Ids of active tag lookups to add (1 to 50)' }),
  },
  'LeadAssignTagsRequest',
  'Tags to add, and to which leads',
  { ids: [1, 2], tags: [12] },
);
export const SetTagsBody = withTarget(
  {
    tags: z
      .array(integerInput)
      .max(50)
      .openapi({ description: 'Ids of active tag lookups: the leads’ whole new set (at most 50; [] removes all)' }),
  },
  'LeadSetTagsRequest',
  'The tags the leads will have, and which leads',
  { ids: [1, 2], tags: [12, 13] },
);

export type BulkTarget = { ids?: number[]; select_all?: boolean; filters?: z.infer<typeof leadFiltersObject> };

export const BulkResult = z
  .object({ updated: z.number().int().openapi({ description: 'How many leads changed' }) })
  .openapi('LeadBulkResult', {
    description: 'The outcome of a bulk action (leads already in the target state do not count)',
    example: { updated: 2 },
  });
