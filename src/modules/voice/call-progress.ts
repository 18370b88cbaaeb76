/**
 * A call's life after it was placed, whoever reports it (the simulator, Twilio's status callback,
 * Vapi's end-of-call report): statuses only move forward, and a call ends once. The statement
 * that ends it (status still open) is the one that settles the wallet (the hold released, the
 * real duration charged, each once per call), writes the feed entry on its lead or contact and,
 * for a completed outbound call of ENGAGED_CALL_SECONDS or more, the lead's engagement signal.
 * A replayed report finds the call ended and changes nothing.
 */
import type { TransactionEffects } from '../../core/transaction-effects';
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { calls, type CallStatus, ENDED_CALL_STATUSES, intentSignals, leads } from '../../db/schema';
import type { CallOutcome } from '../../providers/voice/interface';
import { type FeedActor, recordFeed } from '../feed';
import { intentScoresLocked, rescoreLeads } from '../intent';
import type { CallRow } from './calls';
import { callPriceCents, ENGAGED_CALL_SECONDS } from './pricing';
import { chargeWallet, recordLedger, recordLedgerEntries } from './wallet';

/** The order statuses move in; an ended status is final. */
const RANK: Record<CallStatus, number> = {
  queued: 0,
  ringing: 1,
  'in-progress': 2,
  completed: 3,
  busy: 3,
  failed: 3,
  'no-answer': 3,
  canceled: 3,
};

export function isEnded(status: CallStatus): boolean {
  return RANK[status] === 3;
}

const open = (orgId: number, callId: number) =>
  and(
    eq(calls.organizationId, orgId),
    eq(calls.id, callId),
    sql`${calls.status} not in (${sql.join(
      ENDED_CALL_STATUSES.map((status) => sql`${status}`),
      sql`, `,
    )})`,
  );

/** Moves an open call forward to ringing or in-progress (never back); answers whether it moved. */
export async function advanceCall(db: Queryable, orgId: number, callId: number, status: 'ringing' | 'in-progress') {
  const earlier = (Object.keys(RANK) as CallStatus[]).filter((key) => RANK[key] < RANK[status]);
  const moved = await db
    .update(calls)
    .set({
      status,
      startedAt: sql`coalesce(${calls.startedAt}, now())`,
      answeredAt: status === 'in-progress' ? sql`coalesce(${calls.answeredAt}, now())` : undefined,
      updatedAt: sql`now()`,
    })
    .where(and(open(orgId, callId), inArray(calls.status, earlier)))
    .returning({ id: calls.id });
  return moved.length > 0;
}

export interface Ending extends Omit<CallOutcome, 'recordingUrl'> {
  failureReason?: string | null;
}

/** Whether another call of the organization holds this provider call id (the unique calls_provider_call_key). */
export const providerCallIdHeldElsewhere = (
  orgId: number,
  callId: number,
  provider: SQL,
  providerCallId: string,
) => sql`exists (
  select 1 from ${calls} o where o.organization_id = ${orgId} and o.provider = ${provider}
    and o.provider_call_id = ${providerCallId} and o.id <> ${callId})`;

/**
 * The provider's own report of how the call ended (Vapi's end-of-call report), naming its call id.
 * It is the last word on the call: it also ends a call we failed without knowing whether it was
 * placed (a dial whose answer was lost, a job given up on) when it says the call ran (repaired:
 * the failure reason cleared, the duration charged; the hold was released when it failed), and
 * records its id on a call that has none (a report that came before the job recorded it, or
 * after it gave up), unless another call holds it.
 */
export interface ProviderReport {
  providerCallId: string;
}

/**
 * Ends an open call with its outcome and settles it; null when it had ended already (a replay).
 * `actor` is who the feed entry is credited to (the user who placed the call). With the
 * transaction's `effects`, the rescoring's `intent.hot` webhooks and scoring job leave once it commits.
 */
export async function endCall(
  db: Queryable,
  actor: FeedActor,
  callId: number,
  ending: Ending,
  effects?: TransactionEffects,
  report?: ProviderReport,
): Promise<CallRow | null> {
  const orgId = actor.orgId;
  const completed = ending.status === 'completed';
  const duration = completed ? ending.durationSec : 0;
  const price = callPriceCents(duration);
  const [row] = await db
    .update(calls)
    .set({
      status: ending.status,
      startedAt: sql`coalesce(${calls.startedAt}, ${ending.answeredAt ?? ending.endedAt})`,
      answeredAt: completed ? sql`coalesce(${calls.answeredAt}, ${ending.answeredAt ?? ending.endedAt})` : undefined,
      endedAt: ending.endedAt,
      durationSec: duration,
      transcript: ending.transcript ?? undefined,
      priceCents: price,
      failureReason: ending.failureReason ?? null,
      providerCallId: report
        ? sql`coalesce(${calls.providerCallId}, case when not ${providerCallIdHeldElsewhere(orgId, callId, sql`${calls.provider}`, report.providerCallId)} then ${report.providerCallId} end)`
        : undefined,
      updatedAt: sql`now()`,
    })
    .where(
      report && ending.status !== 'failed'
        ? or(
            open(orgId, callId),
            and(eq(calls.organizationId, orgId), eq(calls.id, callId), eq(calls.status, 'failed')),
          )
        : open(orgId, callId),
    )
    .returning();
  if (!row) return null;
  if (row.reservedCents > 0) {
    await recordLedger(db, orgId, { kind: 'call_release', cents: row.reservedCents, callId, note: 'hold released' });
  }
  if (price > 0) {
    await chargeWallet(db, orgId, { kind: 'call_charge', cents: price, callId, note: `${duration} s` });
  }
  const subject = row.leadId
    ? { modelType: 'lead', modelId: row.leadId }
    : row.contactId
      ? { modelType: 'contact', modelId: row.contactId }
      : null;
  if (subject && completed) {
    await recordFeed({ db, ...actor }, [
      {
        ...subject,
        action: 'call_completed',
        changes: {
          call_id: { from: null, to: row.id },
          duration_sec: { from: null, to: duration },
          direction: { from: null, to: row.direction },
        },
      },
    ]);
  }
  if (completed && row.direction === 'outbound' && row.leadId && duration >= ENGAGED_CALL_SECONDS) {
    await db.execute(sql`
      insert into ${intentSignals} (organization_id, lead_id, signal_type, signal_detail, source, occurred_at, dedupe_key)
      select ${orgId}, l.id, 'manual',
        jsonb_build_object('engagement', 'call', 'call_id', ${row.id}::bigint, 'duration_sec', ${duration}::int),
        'call', ${ending.endedAt}, ${`call:${row.id}`}
      from ${leads} l where l.organization_id = ${orgId} and l.id = ${row.leadId} and l.deleted_at is null
        and ${intentScoresLocked(orgId, sql`select ${row.leadId}::bigint as lead_id`)}
      on conflict (organization_id, dedupe_key) do nothing`);
    await rescoreLeads(db, orgId, [row.leadId], effects);
  }
  return row;
}

/**
 * Fails many open calls at once, each with its reason, as endCall fails one (status `failed`, no
 * duration, no price, the hold released once; no feed entry, which only a completed call writes):
 * set-based, for the voice jobs the lease sweep fails together. Calls that ended already are left.
 */
export async function failCalls(db: Queryable, failures: { orgId: number; callId: number; reason: string }[]) {
  if (failures.length === 0) return;
  const endedAt = new Date();
  const rows = await db
    .update(calls)
    .set({
      status: 'failed',
      startedAt: sql`coalesce(${calls.startedAt}, ${endedAt})`,
      endedAt,
      durationSec: 0,
      priceCents: callPriceCents(0),
      failureReason: sql`case ${sql.join(
        failures.map(({ callId, reason }) => sql`when ${calls.id} = ${callId} then ${reason}::text`),
        sql` `,
      )} end`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        sql`(${calls.organizationId}, ${calls.id}) in (${sql.join(
          failures.map(({ orgId, callId }) => sql`(${orgId}::bigint, ${callId}::bigint)`),
          sql`, `,
        )})`,
        sql`${calls.status} not in (${sql.join(
          ENDED_CALL_STATUSES.map((status) => sql`${status}`),
          sql`, `,
        )})`,
      ),
    )
    .returning({ id: calls.id, organizationId: calls.organizationId, reservedCents: calls.reservedCents });
  await recordLedgerEntries(
    db,
    rows
      .filter((row) => row.reservedCents > 0)
      .map((row) => ({
        orgId: row.organizationId,
        entry: { kind: 'call_release' as const, cents: row.reservedCents, callId: row.id, note: 'hold released' },
      })),
  );
}
