/**
 * The contact's one field table (spec "Contact"): every wire field with its column, description,
 * response schema and write schemas; the add and update bodies, the Contact component, the
 * selection and the presenter derive from it (core/field-table.ts).
 */
import { z } from '@hono/zod-openapi';
import { contacts } from '../../db/schema';
import { blankableText, isoTimestamp, nullishAs, text, timestamp, webAddress } from '../../core/schemas';
import { defineFields } from '../../core/field-table';
import { integerInput, leadEmail } from '../leads';

const nullableText = z.string().nullable();
const nullableInteger = z.number().int().nullable();
const iso = (value: Date) => isoTimestamp(value) as string;

export const leadScore = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be at least 0')
  .max(100, 'must be at most 100')
  .openapi({ example: 70 });

/** Free-form tags: each 1 to 50 characters, at most 50; compared as given. */
export const contactTags = z
  .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'))
  .max(50, 'at most 50 tags')
  .transform((tags) => [...new Set(tags)])
  .openapi({ example: ['decision-maker', 'emea'] });

export const contactFields = defineFields(
  contacts,
  {
    id: { column: 'id', description: 'The contact’s id (read-only)', read: z.number().int() },
    name: {
      column: 'name',
      description: 'Full name, 1 to 200 characters',
      read: z.string(),
      create: text(1, 200).openapi({ example: 'Ada Lovelace' }),
      update: text(1, 200).optional(),
    },
    email: {
      column: 'email',
      description: 'Email, unique among the organization’s live contacts (compared case-insensitively)',
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
    company_id: {
      column: 'companyId',
      description: 'A live company of the organization (404 otherwise); required on add',
      read: nullableInteger,
      create: integerInput.openapi({ example: 3 }),
      update: integerInput.optional(),
    },
    lead_id: {
      column: 'leadId',
      description: 'A live lead of the organization this contact came from (422 otherwise)',
      read: nullableInteger,
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
    },
    designation: {
      column: 'designation',
      description: 'Job title, up to 200 characters',
      read: nullableText,
      create: blankableText(200),
      update: blankableText(200),
    },
    seniority: {
      column: 'seniority',
      description: 'Seniority (e.g. C-level, VP, Manager), up to 100 characters',
      read: nullableText,
      create: blankableText(100),
      update: blankableText(100),
    },
    decision_maker: {
      column: 'decisionMaker',
      description: 'Decision-maker role or flag as text (e.g. yes, economic buyer), up to 100 characters',
      read: nullableText,
      create: blankableText(100),
      update: blankableText(100),
    },
    profile_url: {
      column: 'profileUrl',
      description: 'Profile URL: a bare host and path or an http/https URL, up to 2048 characters',
      read: nullableText,
      create: webAddress(2048),
      update: webAddress(2048),
    },
    lead_score: {
      column: 'leadScore',
      description: 'Score, a whole number from 0 to 100',
      read: nullableInteger,
      create: nullishAs(leadScore, 'integer'),
      update: nullishAs(leadScore, 'integer'),
    },
    status: {
      column: 'status',
      description: 'Value of an active status lookup of the organization (the leads’ statuses)',
      read: nullableInteger,
      create: nullishAs(integerInput, 'integer'),
      update: nullishAs(integerInput, 'integer'),
    },
    tags: {
      column: 'tags',
      description:
        'Free-form tags (at most 50, each 1 to 50 characters); on update the list replaces the contact’s tags',
      read: z.array(z.string()),
      create: contactTags.optional(),
      update: contactTags.optional(),
    },
    created_by: {
      column: 'createdBy',
      description: 'The user who created the contact (read-only)',
      read: nullableInteger,
    },
    created_at: { column: 'createdAt', description: 'When created (read-only)', read: timestamp(), present: iso },
    updated_at: { column: 'updatedAt', description: 'When last changed (read-only)', read: timestamp(), present: iso },
  },
  {
    // Scope and the soft delete.
    internal: ['organizationId', 'deletedAt'],
  },
);

export type ContactView = ReturnType<typeof contactFields.present>;
