/**
 * The company's one field table (spec "Company"): every wire field with its column, description,
 * response schema and write schemas. The add form (multipart: every value arrives as text), the
 * update body, the Company component, the selection and the presenter derive from it
 * (core/field-table.ts). The create schemas accept form text (numbers and lists as text); the update
 * schemas accept the same values as JSON.
 */
import { z } from '@hono/zod-openapi';
import { companies } from '../../db/schema';
import { blankableText, isoTimestamp, MAX_TEXT, nullishAs, text, timestamp, webAddress } from '../../core/schemas';
import { integerInput, leadEmail } from '../leads';
import { fileField, MAX_UPLOAD_MB } from '../files';
import { defineFields } from '../../core/field-table';
import { EMPLOYEE_SIZES, employeeSizeInput } from './firmographics';

const nullableText = z.string().nullable();
const iso = (value: Date) => isoTimestamp(value) as string;

export const rating = z
  .union([z.number(), z.string().trim().max(2).regex(/^\d$/, 'must be a whole number from 1 to 5').transform(Number)])
  .pipe(z.number().int('must be a whole number from 1 to 5').min(1, 'must be at least 1').max(5, 'must be at most 5'))
  .openapi({ type: 'integer', minimum: 1, maximum: 5, example: 4 });

const technologyList = z
  .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'))
  .max(50, 'at most 50 technologies');

/** A form field: "react, postgres" (comma-separated). */
const technologyText = z
  .string()
  .max(2_600)
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(technologyList);

export const companyFields = defineFields(
  companies,
  {
    id: { column: 'id', description: 'The company’s id (read-only)', read: z.number().int() },
    company_name: {
      column: 'companyName',
      description: 'Name, 1 to 200 characters; unique among the organization’s live companies (any letter case)',
      read: z.string(),
      create: text(1, 200).openapi({ example: 'Analytical Engines Ltd' }),
      update: text(1, 200).optional(),
    },
    industry_type: {
      column: 'industryType',
      description: 'Industry, up to 200 characters',
      read: nullableText,
      create: blankableText(200),
      update: blankableText(200),
    },
    company_logo: {
      column: 'companyLogo',
      description: `Logo URL. On add: an uploaded image (PNG, JPEG, GIF or WebP by content, at most ${MAX_UPLOAD_MB} MB) stored with the organization's files, answered as its download URL; on update: an http/https URL`,
      read: nullableText,
      create: fileField('The logo image').optional(),
      update: webAddress(2048),
    },
    address: {
      column: 'address',
      description: 'Street address, up to 500 characters',
      read: nullableText,
      create: blankableText(500),
      update: blankableText(500),
    },
    city: {
      column: 'city',
      description: 'City, up to 200 characters',
      read: nullableText,
      create: blankableText(200),
      update: blankableText(200),
    },
    country: {
      column: 'country',
      description: 'Country, up to 200 characters',
      read: nullableText,
      create: blankableText(200),
      update: blankableText(200),
    },
    employee_size: {
      column: 'employeeSize',
      description: `Headcount range, one of ${EMPLOYEE_SIZES.join(', ')}`,
      read: nullableText,
      create: employeeSizeInput,
      update: employeeSizeInput,
    },
    rating: {
      column: 'rating',
      description: 'Rating, a whole number from 1 to 5',
      read: z.number().int().nullable(),
      create: nullishAs(rating, 'integer'),
      update: nullishAs(rating, 'integer'),
    },
    contact_email: {
      column: 'contactEmail',
      description: 'The company’s contact email',
      read: nullableText,
      create: leadEmail,
      update: leadEmail,
    },
    phone_number: {
      column: 'phoneNumber',
      description: 'Phone number, up to 50 characters',
      read: nullableText,
      create: blankableText(50),
      update: blankableText(50),
    },
    website: {
      column: 'website',
      description: 'Website: a bare host (example.com) or an http/https URL, up to 2048 characters',
      read: nullableText,
      create: webAddress(2048),
      update: webAddress(2048),
    },
    website_domain: {
      column: 'websiteDomain',
      description:
        'The website’s host, lower-cased, without www. and port (read-only): what leads and contacts are matched on',
      read: nullableText,
    },
    summary: {
      column: 'summary',
      description: `Summary, up to ${MAX_TEXT} characters; its keywords count in the similarity score`,
      read: nullableText,
      create: blankableText(MAX_TEXT),
      update: blankableText(MAX_TEXT),
    },
    technologies: {
      column: 'technologies',
      description:
        'Technologies the company uses (at most 50, each up to 50 characters); in the add form a comma-separated text',
      read: z.array(z.string()),
      create: technologyText.optional(),
      update: technologyList.optional(),
    },
    assigned_to: {
      column: 'assignedTo',
      description: 'User id of the rep who owns the account (a user of the organization)',
      read: z.number().int().nullable(),
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
    },
    enrichment: {
      column: 'enrichment',
      description:
        'Values filled by POST /api/company/enrich, by field: {source, value, at} (read-only). A value a person set never appears here',
      read: z.record(
        z.string(),
        z.object({
          source: z.string().openapi({ description: 'Where the value came from', example: 'leads_at_domain' }),
          value: z.unknown().openapi({ description: 'The value filled' }),
          at: z.string().openapi({ description: 'When it was filled (ISO 8601)' }),
        }),
      ),
    },
    created_by: {
      column: 'createdBy',
      description: 'The user who created the company (read-only)',
      read: z.number().int().nullable(),
    },
    created_at: { column: 'createdAt', description: 'When created (read-only)', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When last changed (read-only)', read: timestamp(), present: iso },
  },
  {
    // Scope, the stored logo file behind company_logo, the soft delete, and a CRM import's provenance, the industry filter's key.
    internal: ['organizationId', 'logoFileId', 'deletedAt', 'externalSource', 'externalId', 'industryKey'],
  },
);

export type CompanyView = ReturnType<typeof companyFields.present>;
