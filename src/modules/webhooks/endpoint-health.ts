/**
 * An endpoint's health, kept by each attempt's outcome. `failing_since` is the first failure
 * since the last success; an endpoint that has failed for DISABLE_AFTER_DAYS (Svix's rule: five
 * days with no success) is disabled, its waiting deliveries are cancelled, and every admin of the
 * organization is notified, once: only the statement that turns `enabled` off goes on to notify.
 * Re-enabling it (PATCH enabled: true) starts afresh.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { adminNoticesSql, NOTIFICATION_TYPES } from '../notifications/service';

export const DISABLE_AFTER_DAYS = 5;

export async function recordEndpointSuccess(tx: Transaction, orgId: number, endpointId: number): Promise<void> {
  await tx
    .update(webhookEndpoints)
    .set({ failingSince: null })
    .where(
      and(
        eq(webhookEndpoints.organizationId, orgId),
        eq(webhookEndpoints.id, endpointId),
        sql`${webhookEndpoints.failingSince} is not null`,
      ),
    );
}

/** Notes a failure; disables the endpoint (and tells the admins) once it has failed for DISABLE_AFTER_DAYS. */
export async function recordEndpointFailure(tx: Transaction, orgId: number, endpointId: number): Promise<boolean> {
  const reason = `Every delivery failed for ${DISABLE_AFTER_DAYS} days`;
  const disabled = await tx.execute<{ id: number; url: string }>(sql`
    with prior as (
      select id, enabled, failing_since <= now() - make_interval(days => ${DISABLE_AFTER_DAYS}) as due
      from ${webhookEndpoints} where organization_id = ${orgId} and id = ${endpointId}
      for update
    ), turned_off as (
      -- One update of the row (a statement may not change a row twice): the failure noted, and
      -- the endpoint disabled when it has failed long enough.
      update ${webhookEndpoints} e set failing_since = coalesce(e.failing_since, now()),
        enabled = e.enabled and not coalesce(p.due, false),
        disabled_at = case when e.enabled and p.due then now() else e.disabled_at end,
        disabled_reason = case when e.enabled and p.due then ${reason}::text else e.disabled_reason end,
        updated_at = case when e.enabled and p.due then now() else e.updated_at end
      from prior p
      where e.id = p.id and e.organization_id = ${orgId}
      returning e.id, e.url, p.enabled and not e.enabled as turned_off
    ), notified as (
      ${adminNoticesSql({
        from: sql`turned_off t`,
        organizationId: sql`${orgId}::bigint`,
        typeId: NOTIFICATION_TYPES.webhookDisabled,
        title: sql`'Webhook endpoint disabled: ' || t.url`,
        data: sql`jsonb_build_object('webhook_id', t.id, 'url', t.url, 'reason', ${reason}::text)`,
        where: sql`t.turned_off`,
      })}
    )
    select id, url from turned_off where turned_off`);
  if (disabled.rows.length === 0) return false;
  // Waiting deliveries would only fail the same way; the log keeps what was attempted.
  await tx
    .update(webhookDeliveries)
    .set({
      status: 'cancelled',
      error: 'the endpoint was disabled',
      finishedAt: sql`now()`,
      leaseExpiresAt: null,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(webhookDeliveries.organizationId, orgId),
        eq(webhookDeliveries.endpointId, endpointId),
        inArray(webhookDeliveries.status, ['queued']),
      ),
    );
  return true;
}
