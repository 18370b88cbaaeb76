/**
 * The meeting list's filters and the one WHERE they make in the caller's organization, shared by
 * the list and the saved queries.
 */
import type { z } from '@hono/zod-openapi';
import { eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { idList, positiveId, timestampInput } from '../../core/schemas';
import { meetings } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';

const instantFilter = (description: string) =>
  timestampInput({ dateOnly: true, offset: 'optional' })
    .optional()
    .openapi({ description, example: '2026-03-09T00:00:00Z' });

export const meetingFilters = {
  lead_id: positiveId.optional().openapi({ type: 'integer', description: 'Meetings linked to this lead' }),
  contact_id: positiveId.optional().openapi({ type: 'integer', description: 'Meetings linked to this contact' }),
  company_id: positiveId.optional().openapi({ type: 'integer', description: 'Meetings linked to this company' }),
  user_id: positiveId.optional().openapi({ type: 'integer', description: 'Meetings of this rep' }),
  status: idList('Statuses, comma-separated (1 Scheduled, 2 Rescheduled, 3 Held, 4 Cancelled, 5 No Show)'),
  from: instantFilter('Meetings ending after this instant (a date means its midnight UTC)'),
  to: instantFilter('Meetings starting before this instant'),
};

export type MeetingFilters = z.output<z.ZodObject<typeof meetingFilters>>;

/** The meeting filters as one WHERE in the caller's organization: the list's and the saved queries'. */
export function meetingFilterWhere(ctx: Pick<TenantContext, 'orgId'>, params: MeetingFilters): SQL {
  return tenantWhere(
    ctx,
    meetings,
    params.lead_id ? eq(meetings.leadId, params.lead_id) : undefined,
    params.contact_id ? eq(meetings.contactId, params.contact_id) : undefined,
    params.company_id ? eq(meetings.companyId, params.company_id) : undefined,
    params.user_id ? eq(meetings.userId, params.user_id) : undefined,
    params.status ? inArray(meetings.status, params.status) : undefined,
    params.from ? sql`${meetings.endTime} > ${new Date(params.from)}` : undefined,
    params.to ? lt(meetings.startTime, new Date(params.to)) : undefined,
  );
}
