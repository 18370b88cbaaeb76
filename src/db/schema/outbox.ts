import { index, jsonb, pgTable } from 'drizzle-orm/pg-core';
import type { JobMessage } from '../../jobs/messages';
import { organizations } from './organizations';
import { createdAt, id, organizationRef, tenantPolicy } from './tenancy';

/**
 * The transactional outbox (see src/jobs/outbox.ts): a queue message written in the same
 * transaction as the job it starts, sent after commit and then deleted. A row still here a few
 * seconds after it was written is a send that failed or never ran; the cron sweep sends it.
 */
export const jobOutbox = pgTable(
  'job_outbox',
  {
    id: id(),
    organizationId: organizationRef().references(() => organizations.id, { onDelete: 'cascade' }),
    message: jsonb().$type<JobMessage>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('job_outbox_created_at_idx').on(table.createdAt, table.id), tenantPolicy('job_outbox')],
);
