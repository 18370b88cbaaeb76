/**
 * Request and response shapes of the leads module (spec "Lead" and "Leads"). The lead's own
 * shapes (add, update, Lead) are derived from the field table (fields.ts): the add body is also
 * the row contract of the spreadsheet import. Read-only fields (id, score, ai_information on
 * create, last_activity_at, timestamps, *_text) are not part of the add body and are dropped if sent.
 */
import { z } from '@hono/zod-openapi';
import { idsBody } from '../../core/schemas';
import { customFieldsInput, customValue, integerInput } from './field-inputs';
import { leadCreateShape, leadReadShape, leadUpdateShape } from './field-derivations';
import { leadFiltersObject } from './filters';

export const AddLeadBody = z.object(leadCreateShape).openapi('AddLeadRequest');
export type AddLeadInput = z.infer<typeof AddLeadBody>;

export const UpdateLeadBody = z.object(leadUpdateShape).openapi('UpdateLeadRequest');
export type UpdateLeadInput = z.infer<typeof UpdateLeadBody>;

export const LeadSchema = z.object(leadReadShape).openapi('Lead');
export type LeadView = z.infer<typeof LeadSchema>;

export const DeleteLeadsBody = z.object({ ids: idsBody }).openapi('DeleteLeadsRequest');

export const UpdateCustomFieldsBody = z
  .object({ lead_id: integerInput, custom_fields: customFieldsInput })
  .openapi('UpdateLeadCustomFieldsRequest');

export const SetCustomFieldBody = z
  .object({
    lead_id: integerInput,
    field_name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    field_value: customValue.optional().openapi({ description: 'Omitted or null removes the field' }),
  })
  .openapi('SetLeadCustomFieldRequest');

/**
 * Which leads a bulk action touches: explicit `ids` (other organizations' and unknown ids are
 * ignored), or `select_all: true` with optional `filters` (the list filters; `select_all`
 * wins when both are sent).
 */
const bulkTarget = {
  ids: z.array(integerInput).max(10_000, 'at most 10000 ids per request').optional(),
  select_all: z.boolean().optional(),
  filters: leadFiltersObject.optional(),
};

function withTarget<S extends z.ZodRawShape>(shape: S, name: string) {
  return z
    .object({ ...shape, ...bulkTarget })
    .superRefine((body, ctx) => {
      const target = body as { ids?: number[]; select_all?: boolean };
      if (!target.select_all && !(target.ids && target.ids.length > 0)) {
        ctx.addIssue({ code: 'custom', path: ['ids'], message: 'give ids, or select_all: true with filters' });
      }
    })
    .openapi(name);
}

export const StatusChangeBody = withTarget({ status: integerInput }, 'LeadStatusChangeRequest');
export const AssignUserBody = withTarget(
  { assigned_to: integerInput.nullable().openapi({ description: 'User id; null unassigns' }) },
  'LeadAssignUserRequest',
);
export const AssignTagsBody = withTarget(
  { tags: z.array(integerInput).min(1, 'must contain at least one tag').max(50) },
  'LeadAssignTagsRequest',
);
export const SetTagsBody = withTarget({ tags: z.array(integerInput).max(50) }, 'LeadSetTagsRequest');

export type BulkTarget = { ids?: number[]; select_all?: boolean; filters?: z.infer<typeof leadFiltersObject> };

export const BulkResult = z
  .object({ updated: z.number().int().openapi({ description: 'How many leads changed' }) })
  .openapi('LeadBulkResult');
