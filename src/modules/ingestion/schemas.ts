/**
 * POST /api/v1/lead (spec "Ingestion by API key"): the listed fields, validated like the lead's
 * own fields; any other field is kept and stored under custom_fields (rule 6). Hosted web-form
 * submissions are validated by the same shape (modules/web-forms).
 */
import { z } from '@hono/zod-openapi';
import { blankableText, webAddress } from '../../core/schemas';
import {
  customFieldsInput,
  customValue,
  duplicateModeFields,
  integerInput,
  leadEmail,
  personName,
  refuseBothDuplicateModes,
} from '../leads';

const inRange = (min: number, max: number) =>
  integerInput.pipe(
    z.number().min(min, `must be between ${min} and ${max}`).max(max, `must be between ${min} and ${max}`),
  );

export const MAX_INGEST_TAGS = 20;

/** The fields rule 6 does not move to custom_fields. */
export const INGEST_FIELDS = {
  email: leadEmail.openapi({
    description: 'Email; unique among the organization’s leads (compared case-insensitively)',
  }),
  phone_number: blankableText(50).openapi({ description: 'Phone number, up to 50 characters', example: '+1 555 0100' }),
  profile_url: webAddress(2048).openapi({
    description:
      'Profile URL (http/https or a bare host and path); compared normalised for dedupe (no scheme, host lower-cased, no query string, fragment or trailing slash)',
    example: 'https://www.linkedin.com/in/ada',
  }),
  first_name: personName('Ada')
    .optional()
    .openapi({ description: 'First name, 2 to 50 characters (stored empty when omitted)' }),
  last_name: personName('Lovelace')
    .optional()
    .openapi({ description: 'Last name, 2 to 50 characters (stored empty when omitted)' }),
  company: blankableText(200).openapi({
    description: 'Company name; linked to the organization’s company of that name, or created',
    example: 'Analytical Engines Ltd',
  }),
  job_title: blankableText(200).openapi({ description: 'Job title, up to 200 characters', example: 'CTO' }),
  status: integerInput.optional().openapi({
    description:
      'Value of an active status lookup; default 1 while it is an active status, else the organization’s first active status',
    example: 1,
  }),
  priority: inRange(1, 4)
    .optional()
    .openapi({ type: 'integer', description: '1 Low, 2 Medium, 3 High, 4 Urgent; default 2', example: 2 }),
  lead_source: inRange(1, 5).optional().openapi({
    type: 'integer',
    description: '1 Website, 2 Referral, 3 Social profile, 4 Email, 5 Direct',
    example: 1,
  }),
  tags: z
    .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'))
    .max(MAX_INGEST_TAGS, `at most ${MAX_INGEST_TAGS} tags`)
    .optional()
    .openapi({
      description: `Tag names (at most ${MAX_INGEST_TAGS}, each up to 50 characters); a name the organization has no active tag for is created as a tag lookup`,
      example: ['webinar'],
    }),
  custom_fields: customFieldsInput.optional().openapi({
    description: 'Key/value custom fields (merged with any unlisted fields sent; at most 200 keys in all)',
  }),
  ...duplicateModeFields,
};

export const IngestLeadBody = z
  .object(INGEST_FIELDS)
  .catchall(customValue)
  .superRefine((body, ctx) => {
    if (!body.email && !body.phone_number && !body.profile_url) {
      ctx.addIssue({
        code: 'custom',
        path: ['email'],
        message: 'give at least one of email, phone_number, profile_url',
      });
    }
    refuseBothDuplicateModes(body, ctx);
    const unlisted = Object.keys(body).filter((key) => !Object.hasOwn(INGEST_FIELDS, key));
    if (unlisted.length + Object.keys(body.custom_fields ?? {}).length > 200) {
      ctx.addIssue({ code: 'custom', path: ['custom_fields'], message: 'at most 200 custom fields in all' });
    }
    for (const key of unlisted) {
      if (key.length > 100)
        ctx.addIssue({ code: 'custom', path: [key], message: 'field names must be at most 100 characters' });
    }
  })
  .openapi('IngestLeadRequest', {
    description:
      'A lead from an outside system: at least one of email, phone_number, profile_url. Any field not listed here is stored under custom_fields',
    example: {
      email: 'ada@example.com',
      first_name: 'Ada',
      company: 'Analytical Engines Ltd',
      lead_source: 1,
      tags: ['webinar'],
      utm_campaign: 'spring',
    },
  });
export type IngestLeadInput = z.output<typeof IngestLeadBody>;

export const IngestedLeadSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The new lead’s id' }),
    email: z.string().nullable().openapi({ description: 'Email as stored (domain lower-cased)' }),
    first_name: z.string().openapi({ description: 'First name as stored ("" when none was given)' }),
    company: z.string().nullable().openapi({ description: 'Company name as stored' }),
    status: z.number().int().openapi({ description: 'Status lookup value' }),
    priority: z.number().int().nullable().openapi({ description: 'Priority lookup value' }),
    score: z.number().int().openapi({ description: 'Lead score: 0 for a new lead' }),
    created_at: z.string().openapi({ description: 'When the lead was created (ISO 8601)', format: 'date-time' }),
  })
  .openapi('IngestedLead', {
    description: 'The lead as stored by POST /api/v1/lead',
    example: {
      id: 101,
      email: 'ada@example.com',
      first_name: 'Ada',
      company: 'Analytical Engines Ltd',
      status: 1,
      priority: 2,
      score: 0,
      created_at: '2026-01-15T09:30:00.000Z',
    },
  });
