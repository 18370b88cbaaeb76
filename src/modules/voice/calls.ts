/**
 * Reading calls: the list (lead, contact, company, status), one call, its transcript, and a
 * short-lived link to its recording. Another organization's call is a 404, and so is the call of
 * a deleted lead or contact (`callShown`), until the record is restored.
 */
import { z } from '@hono/zod-openapi';
import { eq, getTableColumns, ilike, inArray, or, type SQL, sql } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp, positiveId } from '../../core/schemas';
import { calls, type CallStatus, contacts, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { centsToAmount } from './wallet';
import { callStatus } from './schemas';

export type CallRow = typeof calls.$inferSelect;

export function presentCall(row: CallRow) {
  return {
    id: row.id,
    user_id: row.userId,
    lead_id: row.leadId,
    contact_id: row.contactId,
    company_id: row.companyId,
    direction: row.direction,
    kind: row.kind,
    from_number: row.fromNumber,
    to_number: row.toNumber,
    status: row.status,
    provider: row.provider,
    started_at: isoTimestamp(row.startedAt),
    answered_at: isoTimestamp(row.answeredAt),
    ended_at: isoTimestamp(row.endedAt),
    duration_sec: row.durationSec,
    transcript: row.transcript,
    price: row.priceCents === null ? null : centsToAmount(row.priceCents),
    currency: 'USD' as const,
    has_recording: row.recordingFileId !== null,
    failure_reason: row.failureReason,
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

const statusList = z
  .preprocess(
    (value) => (typeof value === 'string' ? value.split(',').map((part) => part.trim()) : value),
    z.array(callStatus).max(8, 'must name at most 8 statuses'),
  )
  .optional()
  .openapi({
    description: 'Statuses, comma-separated (see CallStatus)',
    type: 'string',
    example: 'completed,no-answer',
  });

export const callFilters = {
  lead_id: positiveId.optional().openapi({ type: 'integer', description: 'Calls with this lead' }),
  contact_id: positiveId.optional().openapi({ type: 'integer', description: 'Calls with this contact' }),
  company_id: positiveId.optional().openapi({ type: 'integer', description: 'Calls with this company’s people' }),
  status: statusList,
};

const callColumns = getTableColumns(calls);

/**
 * A call is the lead's or contact's record, as its notes, documents and recording are: it is shown
 * while a live lead or contact is on it, or when none ever was (a call to a number alone). The call
 * of a deleted lead or contact (with no live one on it) is a 404 on every call route and leaves the
 * list, until the record is restored. The same rule as the call's recording (`findStoredFile`,
 * files/storage.ts), so a call is never listed while its recording is 404 or the other way round.
 * Two primary-key probes per call, set-based in the list (semi-joins).
 */
export const callShown = shownCall({
  organizationId: sql`${calls.organizationId}`,
  leadId: sql`${calls.leadId}`,
  contactId: sql`${calls.contactId}`,
});

/** `callShown` of a call given by its columns (of `calls`, or of a derived table of its rows). */
function shownCall(call: { organizationId: SQL; leadId: SQL; contactId: SQL }): SQL {
  return sql`(
  (${call.leadId} is null and ${call.contactId} is null)
  or exists (select 1 from ${leads} l where l.organization_id = ${call.organizationId} and l.id = ${call.leadId} and l.deleted_at is null)
  or exists (select 1 from ${contacts} ct where ct.organization_id = ${call.organizationId} and ct.id = ${call.contactId} and ct.deleted_at is null)
)`;
}

/**
 * How many of the organization's calls `callShown` hides: those of its deleted leads and contacts
 * with no live lead or contact on them. Driven from the deleted leads and contacts (their partial
 * indexes, migration 0095) to their calls (calls_lead_idx, calls_contact_idx), a call on both
 * counted once, so its cost follows the deleted records with calls, never the organization's calls.
 */
function hiddenCalls(orgId: number): SQL<number> {
  return sql<number>`(select count(*) from (
      select hl.id, hl.organization_id, hl.lead_id, hl.contact_id
        from ${leads} l join ${calls} hl on hl.organization_id = l.organization_id and hl.lead_id = l.id
        where l.organization_id = ${orgId} and l.deleted_at is not null
      union
      select hc.id, hc.organization_id, hc.lead_id, hc.contact_id
        from ${contacts} ct join ${calls} hc on hc.organization_id = ct.organization_id and hc.contact_id = ct.id
        where ct.organization_id = ${orgId} and ct.deleted_at is not null
    ) as hidden where not ${shownCall({
      organizationId: sql`hidden.organization_id`,
      leadId: sql`hidden.lead_id`,
      contactId: sql`hidden.contact_id`,
    })})`;
}

export const callList = defineList({
  sort: { id: calls.id, created_at: calls.createdAt, duration_sec: calls.durationSec },
  filters: callFilters,
  search: (term) => or(ilike(calls.toNumber, containsPattern(term)), ilike(calls.fromNumber, containsPattern(term))),
  createdAt: calls.createdAt,
  // Pages in id order read the organization's own ids (its (organization_id, id desc nulls last) index; migration 0078).
  tenantIdOrder: true,
  // Unfiltered, the total is the organization's calls counter (migration 0079), less the calls of
  // deleted leads and contacts it also counts (`hiddenCalls`), so it stays exact past 10 000.
  counter: 'calls',
  counterExcess: (ctx) => hiddenCalls(ctx.orgId),
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...callColumns, ...columns })
        .from(calls)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      calls,
      callShown,
      params.lead_id ? eq(calls.leadId, params.lead_id) : undefined,
      params.contact_id ? eq(calls.contactId, params.contact_id) : undefined,
      params.company_id ? eq(calls.companyId, params.company_id) : undefined,
      params.status?.length ? inArray(calls.status, params.status as CallStatus[]) : undefined,
    ),
  }),
  present: (row) => presentCall(row),
});

export const listCalls = (ctx: TenantContext, params: z.output<typeof callList.query>) => callList.run(ctx, params);

export async function findCall(ctx: Pick<TenantContext, 'db' | 'orgId'>, id: number): Promise<CallRow> {
  const [row] = await ctx.db
    .select()
    .from(calls)
    .where(tenantWhere(ctx, calls, eq(calls.id, id), callShown));
  if (!row) throw new NotFound('Call', id);
  return row;
}

export async function callTranscript(ctx: TenantContext, id: number) {
  const call = await findCall(ctx, id);
  if (!call.transcript || call.transcript.length === 0) throw new NotFound(`Transcript of call ${id}`);
  return { call_id: call.id, turns: call.transcript };
}
