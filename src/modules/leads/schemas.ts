/**
 * Request and response shapes of the leads module (spec "Lead" and "Leads"). `AddLeadBody` is
 * also the row contract of the spreadsheet import: numeric fields accept numeric strings, and
 * optional text fields accept '' as "no value", so a parsed CSV row validates the same way.
 * Read-only fields (id, score, ai_information, last_activity_at, timestamps, *_text) are not
 * part of the add body and are dropped if sent.
 */
import { z } from '@hono/zod-openapi';
import { blankableText, email, idsBody, MAX_TEXT } from '../../core/schemas';
import { leadFiltersObject } from './filters';

const name = (field: string) =>
  z
    .string()
    .trim()
    .min(2, 'must be at least 2 characters')
    .max(50, 'must be at most 50 characters')
    .openapi({ description: `${field}, 2 to 50 characters after trimming`, example: field === 'First name' ? 'Ada' : 'Lovelace' });

/** A positive integer, also accepted as a numeric string (spreadsheet cells). */
const integerInput = z
  .union([z.number(), z.string().trim().max(20).regex(/^\d+$/, 'must be a whole number').transform(Number)])
  .pipe(z.number().int('must be a whole number').positive('must be a positive number').max(Number.MAX_SAFE_INTEGER))
  .openapi({ type: 'integer' });

const amount = z
  .union([z.number(), z.string().trim().max(30).regex(/^-?\d+(\.\d+)?$/, 'must be a number').transform(Number)])
  .pipe(z.number().min(0, 'must not be negative').max(999_999_999_999.99, 'is too large'))
  .openapi({ type: 'number' });

const leadEmail = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .transform((value) => (value === '' ? null : value))
  .pipe(email.nullable())
  .nullish()
  .openapi({ type: 'string', format: 'email', description: 'Unique among the organization’s live leads; domain lower-cased' });

const customValue = z.union([
  z.string().max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string().max(500), z.number(), z.boolean()])).max(100),
]);

/** Key/value custom fields; on update a null value removes the key. */
export const customFieldsInput = z
  .record(z.string().trim().min(1).max(100, 'keys must be at most 100 characters'), customValue)
  .refine((value) => Object.keys(value).length <= 200, 'at most 200 keys')
  .openapi({ type: 'object', example: { budget: '10k', newsletter: true } });

/** AI enrichment data (any JSON object), merged key by key on update. */
const aiInformationInput = z
  .record(z.string().max(100), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 100_000, 'is too large (100 000 characters of JSON at most)')
  .openapi({ type: 'object' });

const tagIds = z.array(integerInput).max(50, 'at most 50 tags').openapi({ description: 'Ids of the organization’s tag lookups', example: [1] });

const leadFields = {
  email: leadEmail,
  phone_number: blankableText(50),
  company: blankableText(200).openapi({ description: 'Company name: linked case-insensitively to the organization’s company, or created' }),
  company_id: integerInput.nullish().openapi({ description: 'Link an existing company of the organization (wins over `company`)' }),
  job_title: blankableText(200),
  industry: blankableText(200),
  website: blankableText(2048),
  address: blankableText(500),
  city: blankableText(200),
  state: blankableText(200),
  country: blankableText(200),
  pin_code: blankableText(20),
  status: integerInput.nullish().openapi({ description: 'Value of an active status lookup; the first status when omitted' }),
  priority: integerInput.nullish().openapi({ description: 'Value of an active priority lookup (1 Low … 4 Urgent by default)' }),
  lead_source: integerInput.nullish().openapi({ description: 'Value of an active source lookup (1 Website … 5 Direct by default)' }),
  estimated_value: amount.nullish(),
  assigned_to: integerInput.nullish().openapi({ description: 'User id of a rep of the organization' }),
  profile_url: blankableText(2048),
  tags: tagIds.nullish(),
  custom_fields: customFieldsInput.nullish(),
  notes: blankableText(MAX_TEXT),
};

export const AddLeadBody = z.object({ first_name: name('First name'), last_name: name('Last name'), ...leadFields }).openapi('AddLeadRequest');
export type AddLeadInput = z.infer<typeof AddLeadBody>;

export const UpdateLeadBody = z
  .object({
    first_name: name('First name').optional(),
    last_name: name('Last name').optional(),
    ...leadFields,
    ai_information: aiInformationInput.nullish(),
  })
  .openapi('UpdateLeadRequest');
export type UpdateLeadInput = z.infer<typeof UpdateLeadBody>;

export const TagRef = z.object({ id: z.number().int(), name: z.string(), color: z.string().nullable() }).openapi('TagRef');

export const LeadSchema = z
  .object({
    id: z.number().int(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string().nullable(),
    phone_number: z.string().nullable(),
    company: z.string().nullable(),
    company_id: z.number().int().nullable(),
    job_title: z.string().nullable(),
    industry: z.string().nullable(),
    website: z.string().nullable(),
    address: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().nullable(),
    pin_code: z.string().nullable(),
    status: z.number().int(),
    status_text: z.string().nullable(),
    priority: z.number().int().nullable(),
    priority_text: z.string().nullable(),
    lead_source: z.number().int().nullable(),
    lead_source_text: z.string().nullable(),
    score: z.number().int().openapi({ description: 'Read-only' }),
    estimated_value: z.number().nullable(),
    assigned_to: z.number().int().nullable(),
    profile_url: z.string().nullable(),
    tags: z.array(TagRef),
    custom_fields: z.record(z.string(), z.unknown()),
    notes: z.string().nullable(),
    ai_information: z.record(z.string(), z.unknown()).openapi({ description: 'Read-only on create; merged on update' }),
    last_activity_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Lead');
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
export const AssignTagsBody = withTarget({ tags: z.array(integerInput).min(1, 'must contain at least one tag').max(50) }, 'LeadAssignTagsRequest');
export const SetTagsBody = withTarget({ tags: z.array(integerInput).max(50) }, 'LeadSetTagsRequest');

export type BulkTarget = { ids?: number[]; select_all?: boolean; filters?: z.infer<typeof leadFiltersObject> };

export const BulkResult = z.object({ updated: z.number().int().openapi({ description: 'How many leads changed' }) }).openapi('LeadBulkResult');
