/**
 * Bounces as suppressions: a delivery report seen in an inbox (a list, a view, a local arrival)
 * that returns a message of ours puts each recipient it reports failed for good (a hard bounce,
 * providers/mail/bounces.ts) on the organization's suppression list, reason `bounced`, as the
 * one-click unsubscribe does with `unsubscribed`; later sends leave the address out.
 *
 * Anyone can mail a rep something that looks like a report, so a report counts only for a message
 * of ours it answers (its In-Reply-To or References, the Message-ID in its returned headers, or the
 * provider's thread) and only for addresses that message was sent to: a forged report cannot
 * suppress an address the account never mailed. One statement, and none when no bounce was seen.
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { mailMessages, mailSuppressions } from '../../db/schema';
import type { ConnectionRow } from '../../providers/connections';
import type { InboxMessage } from '../../providers/mail/interface';

/** Answers the addresses newly put on the list. */
export async function recordBounces(db: Queryable, connection: ConnectionRow, messages: InboxMessage[]) {
  const candidates = messages
    .filter((message) => message.automated === 'bounce' && (message.bounce?.hard_bounced.length ?? 0) > 0)
    .map((message) => ({
      thread_id: message.thread_id,
      refs: [message.in_reply_to, ...message.references, message.bounce?.original_message_id].filter(
        (ref): ref is string => !!ref,
      ),
      addresses: message.bounce?.hard_bounced ?? [],
    }))
    .filter((candidate) => candidate.refs.length > 0 || candidate.thread_id);
  if (candidates.length === 0) return [];
  const orgId = connection.organizationId;
  const result = await db.execute<{ address: string }>(sql`
    with candidates as (
      select * from jsonb_to_recordset(${JSON.stringify(candidates)}::jsonb)
        as c(thread_id text, refs text[], addresses text[])
    ),
    bounced as (
      select distinct a.address
      from candidates c
      join ${mailMessages} s on s.organization_id = ${orgId} and s.connection_id = ${connection.id}
        and s.direction = 'outbound'
        and (s.rfc_message_id = any(c.refs) or (c.thread_id is not null and s.provider_thread_id = c.thread_id))
      cross join lateral unnest(c.addresses) as a(address)
      where a.address = any(array(select lower(r) from unnest(s.to_addresses || s.cc_addresses || s.bcc_addresses) as r))
    )
    insert into ${mailSuppressions} (organization_id, address, reason)
    select ${orgId}, address, 'bounced' from bounced
    on conflict do nothing
    returning address`);
  return result.rows.map((row) => row.address);
}
