import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { organizations, users } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/** Bytes stored in R2 under a key that starts with the organization id; metadata here. */
export const storedFiles = pgTable(
  'stored_files',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    storageKey: text().notNull(),
    fileName: text().notNull(),
    contentType: text().notNull(),
    sizeBytes: bigint({ mode: 'number' }).notNull(),
    /** upload, document, profile_image, import, export */
    category: text().notNull(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
  },
  (table) => [
    index('stored_files_organization_id_idx').on(table.organizationId, table.id),
    tenantPolicy('stored_files'),
  ],
);

/**
 * A file attached to a record (lead documents, files attached from a provider such as a
 * drive). `file_id` points at our own stored file when the bytes live in R2.
 */
export const attachments = pgTable(
  'attachments',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    subjectType: text().notNull(),
    subjectId: bigint({ mode: 'number' }).notNull(),
    provider: text().notNull(),
    category: text().notNull(),
    name: text().notNull(),
    mimeType: text(),
    webUrl: text(),
    externalId: text(),
    fileId: bigint({ mode: 'number' }).references(() => storedFiles.id),
    documentType: text(),
    description: text(),
    createdBy: bigint({ mode: 'number' }).references(() => users.id),
    createdAt: createdAt(),
  },
  (table) => [
    // Parent deletes find this table's rows by it (the foreign key's check or cascade): migration 0066.
    index('attachments_file_idx').on(table.fileId),
    index('attachments_organization_subject_idx').on(
      table.organizationId,
      table.subjectType,
      table.subjectId,
      table.id,
    ),
    tenantPolicy('attachments'),
  ],
);
