/**
 * Intent signals: recording one for a lead of the organization (by API key or from the app),
 * which rescores the lead and may raise an alert, and listing a lead's signals.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, ilike, sql } from 'drizzle-orm';
import { NotFound } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { intentSignals, leads } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import { requireLead } from '../leads';
import { intentScoresLocked, rescoreLeads } from './scoring';
import type { SignalInput } from './schemas';

export type SignalRow = {
  id: number | string;
  lead_id: number | string;
  signal_type: string;
  signal_detail: Record<string, unknown>;
  source: string | null;
  occurred_at: Date | string;
  created_at: Date | string;
};

export function presentSignal(row: SignalRow) {
  return {
    id: Number(row.id),
    lead_id: Number(row.lead_id),
    signal_type: row.signal_type,
    signal_detail: row.signal_detail,
    source: row.source,
    occurred_at: isoTimestamp(row.occurred_at) as string,
    created_at: isoTimestamp(row.created_at) as string,
  };
}

/**
 * Inserts the signal only if the lead is a live lead of the organization (one statement: a lead
 * of another organization, or none, inserts nothing and answers 404), then rescores the lead.
 */
export async function recordSignal(ctx: TenantContext, input: SignalInput, defaultSource: string) {
  const inserted = await ctx.db.execute<SignalRow>(sql`
    insert into ${intentSignals} (organization_id, lead_id, signal_type, signal_detail, source, occurred_at)
    select ${ctx.orgId}, l.id, ${input.signal_type}, ${JSON.stringify(input.signal_detail ?? {})}::jsonb,
      ${input.source ?? defaultSource}, coalesce(${input.occurred_at?.toISOString() ?? null}::timestamptz, now())
    from ${leads} l
    where l.organization_id = ${ctx.orgId} and l.id = ${input.lead_id} and l.deleted_at is null
      and ${intentScoresLocked(ctx.orgId, sql`select ${input.lead_id}::bigint as lead_id`)}
    returning id, lead_id, signal_type, signal_detail, source, occurred_at, created_at`);
  const row = inserted.rows[0];
  if (!row) throw new NotFound('Lead', input.lead_id);
  // The rescoring (one statement) is the request's last: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const [scored] = await rescoreLeads(ctx.db, ctx.orgId, [input.lead_id], ctx.effects);
  return {
    ...presentSignal(row),
    intent_score: scored?.score ?? 0,
    is_hot: scored?.hot ?? false,
    alert_id: scored?.alertId ?? null,
  };
}

const signalList = defineList({
  sort: { occurred_at: intentSignals.occurredAt, id: intentSignals.id },
  search: (term) => ilike(intentSignals.signalType, containsPattern(term)),
  createdAt: intentSignals.occurredAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({
          id: intentSignals.id,
          lead_id: intentSignals.leadId,
          signal_type: intentSignals.signalType,
          signal_detail: intentSignals.signalDetail,
          source: intentSignals.source,
          occurred_at: intentSignals.occurredAt,
          created_at: intentSignals.createdAt,
          ...columns,
        })
        .from(intentSignals)
        .$dynamic(),
    where: tenantWhere(ctx, intentSignals),
  }),
  present: (row) => presentSignal(row),
});
export const LeadSignalsQuery = signalList.query;

/**
 * A lead's signals, newest first by default; a lead of another organization (or deleted) is a
 * 404. The page is read first, limited to a live lead of the organization: only an empty page
 * costs the second statement that tells "no signals" from "no such lead".
 */
export async function listLeadSignals(ctx: TenantContext, leadId: number, params: z.output<typeof LeadSignalsQuery>) {
  const liveLead = sql`exists (select 1 from ${leads} l where l.id = ${leadId} and l.organization_id = ${ctx.orgId} and l.deleted_at is null)`;
  const page = await signalList.run(ctx, params, { where: and(eq(intentSignals.leadId, leadId), liveLead) });
  if (page.rows.length === 0) await requireLead(ctx, leadId);
  return page;
}
