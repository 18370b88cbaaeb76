/**
 * Webhook endpoints of an organization (admins manage them; routes.ts declares who), the
 * delivery log and replay. The secret is generated here, returned once, and stored sealed.
 */
import { and, eq, ilike, sql } from 'drizzle-orm';
import { NotFound, ValidationFailed, Conflict } from '../../core/errors';
import { containsPattern, defineList } from '../../core/list';
import { isoTimestamp } from '../../core/schemas';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { keyringOf, sealSecret } from '../../providers/secrets';
import { generateWebhookSecret } from '../../providers/webhooks/signature';
import { targetProblem, targetRules } from '../../providers/webhooks/target';
import { sendWebhookDeliveries } from './emit';
import type { AddWebhookInput, UpdateWebhookInput } from './schemas';

const endpointFields = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  events: webhookEndpoints.events,
  description: webhookEndpoints.description,
  enabled: webhookEndpoints.enabled,
  failingSince: webhookEndpoints.failingSince,
  disabledAt: webhookEndpoints.disabledAt,
  disabledReason: webhookEndpoints.disabledReason,
  createdAt: webhookEndpoints.createdAt,
  updatedAt: webhookEndpoints.updatedAt,
};
type EndpointRow = {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
};

function presentEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    failing_since: isoTimestamp(row.failingSince),
    disabled_at: isoTimestamp(row.disabledAt),
    disabled_reason: row.disabledReason,
    created_at: isoTimestamp(row.createdAt) as string,
    updated_at: isoTimestamp(row.updatedAt) as string,
  };
}

function checkTarget(env: Bindings, url: string): void {
  const problem = targetProblem(url, targetRules(env));
  if (problem) throw ValidationFailed.field('url', problem);
}

export async function createWebhook(ctx: TenantContext, env: Bindings, input: AddWebhookInput) {
  checkTarget(env, input.url);
  const secret = generateWebhookSecret();
  const sealed = await sealSecret(await keyringOf(env), ctx.orgId, secret);
  const [row] = await ctx.db
    .insert(webhookEndpoints)
    .values({
      organizationId: ctx.orgId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      secretSealed: sealed.sealed,
      secretKeyId: sealed.keyId,
      createdBy: ctx.userId,
    })
    .returning(endpointFields);
  return { ...presentEndpoint(row), secret };
}

export const webhookList = defineList({
  sort: { id: webhookEndpoints.id, url: webhookEndpoints.url, created_at: webhookEndpoints.createdAt },
  search: (term) => ilike(webhookEndpoints.url, containsPattern(term)),
  createdAt: webhookEndpoints.createdAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({ ...endpointFields, ...columns })
        .from(webhookEndpoints)
        .$dynamic(),
    where: tenantWhere(ctx, webhookEndpoints),
  }),
  present: (row) => presentEndpoint(row),
});
export const WebhookListQuery = webhookList.query;
export const listWebhooks = webhookList.run;

export async function getWebhook(ctx: TenantContext, id: number) {
  const [row] = await ctx.db
    .select(endpointFields)
    .from(webhookEndpoints)
    .where(tenantWhere(ctx, webhookEndpoints, eq(webhookEndpoints.id, id)));
  if (!row) throw new NotFound('Webhook', id);
  return presentEndpoint(row);
}

export async function updateWebhook(ctx: TenantContext, env: Bindings, id: number, input: UpdateWebhookInput) {
  if (input.url !== undefined) checkTarget(env, input.url);
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  if (input.url !== undefined) set.url = input.url;
  if (input.events !== undefined) set.events = [...new Set(input.events)];
  if (input.description !== undefined) set.description = input.description;
  if (input.enabled !== undefined) set.enabled = input.enabled;
  // Enabled again by hand: its failures so far no longer count towards disabling it.
  if (input.enabled === true) Object.assign(set, { failingSince: null, disabledAt: null, disabledReason: null });
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set(set)
    .where(tenantWhere(ctx, webhookEndpoints, eq(webhookEndpoints.id, id)))
    .returning(endpointFields);
  if (!row) throw new NotFound('Webhook', id);
  return presentEndpoint(row);
}

/** Deletes the endpoint with its deliveries and log; deliveries still queued are dropped. */
export async function deleteWebhook(ctx: TenantContext, id: number): Promise<void> {
  const deleted = await ctx.db
    .delete(webhookEndpoints)
    .where(tenantWhere(ctx, webhookEndpoints, eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw new NotFound('Webhook', id);
}

/**
 * A new secret. The replaced one keeps signing beside it (a second `v1,` signature, which Standard
 * Webhooks verifiers accept) for `previousValidHours`, so a receiver that has not switched yet
 * keeps accepting deliveries (Svix keeps it 24 hours); 0 ends it at once, for a leaked secret.
 * Only the secret just replaced is kept: a second rotation drops the one before it.
 */
export async function rotateWebhookSecret(ctx: TenantContext, env: Bindings, id: number, previousValidHours: number) {
  const secret = generateWebhookSecret();
  const sealed = await sealSecret(await keyringOf(env), ctx.orgId, secret);
  const keep = previousValidHours > 0;
  const [rotated] = await ctx.db
    .update(webhookEndpoints)
    .set({
      secretSealed: sealed.sealed,
      secretKeyId: sealed.keyId,
      // The right-hand sides read the row before this update: the secret being replaced.
      previousSecretSealed: keep ? sql`${webhookEndpoints.secretSealed}` : null,
      previousSecretKeyId: keep ? sql`${webhookEndpoints.secretKeyId}` : null,
      previousSecretExpiresAt: keep ? sql`now() + make_interval(hours => ${previousValidHours})` : null,
      updatedAt: sql`now()`,
    })
    .where(tenantWhere(ctx, webhookEndpoints, eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id, previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt });
  if (!rotated) throw new NotFound('Webhook', id);
  return { id, secret, previous_secret_expires_at: isoTimestamp(rotated.previousSecretExpiresAt) };
}

export const webhookAttemptList = defineList({
  sort: { id: webhookAttempts.id, attempted_at: webhookAttempts.attemptedAt },
  search: (term) => ilike(webhookDeliveries.eventType, containsPattern(term)),
  createdAt: webhookAttempts.attemptedAt,
  base: (ctx) => ({
    rows: (columns) =>
      ctx.db
        .select({
          id: webhookAttempts.id,
          deliveryId: webhookAttempts.deliveryId,
          messageId: webhookDeliveries.messageId,
          eventType: webhookDeliveries.eventType,
          attempt: webhookAttempts.attempt,
          attemptedAt: webhookAttempts.attemptedAt,
          statusCode: webhookAttempts.statusCode,
          latencyMs: webhookAttempts.latencyMs,
          responseBody: webhookAttempts.responseBody,
          error: webhookAttempts.error,
          ...columns,
        })
        .from(webhookAttempts)
        .innerJoin(
          webhookDeliveries,
          and(
            eq(webhookDeliveries.organizationId, webhookAttempts.organizationId),
            eq(webhookDeliveries.id, webhookAttempts.deliveryId),
          ),
        )
        .$dynamic(),
    where: tenantWhere(ctx, webhookAttempts),
  }),
  present: (row) => ({
    id: row.id,
    delivery_id: row.deliveryId,
    message_id: row.messageId,
    event_type: row.eventType,
    attempt: row.attempt,
    attempted_at: isoTimestamp(row.attemptedAt) as string,
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    response_body: row.responseBody,
    error: row.error,
  }),
});
export const WebhookAttemptListQuery = webhookAttemptList.query;

/** The endpoint's delivery log, newest first by default. */
export async function listWebhookAttempts(
  ctx: TenantContext,
  endpointId: number,
  params: Parameters<typeof webhookAttemptList.run>[1],
) {
  const page = await webhookAttemptList.run(ctx, params, { where: eq(webhookAttempts.endpointId, endpointId) });
  if (page.rows.length === 0) await getWebhook(ctx, endpointId);
  return page;
}

/**
 * Sends one delivery again, as a new delivery with the original's message id and payload (so
 * the receiver can tell it is the same event) and a fresh schedule. The endpoint must be enabled.
 */
export async function replayWebhookDelivery(ctx: TenantContext, deliveryId: number) {
  const inserted = await ctx.db.execute<{ id: number; message_id: string; enabled: boolean }>(sql`
    with original as (
      select d.id, d.endpoint_id, d.event_type, d.message_id, d.payload, e.enabled
      from ${webhookDeliveries} d join ${webhookEndpoints} e on e.id = d.endpoint_id and e.organization_id = d.organization_id
      where d.organization_id = ${ctx.orgId} and d.id = ${deliveryId}
    ), replayed as (
      insert into ${webhookDeliveries} (organization_id, endpoint_id, event_type, message_id, payload, replay_of, created_by)
      select ${ctx.orgId}, endpoint_id, event_type, message_id, payload, id, ${ctx.userId}::bigint from original where enabled
      returning id, message_id
    )
    select coalesce(r.id, 0) as id, o.message_id, o.enabled from original o left join replayed r on true`);
  const row = inserted.rows[0];
  if (!row) throw new NotFound('Webhook delivery', deliveryId);
  if (!row.enabled) throw new Conflict('The endpoint is disabled: enable it before replaying', 'webhook_disabled');
  sendWebhookDeliveries(ctx, [row.id]);
  return { id: Number(row.id), replay_of: deliveryId, message_id: row.message_id, status: 'queued' };
}
