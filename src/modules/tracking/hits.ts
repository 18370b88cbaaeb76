/**
 * Tracking hits: the pixel and the click redirect put one message per valid hit on the events
 * queue (after the response, in waitUntil); the consumer records them as intent signals in
 * batches: ONE insert per organization for the whole batch, then one rescoring of the leads hit.
 *
 * Tracking counts people, not replays: a signal's dedupe_key is `<kind>:<token hash>:<window>`,
 * the window being the hit's time in TRACKING_WINDOW_SECONDS steps, so a token records at most one
 * open and one click per window however often its link is fetched, and a redelivered message
 * inserts nothing. The dedupe lives here, where hits are consumed, so the pixel stays free of the
 * database. Prefetches (prefetch.ts) are opens flagged `adjusted`, keyed apart (`open:prefetch:…`)
 * so a prefetch never hides a person's open in the same window; they count for nothing. Opens of
 * one token in three distinct windows add an email_opened_3x signal, once per token
 * (dedupe_key `open3x:<token hash>`).
 */
import type { TransactionEffects } from '../../core/transaction-effects';
import { intentSignals, leads } from '../../db/schema';
import { sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { TrackingHit } from '../../jobs/messages';
import { lockIntentScores, rescoreLeads } from '../intent/scoring';

/** The events queue's message (declared with the other queue messages, which env.ts names). */
export type { TrackingHit };

/** One open and one click per token per window of this many seconds. */
export const TRACKING_WINDOW_SECONDS = 600;

/** A message body is a hit we can record (anything else is dropped, and logged, by the consumer). */
export function isTrackingHit(body: unknown): body is TrackingHit {
  const hit = body as Partial<TrackingHit> | null;
  return (
    typeof hit === 'object' &&
    hit !== null &&
    (hit.kind === 'open' || hit.kind === 'click') &&
    typeof hit.hitId === 'string' &&
    Number.isSafeInteger(hit.orgId) &&
    Number.isSafeInteger(hit.leadId) &&
    typeof hit.tokenHash === 'string' &&
    typeof hit.at === 'string' &&
    !Number.isNaN(Date.parse(hit.at)) &&
    (hit.prefetch === undefined || hit.prefetch === 'apple_mpp' || hit.prefetch === 'gmail_proxy')
  );
}

/** Opens of one token, in distinct windows and by a person (not adjusted), that make an email_opened_3x signal. */
export const OPENS_FOR_3X = 3;

/**
 * Records the hits of ONE organization (the transaction is scoped to it) and rescores the leads
 * they touched. Hits for a lead that is gone are skipped. With the transaction's `effects`, the
 * rescoring's `intent.hot` webhooks and scoring job leave once it commits.
 */
export async function recordHits(
  tx: Transaction,
  orgId: number,
  hits: TrackingHit[],
  effects?: TransactionEffects,
): Promise<number[]> {
  const rows = hits.map((hit) => ({
    hit_id: hit.hitId,
    kind: hit.kind,
    lead_id: hit.leadId,
    token_hash: hit.tokenHash,
    campaign: hit.campaign,
    target_url: hit.targetUrl,
    at: hit.at,
    prefetch: hit.kind === 'open' && hit.prefetch ? hit.prefetch : null,
  }));
  // The leads' intent-score locks first, in a statement of their own: the insert below counts each
  // token's opens, and must start after a concurrent batch for the same leads committed its opens.
  await lockIntentScores(
    tx,
    orgId,
    hits.map((hit) => hit.leadId),
  );
  const result = await tx.execute<{ lead_id: string }>(sql`
    with hits as (
      select h.*, least(h.at, now()) as occurred,
        h.kind || ':' || case when h.prefetch is null then '' else 'prefetch:' end || h.token_hash || ':'
          || floor(extract(epoch from least(h.at, now())) / ${TRACKING_WINDOW_SECONDS})::bigint as window_key
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as h(hit_id text, kind text, lead_id bigint, token_hash text, campaign text, target_url text, at timestamptz, prefetch text)
    ),
    inserted as (
      insert into ${intentSignals} (organization_id, lead_id, signal_type, signal_detail, source, occurred_at, dedupe_key)
      select distinct on (h.window_key) ${orgId}, h.lead_id,
        case h.kind when 'open' then 'email_opened' else 'link_clicked' end,
        jsonb_strip_nulls(jsonb_build_object('token_hash', h.token_hash, 'campaign', h.campaign, 'target_url', h.target_url,
          'adjusted', case when h.prefetch is null then null else true end, 'prefetch', h.prefetch)),
        case h.kind when 'open' then 'tracking_pixel' else 'tracking_link' end,
        h.occurred, h.window_key
      from hits h
      join ${leads} l on l.id = h.lead_id and l.organization_id = ${orgId} and l.deleted_at is null
      order by h.window_key, h.occurred
      on conflict (organization_id, dedupe_key) do nothing
      returning lead_id, signal_type, signal_detail, occurred_at
    ),
    opens as (
      select o.token_hash, o.lead_id, count(*) as opens, max(o.occurred_at) as last_open
      from (
        select s.signal_detail->>'token_hash' as token_hash, s.lead_id, s.occurred_at
        from ${intentSignals} s
        where s.organization_id = ${orgId} and s.signal_type = 'email_opened'
          and s.signal_detail->>'token_hash' in (select h.token_hash from hits h where h.kind = 'open' and h.prefetch is null)
          and not s.signal_detail @> '{"adjusted": true}'
        union all
        select i.signal_detail->>'token_hash', i.lead_id, i.occurred_at from inserted i
        where i.signal_type = 'email_opened' and not i.signal_detail @> '{"adjusted": true}'
      ) o
      group by o.token_hash, o.lead_id
      having count(*) >= ${OPENS_FOR_3X}
    ),
    thrice as (
      insert into ${intentSignals} (organization_id, lead_id, signal_type, signal_detail, source, occurred_at, dedupe_key)
      select ${orgId}, o.lead_id, 'email_opened_3x', jsonb_build_object('token_hash', o.token_hash, 'opens', o.opens),
        'tracking_pixel', o.last_open, 'open3x:' || o.token_hash
      from opens o
      on conflict (organization_id, dedupe_key) do nothing
      returning lead_id
    )
    select lead_id from inserted union select lead_id from thrice`);
  const leadIds = result.rows.map((row) => Number(row.lead_id));
  await rescoreLeads(tx, orgId, leadIds, effects);
  return leadIds;
}
