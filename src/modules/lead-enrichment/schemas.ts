/**
 * The wire shapes of lead enrichment: what a caller sends (one person, or up to MAX_BULK of them),
 * the enriched profile ("profile lead") with each value's source and time, and the bulk job with
 * its per-item results.
 */
import { z } from '@hono/zod-openapi';
import { email, positiveId, timestamp, webAddress } from '../../core/schemas';
import { JOB_STATUSES } from '../../jobs/job-status';
import { PROFILE_FIELDS } from '../../providers/enrichment/interface';

export const MAX_BULK = 1_000;

const personShape = {
  email: email
    .nullish()
    .openapi({ description: 'The person’s email address', example: 'ada@analytical-engines.co.uk' }),
  profile_url: webAddress(2048).openapi({
    description: 'A professional-network profile URL; its slug can give the name',
    example: 'https://www.linkedin.com/in/ada-lovelace-1815',
  }),
  name: z.string().trim().min(1).max(200).nullish().openapi({ description: 'Full name', example: 'Ada Lovelace' }),
  company: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .nullish()
    .openapi({ description: 'Company name', example: 'Analytical Engines' }),
  domain: webAddress(2048).openapi({
    description: 'The company’s domain or website: a bare host (example.com) or an http/https URL',
    example: 'https://analytical-engines.co.uk',
  }),
  phone_number: z.string().trim().min(3).max(50).nullish().openapi({
    description: 'Beyond the spec: a phone number in international form, for its country and line type',
    example: '+44 20 7946 0958',
  }),
};

const PERSON_KEYS = ['email', 'profile_url', 'name', 'company', 'domain'] as const;
const oneGiven = (body: Record<string, unknown>) => PERSON_KEYS.some((key) => body[key] != null && body[key] !== '');

export const EnrichBody = z
  .object({
    lead_id: positiveId.optional().openapi({
      type: 'integer',
      description:
        'A lead of the organization to enrich: its email, profile URL, name, company, website and phone are used, and the profile is merged into it',
      example: 12,
    }),
    ...personShape,
  })
  .refine((body) => body.lead_id !== undefined || oneGiven(body), {
    message: 'give at least one of lead_id, email, profile_url, name, company, domain',
    path: ['lead_id'],
  })
  .openapi('EnrichLeadRequest', {
    description: 'At least one of lead_id, email, profile_url, name, company, domain',
    example: { email: 'ada@analytical-engines.co.uk', profile_url: 'https://www.linkedin.com/in/ada-lovelace-1815' },
  });
export type EnrichInput = z.output<typeof EnrichBody>;

export const BulkItem = z
  .object(personShape)
  .refine(oneGiven, { message: 'give at least one of email, profile_url, name, company, domain', path: ['email'] })
  .openapi('BulkEnrichItem', {
    description: 'One person: at least one of email, profile_url, name, company, domain',
    example: { email: 'ada@analytical-engines.co.uk' },
  });
export type BulkItemInput = z.output<typeof BulkItem>;

export const BulkEnrichBody = z
  .object({
    leads: z
      .array(BulkItem)
      .min(1)
      .max(MAX_BULK, `must hold at most ${MAX_BULK} items`)
      .openapi({ description: `The people to enrich, 1 to ${MAX_BULK}` }),
    group_id: positiveId
      .optional()
      .openapi({ type: 'integer', description: 'A number of the caller’s choosing, kept on the job', example: 7 }),
  })
  .openapi('BulkEnrichRequest', {
    description: 'People to enrich in one job',
    example: {
      leads: [{ email: 'ada@analytical-engines.co.uk' }, { profile_url: 'https://www.linkedin.com/in/grace-hopper' }],
    },
  });

const EnrichedValueSchema = z
  .object({
    value: z.union([z.string(), z.number(), z.boolean()]).openapi({ description: 'The value' }),
    source: z
      .string()
      .openapi({ description: '`input`, `local:<rule>` or the provider (`apollo`)', example: 'local:email_domain' }),
    at: timestamp('When it was found'),
  })
  .openapi('EnrichedValue', {
    description: 'An enriched value with its source and time',
    example: { value: 'Analytical Engines', source: 'local:email_domain', at: '2026-05-04T10:00:00.000Z' },
  });

export const ProfileLeadSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The profile lead’s id' }),
    lead_id: z.number().int().nullable().openapi({ description: 'The lead it was merged into; null when none' }),
    provider: z
      .string()
      .openapi({ description: 'The provider that enriched it: `local` or `apollo`', example: 'local' }),
    local: z.boolean().openapi({ description: 'True when no outside service was asked' }),
    full_name: z.string().nullable().openapi({ description: 'First and last name, when known' }),
    email: z.string().nullable().openapi({ description: 'Email address, when known' }),
    company: z.string().nullable().openapi({ description: 'Company name, when known' }),
    domain: z.string().nullable().openapi({ description: 'Company domain, when known' }),
    profile_url: z.string().nullable().openapi({ description: 'Profile URL, when known' }),
    fields: z
      .object(Object.fromEntries(PROFILE_FIELDS.map((field) => [field, EnrichedValueSchema.optional()])))
      .openapi({ description: `Every value found, each with its source and time: ${PROFILE_FIELDS.join(', ')}` }),
    filled: z
      .array(z.string())
      .openapi({ description: 'The lead’s empty fields this enrichment filled (empty without a lead)' }),
    job_id: z.number().int().nullable().openapi({ description: 'The bulk job it came from; null for a single call' }),
    created_at: timestamp('When it was enriched'),
  })
  .openapi('ProfileLead', {
    description: 'An enriched profile',
    example: {
      id: 3,
      lead_id: 12,
      provider: 'local',
      local: true,
      full_name: 'Ada Lovelace',
      email: 'ada@analytical-engines.co.uk',
      company: 'Analytical Engines',
      domain: 'analytical-engines.co.uk',
      profile_url: null,
      fields: {
        company: { value: 'Analytical Engines', source: 'local:email_domain', at: '2026-05-04T10:00:00.000Z' },
      },
      filled: ['website'],
      job_id: null,
      created_at: '2026-05-04T10:00:00.000Z',
    },
  });

export const EnrichmentItemSchema = z
  .object({
    item: z.number().int().openapi({ description: 'The item’s position in `leads`, from 0' }),
    status: z.enum(['completed', 'failed']).openapi({ description: 'completed, or failed with an error' }),
    profile_lead_id: z.number().int().nullable().openapi({ description: 'The profile lead it produced' }),
    error: z.string().nullable().openapi({ description: 'Why it failed; null otherwise' }),
  })
  .openapi('EnrichmentItemResult', {
    description: 'One bulk item’s outcome',
    example: { item: 0, status: 'completed', profile_lead_id: 3, error: null },
  });

export const EnrichmentJobSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The job’s id' }),
    status: z.enum(JOB_STATUSES).openapi({ description: 'queued, running, completed or failed' }),
    group_id: z.number().int().nullable().openapi({ description: 'The group_id sent, if any' }),
    total: z.number().int().openapi({ description: 'Items in the job' }),
    processed: z.number().int().openapi({ description: 'Items done so far (completed or failed)' }),
    succeeded: z.number().int().openapi({ description: 'Items enriched' }),
    failed: z.number().int().openapi({ description: 'Items that failed' }),
    percentage: z.number().int().openapi({ description: 'processed / total as a whole percentage' }),
    items: z.array(EnrichmentItemSchema).openapi({ description: 'Per-item results so far, in item order' }),
    error: z.string().nullable().openapi({ description: 'Why the whole job failed; null otherwise' }),
    created_by: z.number().int().nullable().openapi({ description: 'The user who asked for it' }),
    started_at: timestamp('When a delivery first started it').nullable(),
    finished_at: timestamp('When it ended').nullable(),
    created_at: timestamp('When it was asked for'),
  })
  .openapi('LeadEnrichmentJob', {
    description: 'A bulk enrichment job with its progress and per-item results',
    example: {
      id: 5,
      status: 'completed',
      group_id: null,
      total: 2,
      processed: 2,
      succeeded: 2,
      failed: 0,
      percentage: 100,
      items: [{ item: 0, status: 'completed', profile_lead_id: 3, error: null }],
      error: null,
      created_by: 1,
      started_at: '2026-05-04T10:00:00.000Z',
      finished_at: '2026-05-04T10:00:02.000Z',
      created_at: '2026-05-04T10:00:00.000Z',
    },
  });

export const ProfileLeadFilters = {
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .openapi({ description: 'The spec’s name for search_value: name, email, company or domain contains it' }),
};
