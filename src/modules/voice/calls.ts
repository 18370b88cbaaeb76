/**
 * Reading calls: the list (lead, contact, company, status), one call, its transcript, and a
 * short-lived link to its recording. Another organization's call is a 404.
 */
import { z } from '@hono/zod-openapi';
import { eq, getTableColumns, ilike, inArray, or } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp, positiveId } from '../../core/schemas';
import { calls, type CallStatus } from '../../db/schema';
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

export const callList = defineList({
  sort: { id: calls.id, created_at: calls.createdAt, duration_sec: calls.durationSec },
  filters: callFilters,
  search: (term) => or(ilike(calls.toNumber, containsPattern(term)), ilike(calls.fromNumber, containsPattern(term))),
  createdAt: calls.createdAt,
  // Pages in id order read the organization's own ids (its (organization_id, id desc nulls last) index; migration 0078).
  tenantIdOrder: true,
  // Unfiltered, the total is the organization's calls counter (migration 0079).
  counter: 'calls',
  base: (ctx, params) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...callColumns, ...columns })
        .from(calls)
        .$dynamic(),
    where: tenantWhere(
      ctx,
      calls,
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
    .where(tenantWhere(ctx, calls, eq(calls.id, id)));
  if (!row) throw new NotFound('Call', id);
  return row;
}

export async function callTranscript(ctx: TenantContext, id: number) {
  const call = await findCall(ctx, id);
  if (!call.transcript || call.transcript.length === 0) throw new NotFound(`Transcript of call ${id}`);
  return { call_id: call.id, turns: call.transcript };
}
