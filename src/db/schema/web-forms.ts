/**
 * Hosted web forms: a public lead-capture page per form, reached by its unguessable `form_link`.
 * Submissions create (or merge into) leads of the form's organization.
 */
import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy, updatedAt } from './tenancy';

/** One lead field the form asks for. */
export interface WebFormField {
  name: string;
  required: boolean;
  label?: string | null;
}

export const webForms = pgTable(
  'web_forms',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    /** 24 random base64url characters: the public address of the form, looked up before any tenant is known. */
    formLink: text().notNull(),
    fields: jsonb().$type<WebFormField[]>().notNull(),
    redirectUrl: text(),
    thankYouMessage: text(),
    /** Tag names given to every lead the form creates (tag lookups created on first use). */
    tags: text().array().notNull().default(sql`'{}'::text[]`),
    assignedTo: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdBy: bigint({ mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('web_forms_form_link_key').on(table.formLink),
    index('web_forms_organization_id_idx').on(table.organizationId, table.id),
    tenantPolicy('web_forms'),
  ],
);
