/**
 * The organization's side of calling: its wallet (derived from the ledger), the operator's top-up
 * (beyond the spec: a real payment provider is out of scope; routes.ts), the browser's voice token, and
 * connecting a Twilio account (sealed credentials, kind `voice`).
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { ApiError, Conflict, ValidationFailed } from '../../core/errors';
import { calls, connections, ENDED_CALL_STATUSES, voiceLedger } from '../../db/schema';
import type { TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { liveAccountConflict, lockLiveKind, sealCredentials } from '../../providers/connections';
import { ProviderFailure, ProviderUnavailable } from '../../providers/failures';
import { findVoiceConnection, voiceSetupOf, type VoiceCredentials } from '../../providers/voice/select';
import { MONTHLY_NUMBER_CENTS, type TwilioCredentials, verifyTwilioAccount } from '../../providers/voice/twilio';
import { twilioVoiceToken } from '../../providers/voice/twilio-token';
import { AGENT_CALL_MAX_MINUTES, CALL_CENTS_PER_MINUTE, CALL_MAX_SECONDS } from './pricing';
import type { TopUpBody, VoiceConnectionBody } from './schemas';
import { statusCallbackUrl, voiceUrl } from './twilio-request';
import { clientIdentity } from './voice-answer';
import { centsToAmount, recordLedger, WALLET_CURRENCY } from './wallet';

export async function readWallet(ctx: Pick<TenantContext, 'db' | 'orgId'>) {
  const result = await ctx.db.execute<{ balance: string | number; held: string | number }>(sql`
    select coalesce(sum(${voiceLedger.amountCents}), 0)::bigint as balance,
      coalesce(-sum(${voiceLedger.amountCents}) filter (where ${voiceLedger.kind} in ('call_hold', 'call_release')), 0)::bigint as held
    from ${voiceLedger} where ${voiceLedger.organizationId} = ${ctx.orgId}`);
  const row = result.rows[0];
  return {
    balance: centsToAmount(Number(row?.balance ?? 0)),
    held: centsToAmount(Number(row?.held ?? 0)),
    currency: WALLET_CURRENCY,
    call_price_per_minute: centsToAmount(CALL_CENTS_PER_MINUTE),
    agent_call_max_minutes: AGENT_CALL_MAX_MINUTES,
    number_monthly_prices: {
      local: centsToAmount(MONTHLY_NUMBER_CENTS.local),
      mobile: centsToAmount(MONTHLY_NUMBER_CENTS.mobile),
      toll_free: centsToAmount(MONTHLY_NUMBER_CENTS.toll_free),
    },
  } as const;
}

/** A top-up (the operator's, run as the organization: created_by is null), then the wallet. */
export async function topUpWallet(ctx: TenantContext, input: z.output<typeof TopUpBody>) {
  await recordLedger(ctx.db, ctx.orgId, {
    kind: 'top_up',
    cents: Math.round(input.amount * 100),
    note: input.note ?? null,
    createdBy: ctx.userId,
  });
  return readWallet(ctx);
}

export async function voiceToken(ctx: TenantContext, env: Bindings) {
  const setup = await voiceSetupOf(env, await findVoiceConnection(ctx.db, ctx.orgId));
  const identity = clientIdentity(ctx.orgId, ctx.userId ?? 0);
  if (setup.provider === 'local') {
    // Same shape, signed with a throwaway key: the local simulator has no Twilio service to accept it.
    const { token, expiresAt } = await twilioVoiceToken({
      accountSid: `AC${'0'.repeat(32)}`,
      apiKeySid: `SK${'0'.repeat(32)}`,
      apiKeySecret: crypto.randomUUID(),
      applicationSid: `AP${'0'.repeat(32)}`,
      identity,
    });
    return { token, identity, expires_at: expiresAt.toISOString(), provider: 'local' };
  }
  const twilio = setup.credentials?.twilio;
  if (!twilio?.api_key_sid || !twilio.api_key_secret || !twilio.twiml_app_sid) {
    throw new ApiError(
      409,
      'conflict',
      'Browser calling needs api_key_sid, api_key_secret and twiml_app_sid on the voice connection',
      'browser_calling_not_configured',
    );
  }
  const { token, expiresAt } = await twilioVoiceToken({
    accountSid: twilio.account_sid,
    apiKeySid: twilio.api_key_sid,
    apiKeySecret: twilio.api_key_secret,
    applicationSid: twilio.twiml_app_sid,
    identity,
  });
  return { token, identity, expires_at: expiresAt.toISOString(), provider: 'twilio' };
}

export function presentVoiceConnection(row: typeof connections.$inferSelect, orgId: number) {
  const settings = row.settings as { webhook_origin?: string; browser_calling?: boolean; agent_calling?: boolean };
  const origin = settings.webhook_origin ?? '';
  return {
    id: row.id,
    provider: row.provider,
    account_sid: row.identity,
    browser_calling: settings.browser_calling === true,
    agent_calling: settings.agent_calling === true,
    status_callback_url: statusCallbackUrl(origin, orgId),
    voice_url: voiceUrl(origin, orgId),
    agent_webhook_url: `${origin}/api/v1/voice/vapi/${orgId}`,
  };
}

/**
 * The organization's live voice connection as `connectVoice` answered it (never a secret); 404
 * when it has none, and calls go through the local simulator.
 */
export async function readVoiceConnection(ctx: Pick<TenantContext, 'db' | 'orgId'>) {
  const [row] = await ctx.db
    .select()
    .from(connections)
    .where(
      and(eq(connections.organizationId, ctx.orgId), eq(connections.kind, 'voice'), isNull(connections.deletedAt)),
    );
  if (!row) throw noVoiceConnection();
  return presentVoiceConnection(row, ctx.orgId);
}

const noVoiceConnection = () =>
  new ApiError(
    404,
    'not_found',
    'The organization has no voice connection: calls go through the local simulator (connect Twilio with POST /api/voice/connection)',
  );

/**
 * Asks Twilio whether the account SID and auth token work before anything is stored: refused
 * (401/403) is a 422 naming auth_token, an unknown or closed account one naming account_sid,
 * Twilio down or throttling a 503 with Retry-After.
 */
async function verifyCredentials(twilio: TwilioCredentials): Promise<void> {
  let status: string;
  try {
    ({ status } = await verifyTwilioAccount(twilio));
  } catch (error) {
    if (!(error instanceof ProviderFailure)) throw error;
    if (error.kind === 'unavailable') throw new ProviderUnavailable(error.reason, error.retryAfterSeconds ?? 30);
    if (error.kind === 'auth') {
      throw ValidationFailed.field('auth_token', `Twilio refused this account SID and auth token (${error.status})`);
    }
    throw ValidationFailed.field('account_sid', `Twilio has no account ${twilio.account_sid} (${error.status})`);
  }
  if (status !== 'active') {
    throw ValidationFailed.field('account_sid', `the Twilio account is ${status}, not active`);
  }
}

/**
 * Connects the organization's Twilio account once Twilio accepted its credentials: the same
 * account's live connection is reconnected in place (new credentials and settings, same id), a
 * connection to another account is disconnected and a new one made.
 */
export async function connectVoice(
  ctx: TenantContext,
  env: Bindings,
  origin: string,
  input: z.output<typeof VoiceConnectionBody>,
) {
  const vapiFields = [input.vapi_api_key, input.vapi_phone_number_id, input.vapi_webhook_secret];
  if (vapiFields.some(Boolean) && !vapiFields.every(Boolean)) {
    throw new ApiError(
      422,
      'validation_error',
      'vapi_api_key, vapi_phone_number_id and vapi_webhook_secret go together',
      'vapi_api_key',
      [{ field: 'vapi_api_key', message: 'vapi_api_key, vapi_phone_number_id and vapi_webhook_secret go together' }],
    );
  }
  const credentials: VoiceCredentials = {
    twilio: {
      account_sid: input.account_sid,
      auth_token: input.auth_token,
      api_key_sid: input.api_key_sid,
      api_key_secret: input.api_key_secret,
      twiml_app_sid: input.twiml_app_sid,
    },
    vapi: input.vapi_api_key
      ? {
          api_key: input.vapi_api_key,
          phone_number_id: input.vapi_phone_number_id as string,
          webhook_secret: input.vapi_webhook_secret as string,
        }
      : undefined,
  };
  await verifyCredentials(credentials.twilio);
  const sealed = await sealCredentials(env, ctx.orgId, credentials);
  const settings = {
    webhook_origin: origin,
    browser_calling: Boolean(input.api_key_sid && input.api_key_secret && input.twiml_app_sid),
    agent_calling: Boolean(input.vapi_api_key),
  };
  // Another account's connection is disconnected (as DELETE does); the same account's is
  // reconnected in place, so the calls, numbers and jobs that name it keep reaching the provider.
  // Under the kind's lock: two accounts connected at once leave one live connection, the later
  // (`connections_live_kind_key`).
  await lockLiveKind(ctx.db, ctx.orgId, 'voice');
  await disconnectVoiceConnections(ctx, input.force === true, input.account_sid);
  // One statement: the account's live row is reconnected in place, else added; connects of one
  // account at once (a double click) meet on the unique index of live accounts and make one row.
  // The request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  const [row] = await ctx.db
    .insert(connections)
    .values({
      organizationId: ctx.orgId,
      kind: 'voice',
      provider: 'twilio',
      identity: input.account_sid,
      ownerId: ctx.userId,
      settings,
      ...sealed,
    })
    .onConflictDoUpdate({
      ...liveAccountConflict,
      set: {
        ...sealed,
        settings,
        ownerId: ctx.userId,
        state: 'active',
        lastError: null,
        reconnectNotifiedAt: null,
        updatedAt: sql`now()`,
      },
    })
    .returning();
  return presentVoiceConnection(row, ctx.orgId);
}

/** Why a call that was open when its connection went is failed. */
export const DISCONNECTED_DURING_CALL =
  'The voice connection was disconnected before the provider reported how the call ended';

/**
 * Disconnects the organization's live voice connections (but the one to `keepAccount`) in one
 * statement: the sealed credentials are erased at once. Calls through them that are not over
 * (opened less than CALL_MAX_SECONDS ago) would never hear their outcome, since the provider's
 * reports are checked with the credentials: they make it a 409 `calls_in_progress` unless
 * `force`, and nothing changes. Disconnected, every call still open through them is failed with
 * nothing charged and its hold released (once per call, as any ending); queued purchases and dials
 * through them fail and are refunded by their job. Answers the connections disconnected (none
 * when there were none) and the calls ended.
 */
async function disconnectVoiceConnections(ctx: TenantContext, force: boolean, keepAccount?: string) {
  const orgId = ctx.orgId;
  const ended = sql.join(
    ENDED_CALL_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  const kept = keepAccount === undefined ? sql`` : sql`and identity <> ${keepAccount}`;
  const result = await ctx.db.execute<{ busy: number; gone: number[] | null; ended: number }>(sql`
    with target as (
      select id from ${connections}
      where organization_id = ${orgId} and kind = 'voice' and deleted_at is null ${kept}
    ), busy as (
      select count(*)::int as n from ${calls}
      where organization_id = ${orgId} and connection_id in (select id from target)
        and status not in (${ended}) and created_at > now() - make_interval(secs => ${CALL_MAX_SECONDS})
    ), gone as (
      update ${connections}
      set deleted_at = now(), state = 'disabled', secret = null, secret_key_id = null, token_expires_at = null, updated_at = now()
      where organization_id = ${orgId} and id in (select id from target) and (${force}::boolean or (select n from busy) = 0)
      returning id
    ), ended as (
      update ${calls}
      set status = 'failed', ended_at = now(), duration_sec = 0, price_cents = 0,
        started_at = coalesce(started_at, now()), failure_reason = ${DISCONNECTED_DURING_CALL}, updated_at = now()
      where organization_id = ${orgId} and connection_id in (select id from gone) and status not in (${ended})
      returning id, reserved_cents
    ), released as (
      insert into ${voiceLedger} (organization_id, kind, amount_cents, call_id, note, created_by)
      select ${orgId}, 'call_release', reserved_cents, id, 'hold released', ${ctx.userId}::bigint
      from ended where reserved_cents > 0
      on conflict do nothing
      returning id
    )
    select (select n from busy) as busy, (select array_agg(id order by id) from gone) as gone,
      (select count(*)::int from ended) as ended`);
  const row = result.rows[0];
  const busy = Number(row?.busy ?? 0);
  const gone = (row?.gone ?? []).map(Number);
  if (gone.length === 0 && busy > 0) {
    throw new Conflict(
      `Calls through the voice connection are still in progress (${busy}), and their outcome cannot be heard once it is disconnected: disconnect after they end, or send force=true to fail them now`,
      'calls_in_progress',
      { calls_in_progress: busy },
    );
  }
  return { gone, callsEnded: Number(row?.ended ?? 0) };
}

/** DELETE /api/voice/connection: see disconnectVoiceConnections; 404 when there is no connection. */
export async function disconnectVoice(ctx: TenantContext, force: boolean) {
  const { gone, callsEnded } = await disconnectVoiceConnections(ctx, force);
  if (gone.length === 0) throw noVoiceConnection();
  return { id: gone[gone.length - 1], calls_ended: callsEnded };
}
