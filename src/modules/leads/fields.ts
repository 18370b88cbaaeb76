/**
 * The lead's one field table: every field of the wire's Lead, in wire order, with its column
 * (or how it is derived on read), its description (the OpenAPI document's only one), how it is
 * validated on create and update and how a write applies it, how it is presented, exported and
 * imported. Everything else derives from it (core/field-table.ts): the zod shapes, the selection
 * and presenter, the insert/merge/update column lists, the export columns and the import aliases.
 * `defineFields` makes a column without a field, a field without a column, or a presenter/export
 * cell that does not fit its types a compile error.
 */
import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { leads } from '../../db/schema';
import { type ColumnKey, defineFields, type SelectedRow } from '../../core/field-table';
import { blankableText, isoTimestamp, MAX_TEXT, nullishAs, timestamp, webAddress } from '../../core/schemas';
import {
  aiInformationInput,
  amount,
  customFieldsInput,
  integerInput,
  leadEmail,
  personName,
  TagRef,
  tagIds,
} from './field-inputs';
import { leadLookupLabel, leadTagRefs } from './lead-lookups';
import { ScoreFactorSchema, type ScoreFactorsCell, scoreFactorsCell } from './score-fields';

export type LeadColumnKey = ColumnKey<typeof leads>;

/** Drizzle renders columns inside `sql` unqualified, which a correlated subquery would resolve against its own tables. */
const outer = (column: string): SQL => sql.raw(`"leads"."${column}"`);
const iso = (value: Date) => isoTimestamp(value) as string;
const isoOrNull = (value: Date | null) => isoTimestamp(value);
const text = z.string().nullable();
const integer = z.number().int().nullable();

export const leadFields = defineFields(
  leads,
  {
    id: { column: 'id', description: 'The lead’s id (read-only)', read: z.number().int(), export: true },
    first_name: {
      column: 'firstName',
      description: 'First name, 2 to 50 characters after trimming',
      read: z.string(),
      create: personName('Ada'),
      update: personName('Ada').optional(),
      export: true,
      importAliases: ['firstname', 'first', 'given_name', 'forename'],
    },
    last_name: {
      column: 'lastName',
      description: 'Last name, 2 to 50 characters after trimming',
      read: z.string(),
      create: personName('Lovelace'),
      update: personName('Lovelace').optional(),
      export: true,
      importAliases: ['lastname', 'last', 'surname', 'family_name'],
    },
    email: {
      column: 'email',
      description: 'Unique among the organization’s live leads; domain lower-cased',
      read: text,
      create: leadEmail,
      update: leadEmail,
      export: true,
      importAliases: ['email_address', 'e_mail', 'mail', 'email_id', 'work_email'],
    },
    phone_number: {
      column: 'phoneNumber',
      description: 'Phone number, up to 50 characters',
      read: text,
      create: blankableText(50),
      update: blankableText(50),
      export: true,
      importAliases: [
        'phone',
        'phone_no',
        'telephone',
        'tel',
        'mobile',
        'mobile_number',
        'mobile_phone',
        'cell',
        'contact_number',
      ],
    },
    company: {
      column: 'company',
      description: 'Company name: linked case-insensitively to the organization’s company, or created',
      read: text,
      create: blankableText(200),
      update: blankableText(200),
      write: 'resolved',
      export: true,
      importAliases: ['company_name', 'organization', 'organisation', 'account_name', 'employer'],
    },
    company_id: {
      column: 'companyId',
      description: 'Id of the linked company of the organization (on write it wins over `company`)',
      read: integer,
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
      write: 'resolved',
    },
    job_title: {
      column: 'jobTitle',
      description: 'Job title, up to 200 characters',
      read: text,
      create: blankableText(200),
      update: blankableText(200),
      export: true,
      importAliases: ['title', 'position', 'designation'],
    },
    industry: {
      column: 'industry',
      description: 'Industry, up to 200 characters',
      read: text,
      create: blankableText(200),
      update: blankableText(200),
      export: true,
      importAliases: [],
    },
    website: {
      column: 'website',
      description:
        'Website: a bare host (example.com) or an http/https URL, up to 2048 characters; other schemes are refused',
      read: text,
      create: webAddress(2048),
      update: webAddress(2048),
      export: true,
      importAliases: ['web_site', 'homepage', 'url'],
    },
    address: {
      column: 'address',
      description: 'Street address, up to 500 characters',
      read: text,
      create: blankableText(500),
      update: blankableText(500),
      export: true,
      importAliases: ['street', 'street_address', 'address_line_1'],
    },
    city: {
      column: 'city',
      description: 'City, up to 200 characters',
      read: text,
      create: blankableText(200),
      update: blankableText(200),
      export: true,
      importAliases: ['town'],
    },
    state: {
      column: 'state',
      description: 'State or region, up to 200 characters',
      read: text,
      create: blankableText(200),
      update: blankableText(200),
      export: true,
      importAliases: ['province', 'region', 'state_province'],
    },
    country: {
      column: 'country',
      description: 'Country, up to 200 characters',
      read: text,
      create: blankableText(200),
      update: blankableText(200),
      export: true,
      importAliases: [],
    },
    pin_code: {
      column: 'pinCode',
      description: 'Postal code, up to 20 characters',
      read: text,
      create: blankableText(20),
      update: blankableText(20),
      export: true,
      importAliases: ['pincode', 'zip', 'zip_code', 'zipcode', 'postal_code', 'postcode'],
    },
    status: {
      column: 'status',
      description: 'Value of an active status lookup; the first status when omitted',
      read: z.number().int(),
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
      export: true,
      importAliases: ['lead_status'],
    },
    status_text: {
      select: leadLookupLabel('status', outer('status'), outer('organization_id')),
      description: 'Label of the status lookup (read-only)',
      read: text,
      export: true,
    },
    priority: {
      column: 'priority',
      description: 'Value of an active priority lookup (1 Low … 4 Urgent by default)',
      read: integer,
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
      export: true,
      importAliases: [],
    },
    priority_text: {
      select: leadLookupLabel('priority', outer('priority'), outer('organization_id')),
      description: 'Label of the priority lookup (read-only)',
      read: text,
      export: true,
    },
    lead_source: {
      column: 'leadSource',
      description: 'Value of an active source lookup (1 Website … 5 Direct by default)',
      read: integer,
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
      export: true,
      importAliases: ['source'],
    },
    lead_source_text: {
      select: leadLookupLabel('source', outer('lead_source'), outer('organization_id')),
      description: 'Label of the source lookup (read-only)',
      read: text,
      export: true,
    },
    score: {
      column: 'score',
      description:
        'Lead score, 0 to 100: the chance of winning the lead under the organization’s scoring model (read-only; 0 until the lead is first scored, a few seconds after creation). `ai_information.score` explains it',
      read: z.number().int(),
      export: true,
    },
    fit_score: {
      column: 'fitScore',
      description:
        'Fit, 0 to 100: the score from firmographics alone (industry, company size, title seniority, country, source against the ideal profile), engagement at its mean; does not decay (read-only; null until scored)',
      read: integer,
      export: true,
    },
    engagement_score: {
      column: 'engagementScore',
      description:
        'Engagement, 0 to 100: the lead’s intent signals weighted by type, each halving every 7 days, capped at 100 (read-only; null until scored)',
      read: integer,
      export: true,
    },
    score_factors: {
      select: sql<ScoreFactorsCell | null>`("leads"."ai_information"->'score')`,
      description:
        'The factors that moved the score most, each with its signed contribution in log-odds: the positive and negative factors of `ai_information.score` (read-only; null until scored)',
      read: z
        .object({
          positive_factors: z
            .array(ScoreFactorSchema)
            .openapi({ description: 'Up to 3 factors that raised the score, strongest first' }),
          negative_factors: z
            .array(ScoreFactorSchema)
            .openapi({ description: 'Up to 3 factors that lowered the score, strongest first' }),
        })
        .nullable(),
      present: (value: ScoreFactorsCell | null) =>
        value
          ? { positive_factors: value.positive_factors ?? [], negative_factors: value.negative_factors ?? [] }
          : null,
      export: { cell: (value: ScoreFactorsCell | null) => scoreFactorsCell(value) },
    },
    estimated_value: {
      column: 'estimatedValue',
      description: 'Estimated value, not negative',
      read: z.number().nullable(),
      create: nullishAs(amount, 'number'),
      update: nullishAs(amount, 'number'),
      export: true,
      importAliases: ['value', 'deal_value'],
    },
    assigned_to: {
      column: 'assignedTo',
      description: 'User id of a rep of the organization',
      read: integer,
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
      export: true,
      importAliases: ['owner_id', 'assigned_user_id'],
    },
    profile_url: {
      column: 'profileUrl',
      description:
        'Profile URL (e.g. LinkedIn): a bare host and path or an http/https URL, up to 2048 characters; other schemes are refused',
      read: text,
      create: webAddress(2048),
      update: webAddress(2048),
      export: true,
      importAliases: ['profile'],
    },
    tags: {
      select: leadTagRefs(outer('id')),
      description: 'Ids of the organization’s tag lookups on write; {id, name, color} on read',
      read: z.array(TagRef),
      present: (value: { id: number; name: string; color: string | null }[]) =>
        value.map((tag) => ({ id: Number(tag.id), name: tag.name, color: tag.color })),
      create: tagIds.nullish(),
      update: tagIds.nullish(),
      write: 'relation',
      // Tag names, so the file reads well and re-imports (the import resolves names).
      export: {
        cell: (value: { name: string }[]) =>
          value
            .map((tag) => tag.name)
            .sort()
            .join(', ') || null,
      },
      importAliases: ['tag'],
    },
    custom_fields: {
      column: 'customFields',
      description: 'Key/value custom fields, merged key by key on update (a null value removes the key)',
      read: z.record(z.string(), z.unknown()),
      create: customFieldsInput.nullish(),
      update: customFieldsInput.nullish(),
      write: 'merge_keys',
      export: { cell: (value: Record<string, unknown>) => (Object.keys(value).length ? JSON.stringify(value) : null) },
    },
    notes: {
      column: 'notes',
      description: `Notes, up to ${MAX_TEXT} characters`,
      read: text,
      create: blankableText(MAX_TEXT),
      update: blankableText(MAX_TEXT),
      export: true,
      importAliases: ['note', 'comments', 'comment', 'description'],
    },
    ai_information: {
      column: 'aiInformation',
      description:
        'AI enrichment data: read-only on create; merged key by key on update (a key sent as null is removed). The keys the service writes, `score` (the scoring model’s explanation) and `enrichment` (the enrichment record), cannot be set or removed: 422 naming `ai_information.score` or `ai_information.enrichment`',
      read: z.record(z.string(), z.unknown()),
      update: aiInformationInput.nullish(),
      write: 'merge_keys',
    },
    last_activity_at: {
      column: 'lastActivityAt',
      description: 'When a note, follow-up or other activity last touched the lead (read-only)',
      read: timestamp().nullable(),
      present: isoOrNull,
    },
    created_at: {
      column: 'createdAt',
      description: 'When the lead was created (read-only)',
      read: timestamp(),
      present: iso,
      export: true,
    },
    updated_at: {
      column: 'updatedAt',
      description: 'When the lead last changed (read-only)',
      read: timestamp(),
      present: iso,
      export: true,
    },
  },
  {
    /** Columns of `leads` that are not fields of the wire's Lead (scope, provenance, soft delete, derived flags). */
    internal: [
      'organizationId',
      'profileImageFileId',
      'importJobId',
      'importRow',
      // A CRM import's provenance (the CRM and its record id), read by the import alone.
      'externalSource',
      'externalId',
      'createdBy',
      'deletedAt',
      'duplicateOf',
      'profileUrlKey',
      // Derived from the lead's deals by a trigger, for the rollups and account health; the deals say it on the wire.
      'openDeals',
      'wonDeals',
    ],
    /** The order files have always had (notes before custom_fields, unlike the wire). */
    exportOrder: [
      'id',
      'first_name',
      'last_name',
      'email',
      'phone_number',
      'company',
      'job_title',
      'industry',
      'website',
      'address',
      'city',
      'state',
      'country',
      'pin_code',
      'status',
      'status_text',
      'priority',
      'priority_text',
      'lead_source',
      'lead_source_text',
      'score',
      'fit_score',
      'engagement_score',
      'score_factors',
      'estimated_value',
      'assigned_to',
      'profile_url',
      'tags',
      'notes',
      'custom_fields',
      'created_at',
      'updated_at',
    ],
  },
);

export type LeadFieldName = keyof typeof leadFields.spec;
/** A row selected with `leadFields.selection`, keyed by wire name. */
export type LeadRow = SelectedRow<typeof leads, typeof leadFields.spec>;
