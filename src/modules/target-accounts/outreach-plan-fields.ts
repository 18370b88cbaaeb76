/**
 * The outreach plan's one field table: the add body, the OutreachPlan component, the selection
 * and the presenter derive from it (core/field-table.ts). `contact_name` is read from the contact.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { defineFields, storedAs } from '../../core/field-table';
import { isoTimestamp, MAX_TEXT, nullishAs, positiveId, timestamp, timestampInput } from '../../core/schemas';
import { contacts, outreachPlans } from '../../db/schema';

export const OUTREACH_CHANNELS = ['email', 'phone', 'linkedin', 'meeting', 'other'] as const;

const iso = (value: Date) => isoTimestamp(value) as string;

const instant = timestampInput({ offset: 'required' });

/** The contact's name, for the plan's selection and the list's search. */
export const contactName = sql<
  string | null
>`(select c.name from ${contacts} c where c.id = ${outreachPlans.contactId})`;

export const outreachPlanFields = defineFields(
  outreachPlans,
  {
    id: { column: 'id', description: 'The plan’s id', read: z.number().int() },
    target_account_id: { column: 'targetAccountId', description: 'The target account', read: z.number().int() },
    contact_id: {
      column: 'contactId',
      description: 'Who to reach: a live contact of the account’s company (a stakeholder or not)',
      read: z.number().int(),
      create: positiveId.openapi({ type: 'integer', example: 11 }),
    },
    contact_name: { select: contactName, description: 'The contact’s name (read-only)', read: z.string().nullable() },
    channel: {
      column: 'channel',
      description: `How: ${OUTREACH_CHANNELS.join(', ')}`,
      read: z.enum(OUTREACH_CHANNELS),
      present: storedAs<(typeof OUTREACH_CHANNELS)[number]>(),
      create: z.enum(OUTREACH_CHANNELS, { error: `must be one of ${OUTREACH_CHANNELS.join(', ')}` }),
    },
    scheduled_at: {
      column: 'scheduledAt',
      description: 'When, ISO 8601 with a time zone (Z or an offset); answered in UTC',
      read: timestamp(),
      present: iso,
      create: instant,
    },
    assigned_to: {
      column: 'assignedTo',
      description: 'The user who does it (a user of the organization); absent on add: the caller; null: nobody',
      read: z.number().int().nullable(),
      create: nullishAs(positiveId, 'integer').openapi({ example: 4 }),
    },
    notes: {
      column: 'notes',
      description: `Notes, up to ${MAX_TEXT} characters`,
      read: z.string().nullable(),
      create: z.string().trim().max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`).nullish(),
    },
    created_by: { column: 'createdBy', description: 'The user who planned it', read: z.number().int().nullable() },
    created_at: { column: 'createdAt', description: 'When it was planned', read: timestamp(), present: iso },
  },
  {
    // Scope; a plan is never changed, so updatedAt is not on the wire.
    internal: ['organizationId', 'updatedAt'],
  },
);

export type OutreachPlanRecord = ReturnType<typeof outreachPlanFields.present>;
