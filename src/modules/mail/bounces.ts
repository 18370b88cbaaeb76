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
 *
 * The message it returns is marked `bounced` (it was `sent`), its failure_reason naming the
 * recipients reported: the sender sees on the message that it never arrived. The message is the
 * one the report names (the Message-ID of its returned headers, its In-Reply-To), else the latest
 * of ours in the thread sent to that address: an earlier message of the thread that arrived is not
 * marked. A message to several recipients gets a report from each of their servers: a report for
 * another recipient of a message `bounced` already adds that address to its reason (all of them,
 * sorted); seen again, a report changes nothing (the row is not written when its reason names
 * every address the report gives).
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { mailMessages, mailSuppressions } from '../../db/schema';
import type { ConnectionRow } from '../../providers/connections';
import type { InboxMessage } from '../../providers/mail/interface';

/** What a bounced message's failure_reason says, naming the recipients reported. */
export const BOUNCED_REASON_PREFIX = 'A delivery report says delivery failed for good to ';
const BOUNCED_REASON_SUFFIX = ' (it is on the suppression list); nothing is known of any other recipient';

/** Answers the addresses newly put on the list. */
export async function recordBounces(db: Queryable, connection: ConnectionRow, messages: InboxMessage[]) {
  const candidates = messages
    .filter((message) => message.automated === 'bounce' && (message.bounce?.hard_bounced.length ?? 0) > 0)
    .map((message, n) => ({
      n,
      thread_id: message.thread_id,
      // The message it returns, by its own words: the returned headers' Message-ID, its In-Reply-To.
      exact: [message.bounce?.original_message_id, message.in_reply_to].filter((ref): ref is string => !!ref),
      refs: [message.in_reply_to, ...message.references, message.bounce?.original_message_id].filter(
        (ref): ref is string => !!ref,
      ),
      addresses: message.bounce?.hard_bounced ?? [],
    }))
    .filter((candidate) => candidate.refs.length > 0 || candidate.thread_id);
  if (candidates.length === 0) return [];
  const orgId = connection.organizationId;
  // The recipients a bounced message's reason names already, read from the row being updated (so
  // a report arriving at the same time, whose update this one waits for, is kept, not overwritten).
  const named = sql`(case when m.status = 'bounced' and starts_with(m.failure_reason, ${BOUNCED_REASON_PREFIX}::text)
    then string_to_array(split_part(substr(m.failure_reason, ${BOUNCED_REASON_PREFIX.length + 1}::int), ' (', 1), ', ')
    else '{}'::text[] end)`;
  // `returned`: for each report and address, the one message of ours it returns (the one it names
  // exactly, else the latest sent to that address in the thread); that message is marked bounced,
  // once (only a `sent` one changes: the same report seen again changes nothing).
  const result = await db.execute<{ address: string }>(sql`
    with candidates as (
      select * from jsonb_to_recordset(${JSON.stringify(candidates)}::jsonb)
        as c(n int, thread_id text, exact text[], refs text[], addresses text[])
    ),
    matched as (
      select c.n, a.address, s.id, s.status, s.rfc_message_id = any(c.exact) as exact
      from candidates c
      join ${mailMessages} s on s.organization_id = ${orgId} and s.connection_id = ${connection.id}
        and s.direction = 'outbound'
        and (s.rfc_message_id = any(c.refs) or (c.thread_id is not null and s.provider_thread_id = c.thread_id))
      cross join lateral unnest(c.addresses) as a(address)
      where a.address = any(array(select lower(r) from unnest(s.to_addresses || s.cc_addresses || s.bcc_addresses) as r))
    ),
    returned as (
      select distinct on (n, address) id, address from matched
      where status in ('sent', 'bounced')
      order by n, address, exact desc, id desc
    ),
    reported as (
      select id, array_agg(distinct address) as addresses from returned group by id
    ),
    marked as (
      update ${mailMessages} m
      set status = 'bounced',
        failure_reason = ${BOUNCED_REASON_PREFIX}
          || (select string_agg(distinct address, ', ' order by address) from unnest(${named} || r.addresses) as u(address))
          || ${BOUNCED_REASON_SUFFIX},
        updated_at = now()
      from reported r
      where m.organization_id = ${orgId} and m.id = r.id
        and (m.status = 'sent' or (m.status = 'bounced' and not (r.addresses <@ ${named})))
      returning m.id
    )
    insert into ${mailSuppressions} (organization_id, address, reason)
    select distinct ${orgId}::bigint, address, 'bounced' from matched
    on conflict do nothing
    returning address`);
  return result.rows.map((row) => row.address);
}
