/**
 * Request and response shapes of the contacts module (spec "Contact", "Contacts and
 * companies"). The contact's own shapes derive from its field table (fields.ts).
 */
import { z } from '@hono/zod-openapi';
import { bulkTargetBody } from '../companies';
import { integerInput } from '../leads';
import { contactFields, contactTags, leadScore } from './fields';
import { contactFiltersObject } from './filters';

export const contactExample = {
  id: 5,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone_number: '+44 20 7946 0000',
  company_id: 3,
  lead_id: 1,
  designation: 'Head of Research',
  seniority: 'VP',
  decision_maker: 'yes',
  profile_url: 'https://www.linkedin.com/in/ada',
  lead_score: 70,
  status: 2,
  tags: ['emea'],
  created_by: 1,
  created_at: '2026-01-15T09:30:00.000Z',
  updated_at: '2026-01-16T10:00:00.000Z',
};

export const ContactSchema = z.object(contactFields.readShape).openapi('Contact', {
  description: 'A contact (a person at a company) of the organization',
  example: contactExample,
});

export const AddContactBody = z.object(contactFields.createShape).openapi('AddContactRequest', {
  description: 'A new contact: name and company_id are required, everything else optional',
  example: { name: 'Ada Lovelace', company_id: 3, email: 'ada@example.com', designation: 'CTO', tags: ['emea'] },
});
export type AddContactInput = z.output<typeof AddContactBody>;

export const UpdateContactBody = z.object(contactFields.updateShape).openapi('UpdateContactRequest', {
  description: 'The contact fields to change: omitted fields keep their value, null clears a clearable one',
  example: { designation: 'CEO', lead_score: 85 },
});
export type UpdateContactInput = z.output<typeof UpdateContactBody>;

export type ContactTarget = {
  contact_ids?: number[];
  ids?: number[];
  select_all?: boolean;
  filters?: z.output<typeof contactFiltersObject>;
};

const bulkChanges = {
  company_id: integerInput.optional().openapi({
    description: 'Move the contacts to this live company of the organization (404 otherwise)',
    example: 3,
  }),
  lead_score: leadScore.nullable().optional().openapi({ description: 'Set this score (0 to 100; null clears it)' }),
  tags: contactTags
    .optional()
    .openapi({ description: 'Replace the contacts’ tags with exactly these ([] removes all)' }),
};

export const BulkUpdateContactsBody = bulkTargetBody({
  name: 'BulkUpdateContactsRequest',
  idsKey: 'contact_ids',
  noun: 'contacts',
  filters: contactFiltersObject,
  changes: bulkChanges,
  example: { select_all: true, filters: { company_id: '3' }, lead_score: 80 },
});
export type BulkUpdateContactsInput = z.output<typeof BulkUpdateContactsBody>;

export const DeleteContactsBody = bulkTargetBody({
  name: 'DeleteContactsRequest',
  idsKey: 'ids',
  noun: 'contacts',
  filters: contactFiltersObject,
  example: { ids: [5, 6] },
});

export const BulkUpdateResult = z
  .object({ updated: z.number().int().openapi({ description: 'How many contacts changed' }) })
  .openapi('ContactBulkUpdateResult', {
    description: 'The outcome of a bulk update (contacts already holding the values do not count)',
    example: { updated: 2 },
  });
