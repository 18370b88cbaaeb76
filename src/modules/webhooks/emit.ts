/**
 * How a change announces itself to the organization's webhook endpoints and subscribed team-chat
 * channels (modules/chat): in the transaction of the change, one `insert … select` writes a
 * delivery (a job row holding the whole payload) for every event row × every enabled endpoint or
 * channel subscription to the event, however many there are. The statement is SQL, so a site that already writes in one data-modifying CTE embeds it
 * there and pays no round trip. After the commit the new deliveries' messages are sent (the
 * transaction's effects: a request's, or a job's through withTenantEffects); a delivery whose
 * message never left (a transaction run without effects, an
 * isolate went away) is sent by the lease sweep once its first lease (its creation plus
 * WEBHOOK_LEASE_SECONDS) has passed, so the table itself is the outbox.
 *
 * The payload is Standard Webhooks' shape: `{ type, timestamp, data }`; `data` per event is
 * documented in payloads.ts. The message id (the `webhook-id` header) is derived from the event
 * type, its data and the transaction's time, so every endpoint of one event gets the same id.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { EventType } from '../../core/event-types';
import { chatSubscriptions, webhookDeliveries, webhookEndpoints } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import { isoTimestampSql } from '../../core/schemas';

/** Event rows as a FROM item (a CTE's name, a subquery or a set-returning function) and the jsonb of each row's `data`. */
export interface EventRows {
  from: SQL;
  data: SQL;
  /** A condition on the rows (e.g. an assignee is set); all rows when absent. */
  where?: SQL;
}

/**
 * Which of `types` have a listener in the organization (an enabled webhook endpoint or chat
 * subscription listing it), as a JSON array: a statement that reads before it writes can leave
 * out the deliveries' insert (webhookDeliveriesSql) of an event nobody listens to, which is most
 * of what planning a one-row insert with its CTEs costs. A listener added between this read and
 * the write misses that one event, as one added just after the write would.
 */
export function listenedEventsSql(orgId: number | SQL, types: readonly EventType[]): SQL {
  return sql`(select coalesce(json_agg(distinct t.type), '[]'::json) from (
      select unnest(l.events) as type from ${listenersSql(orgId)} as l
    ) as t where t.type = any(${sql.param([...types])}::text[]))`;
}

/**
 * The organization's listeners as a FROM item: every enabled webhook endpoint and chat
 * subscription, with the events it lists (`endpoint_id` or `chat_subscription_id` set, the other
 * null). The one statement of who listens: the deliveries' insert joins it, the write context's
 * listened events read it, so a new kind of listener or rule reaches both.
 */
function listenersSql(orgId: number | SQL): SQL {
  return sql`(
      select e.id as endpoint_id, null::bigint as chat_subscription_id, e.events from ${webhookEndpoints} e
      where e.organization_id = ${orgId}::bigint and e.enabled
      union all
      select null::bigint, s.id, s.events from ${chatSubscriptions} s
      where s.organization_id = ${orgId}::bigint and s.enabled
    )`;
}

/** `insert into webhook_deliveries … returning id`: runs alone or as a CTE of the writing statement. */
export function webhookDeliveriesSql(
  ctx: Pick<TenantContext, 'orgId' | 'userId'>,
  type: EventType,
  rows: EventRows,
): SQL {
  return sql`insert into ${webhookDeliveries} (organization_id, endpoint_id, chat_subscription_id, event_type, message_id, payload, created_by)
    select ${ctx.orgId}::bigint, t.endpoint_id, t.chat_subscription_id, ${type}::text,
      'msg_' || md5(${type}::text || ':' || ev.data::text || ':' || now()::text),
      jsonb_build_object('type', ${type}::text,
        'timestamp', ${isoTimestampSql(sql`now()`)},
        'data', ev.data),
      ${ctx.userId}::bigint
    from (select ${rows.data} as data from ${rows.from} ${rows.where ? sql`where ${rows.where}` : sql``}) as ev
    join ${listenersSql(ctx.orgId)} as t on ${type}::text = any(t.events)
    returning id`;
}

/** Sends the deliveries' messages after the commit (nothing to do without effects: the lease sweep sends them). */
export function sendWebhookDeliveries(ctx: Pick<TenantContext, 'orgId' | 'effects'>, ids: readonly unknown[]): void {
  const jobIds = ids.map(Number).filter((id) => Number.isInteger(id) && id > 0);
  if (jobIds.length === 0 || !ctx.effects) return;
  const orgId = ctx.orgId;
  ctx.effects.afterCommit(async ({ env }) => {
    for (let start = 0; start < jobIds.length; start += 100) {
      await env.JOBS.sendBatch(
        jobIds
          .slice(start, start + 100)
          .map((jobId) => ({ body: { kind: 'webhook-delivery' as const, orgId, jobId } })),
      );
    }
  });
}

/** Events known in TypeScript (one data object each), in one statement; their deliveries are sent after the commit. */
export async function emitWebhookEvents(
  ctx: Pick<TenantContext, 'db' | 'orgId' | 'userId' | 'effects'>,
  type: EventType,
  data: readonly Record<string, unknown>[],
): Promise<void> {
  if (data.length === 0) return;
  const result = await ctx.db.execute<{ id: number }>(
    webhookDeliveriesSql(ctx, type, {
      from: sql`jsonb_array_elements(${JSON.stringify(data)}::jsonb) as d(value)`,
      data: sql`d.value`,
    }),
  );
  sendWebhookDeliveries(
    ctx,
    result.rows.map((row) => row.id),
  );
}

/** `coalesce(array_agg(id), '{}')` over CTEs of webhookDeliveriesSql: the ids a CTE site returns to JS. */
export function deliveryIdsOf(...ctes: string[]): SQL {
  const union = sql.join(
    ctes.map((name) => sql`select id from ${sql.identifier(name)}`),
    sql` union all `,
  );
  return sql`(select coalesce(array_agg(id), '{}'::bigint[]) from (${union}) as hook_ids)`;
}
