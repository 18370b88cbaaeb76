/**
 * Replies as intent: a message that arrives in a thread we sent in (its In-Reply-To or References
 * names one of our Message-IDs, or it shares the provider's thread with one of our messages)
 * records ONE `reply_received` signal on the lead of the message it answers, whenever it is seen
 * (an inbox list, a view, a local arrival): the signal's dedupe key is the reply's own id in its
 * mailbox, so seeing it again inserts nothing. One statement, then a rescoring of the leads hit.
 */
import type { TransactionEffects } from '../../core/transaction-effects';
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { intentSignals, leads, mailMessages } from '../../db/schema';
import type { ConnectionRow } from '../../providers/connections';
import type { InboxMessage } from '../../providers/mail/interface';
import { intentScoresLocked, rescoreLeads } from '../intent';

/** With the transaction's `effects`, the rescoring's webhooks and scoring job leave once it commits. */
export async function recordReplies(
  db: Queryable,
  connection: ConnectionRow,
  messages: InboxMessage[],
  effects?: TransactionEffects,
) {
  const own = connection.identity.toLowerCase();
  const candidates = messages
    // A bounce or an automatic reply (out of office) answers our message in its thread, but no
    // person wrote it: it is no reply of the lead's (providers/mail/automated.ts).
    .filter((message) => message.from && message.from.address.toLowerCase() !== own && !message.automated)
    .map((message) => ({
      id: message.id,
      thread_id: message.thread_id,
      refs: [message.in_reply_to, ...message.references].filter((ref): ref is string => !!ref),
      at: message.date,
    }))
    .filter((candidate) => candidate.refs.length > 0 || candidate.thread_id);
  if (candidates.length === 0) return [];
  const orgId = connection.organizationId;
  const result = await db.execute<{ lead_id: string }>(sql`
    with candidates as (
      select * from jsonb_to_recordset(${JSON.stringify(candidates)}::jsonb)
        as c(id text, thread_id text, refs text[], at timestamptz)
    ),
    answered as (
      select distinct on (c.id) c.id, c.at, s.id as sent_id, s.lead_id
      from candidates c
      join ${mailMessages} s on s.organization_id = ${orgId} and s.connection_id = ${connection.id}
        and s.direction = 'outbound' and s.lead_id is not null
        and (s.rfc_message_id = any(c.refs) or (c.thread_id is not null and s.provider_thread_id = c.thread_id))
      join ${leads} l on l.id = s.lead_id and l.organization_id = ${orgId} and l.deleted_at is null
      order by c.id, s.id desc
    )
    insert into ${intentSignals} (organization_id, lead_id, signal_type, signal_detail, source, occurred_at, dedupe_key)
    select ${orgId}, a.lead_id, 'reply_received',
      jsonb_build_object('config_id', ${connection.id}::bigint, 'message_id', a.id, 'sent_message_id', a.sent_id),
      'mail_reply', least(coalesce(a.at, now()), now()), 'reply:' || ${String(connection.id)} || ':' || a.id
    from answered a
    where ${intentScoresLocked(orgId, sql`select lead_id from answered`)}
    on conflict (organization_id, dedupe_key) do nothing
    returning lead_id`);
  const leadIds = result.rows.map((row) => Number(row.lead_id));
  if (leadIds.length > 0) await rescoreLeads(db, orgId, leadIds, effects);
  return leadIds;
}
