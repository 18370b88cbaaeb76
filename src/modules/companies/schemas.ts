/**
 * Request and response shapes of the companies module (spec "Company", "Contacts and
 * companies"). The company's own shapes derive from its field table (fields.ts).
 */
import { z } from '@hono/zod-openapi';
import { booleanFlag, positiveId, webAddress } from '../../core/schemas';
import { fileField, MAX_UPLOAD_MB } from '../files';
import { bulkTargetBody } from './bulk-target';
import { companyFields } from './fields';
import { companyFilterShape, companyFiltersObject } from './filters';

export const companyExample = {
  id: 3,
  company_name: 'Analytical Engines Ltd',
  industry_type: 'Software',
  company_logo: '/api/storage-file/download/14',
  address: '12 St James’s Square',
  city: 'London',
  country: 'United Kingdom',
  employee_size: '51-200',
  rating: 4,
  contact_email: 'hello@example.com',
  phone_number: '+44 20 7946 0000',
  website: 'https://www.example.com',
  website_domain: 'example.com',
  summary: 'Payments infrastructure for marketplaces',
  technologies: ['react', 'postgres'],
  assigned_to: 2,
  enrichment: { country: { source: 'leads_at_domain', value: 'United Kingdom', at: '2026-01-16T10:00:00.000Z' } },
  created_by: 1,
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-16T10:00:00.000Z',
};

export const CompanySchema = z.object(companyFields.readShape).openapi('Company', {
  description: 'A company (account) of the organization',
  example: companyExample,
});

/** In a form, company_logo is an image file to store, or the URL of one (a text field). */
const logoFormField = z
  .union([
    fileField(`The logo image (PNG, JPEG, GIF or WebP by content, at most ${MAX_UPLOAD_MB} MB)`),
    webAddress(2048),
  ])
  .optional()
  .openapi({ description: 'The logo: an image file to store with the organization’s files, or an http/https URL' });

export const AddCompanyForm = z
  .object({ ...companyFields.createShape, company_logo: logoFormField })
  .openapi('AddCompanyForm', {
    description:
      'A multipart form: company_name is required, everything else optional; company_logo is an image file or a URL, technologies a comma-separated text',
    example: { company_name: 'Analytical Engines Ltd', city: 'London', employee_size: '51-200', rating: 4 },
  });

export const AddCompanyBody = z
  .object({ ...companyFields.updateShape, company_name: companyFields.createShape.company_name })
  .openapi('AddCompanyRequest', {
    description:
      'A JSON body: company_name is required, everything else optional; company_logo is an http/https URL, technologies a list',
    example: {
      company_name: 'Analytical Engines Ltd',
      city: 'London',
      employee_size: '51-200',
      rating: 4,
      company_logo: 'https://www.example.com/logo.png',
      technologies: ['react', 'postgres'],
    },
  });
/** Add as JSON or as a form: company_logo a URL, or (form only) an uploaded file. */
export type AddCompanyInput = z.output<typeof AddCompanyForm> | z.output<typeof AddCompanyBody>;

export const UpdateCompanyBody = z.object(companyFields.updateShape).openapi('UpdateCompanyRequest', {
  description: 'The company fields to change: omitted fields keep their value, null clears a clearable one',
  example: { industry_type: 'Fintech', rating: 5, technologies: ['react', 'kafka'] },
});

export const UpdateCompanyForm = z
  .object({ ...companyFields.createShape, company_logo: logoFormField })
  .partial()
  .openapi('UpdateCompanyForm', {
    description:
      'A multipart form of the fields to change: omitted fields keep their value, an empty one clears a clearable one; company_logo is an image file or a URL, technologies a comma-separated text',
    example: { industry_type: 'Fintech', rating: 5 },
  });
/** Update as JSON or as a form: company_logo a URL, or (form only) an uploaded file. */
export type UpdateCompanyInput = z.output<typeof UpdateCompanyBody> | z.output<typeof UpdateCompanyForm>;

export const DeleteCompaniesBody = bulkTargetBody({
  name: 'DeleteCompaniesRequest',
  idsKey: 'ids',
  noun: 'companies',
  filters: companyFiltersObject,
  example: { ids: [3, 4] },
  options: {
    force: z.boolean().optional().openapi({
      description:
        'true: delete companies that still have open deals too (the deals stay, on their leads); otherwise such a request is refused whole with 409 company_has_open_deals',
    }),
  },
});
export type CompanyTarget = { ids?: number[]; select_all?: boolean; filters?: z.output<typeof companyFiltersObject> };

export const DeleteCompanyQuery = z.object({
  force: booleanFlag.optional().openapi({
    description: 'true: delete the company even though it has open deals (else 409 company_has_open_deals)',
  }),
});

const countRow = z
  .object({
    value: z.string().nullable().openapi({ description: 'The value; null groups the companies without one' }),
    count: z.number().int().openapi({ description: 'How many companies have it' }),
  })
  .openapi('CompanyStatsBucket', { description: 'One value and its count', example: { value: 'Software', count: 4 } });

export const CompanyStatsSchema = z
  .object({
    total: z.number().int().openapi({ description: 'Companies matching the filters' }),
    by_industry: z.array(countRow).openapi({ description: 'Companies by industry_type, most first' }),
    by_employee_size: z.array(countRow).openapi({ description: 'Companies by employee_size band, most first' }),
    by_country: z.array(countRow).openapi({ description: 'Companies by country, most first' }),
    companies: z
      .array(
        z
          .object({
            id: z.number().int().openapi({ description: 'The company’s id' }),
            company_name: z.string().openapi({ description: 'Its name' }),
            lead_count: z.number().int().openapi({ description: 'Live leads linked to it (company_id)' }),
            contact_count: z.number().int().openapi({ description: 'Live contacts of it' }),
            open_deal_count: z
              .number()
              .int()
              .openapi({ description: 'Open deals (outcome open) of its live linked leads', example: 2 }),
            open_pipeline_value: z
              .number()
              .openapi({ description: 'Sum of the values of those open deals', example: 15000 }),
          })
          .openapi({ description: 'A company with its counts' }),
      )
      .openapi({ description: 'The matching companies with the most leads (at most `limit`), then by id' }),
  })
  .openapi('CompanyStats', {
    description: 'Counts over the companies matching the filters',
    example: {
      total: 2,
      by_industry: [{ value: 'Software', count: 2 }],
      by_employee_size: [
        { value: '51-200', count: 1 },
        { value: null, count: 1 },
      ],
      by_country: [{ value: 'Germany', count: 2 }],
      companies: [
        {
          id: 3,
          company_name: 'Analytical Engines Ltd',
          lead_count: 12,
          contact_count: 3,
          open_deal_count: 2,
          open_pipeline_value: 15000,
        },
      ],
    },
  });

const smallLimit = (max: number, description: string) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(10)
    .openapi({ description, type: 'integer', minimum: 1, maximum: max });

export const CompanyStatsQuery = z.object({
  ...companyFilterShape,
  limit: smallLimit(100, 'How many companies `companies` lists (1 to 100, default 10)'),
});

export const SimilarQuery = z.object({ limit: smallLimit(50, 'How many similar companies (1 to 50, default 10)') });

export const SimilarCompanySchema = z
  .object({
    id: z.number().int().openapi({ description: 'The similar company’s id' }),
    company_name: z.string().openapi({ description: 'Its name' }),
    industry_type: z.string().nullable().openapi({ description: 'Its industry' }),
    employee_size: z.string().nullable().openapi({ description: 'Its headcount band' }),
    country: z.string().nullable().openapi({ description: 'Its country' }),
    score: z.number().openapi({
      description:
        'Similarity from 0 to 1: points / 10, rounded to 2 decimals (industry 3, size band 2 or adjacent 1, country 1, shared technologies up to 3, shared summary keywords up to 1)',
    }),
    reasons: z.array(z.string()).openapi({ description: 'Why it matched, one line per criterion that counted' }),
  })
  .openapi('SimilarCompany', {
    description: 'A company like the one asked about, with its score and reasons',
    example: {
      id: 4,
      company_name: 'Difference Engines GmbH',
      industry_type: 'Software',
      employee_size: '201-500',
      country: 'Germany',
      score: 0.45,
      reasons: ['same industry: software', 'adjacent size band: 201-500', 'shared technologies: react'],
    },
  });

export const EnrichCompanyBody = z
  .object({
    company_id: positiveId.openapi({ description: 'A live company of the organization (404 otherwise)', example: 3 }),
  })
  .openapi('EnrichCompanyRequest', { description: 'The company to enrich', example: { company_id: 3 } });
