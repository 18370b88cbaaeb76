/**
 * Placing an AI agent call (POST /api/call/agent/initiate): the lead's or contact's phone,
 * normalised to E.164, is dialled from the organization's number (the caller's own first), by
 * the local simulator or, with a connected account, by Vapi. In the request's transaction: the
 * wallet holds the price of the longest call (AGENT_CALL_MAX_MINUTES; 402 when short), the call
 * is recorded `queued` with its turn under the provider's calls-per-second rate (`dial_after`,
 * taken under the wallet lock, so parallel requests get distinct turns), and the voice job is
 * queued through the outbox. The job dials it when its turn comes; the real duration is charged
 * when it ends and the hold released.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { ApiError, NotFound, RateLimited, ValidationFailed } from '../../core/errors';
import { calls, contacts, leads, voiceJobs } from '../../db/schema';
import { tenantWhere, type TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { insertJob } from '../../jobs/outbox';
import { WAIT_DEADLINE_SECONDS } from '../../jobs/faults';
import { findVoiceConnection, voiceSetupOf } from '../../providers/voice/select';
import { presentCall } from './calls';
import { callerNumber, e164 } from './numbers';
import { AGENT_CALL_HOLD_CENTS, CALLS_PER_SECOND, LOCAL_CALLER_ID } from './pricing';
import type { AgentCallBody } from './schemas';
import { debitWallet } from './wallet';

interface Callee {
  phone: string | null;
  companyId: number | null;
}

async function findCallee(ctx: TenantContext, input: z.output<typeof AgentCallBody>): Promise<Callee> {
  if (input.lead_id) {
    const [lead] = await ctx.db
      .select({ phone: leads.phoneNumber, companyId: leads.companyId })
      .from(leads)
      .where(tenantWhere(ctx, leads, eq(leads.id, input.lead_id), isNull(leads.deletedAt)));
    if (!lead) throw new NotFound('Lead', input.lead_id);
    return lead;
  }
  const [contact] = await ctx.db
    .select({ phone: contacts.phoneNumber, companyId: contacts.companyId })
    .from(contacts)
    .where(tenantWhere(ctx, contacts, eq(contacts.id, input.contact_id as number), isNull(contacts.deletedAt)));
  if (!contact) throw new NotFound('Contact', input.contact_id);
  return contact;
}

/**
 * How far ahead a new call's dialling turn may be: the voice job waits for its turn at most
 * WAIT_DEADLINE_SECONDS after it was queued (then it fails, REASONS.turnNeverCame), less a minute
 * for the queue's delivery.
 */
export const MAX_TURN_AHEAD_SECONDS = WAIT_DEADLINE_SECONDS - 60;

/**
 * A call whose turn is further ahead than MAX_TURN_AHEAD_SECONDS would be accepted only to fail a
 * day later: it is refused now, a 429 `call_queue_full` saying when a call would get a turn in
 * time (Retry-After and `earliest_at`). Thrown in the request's transaction, after the turn was
 * taken under the wallet lock: the call, its hold and its turn roll back together.
 */
function refuseTurnTooFar(turn: Date, now = Date.now()): void {
  const ahead = (turn.getTime() - now) / 1000;
  if (ahead <= MAX_TURN_AHEAD_SECONDS) return;
  const retryAfter = Math.ceil(ahead - MAX_TURN_AHEAD_SECONDS);
  const earliest = new Date(now + retryAfter * 1000).toISOString();
  throw new RateLimited(
    retryAfter,
    `The organization's calls are queued for the next ${Math.round(MAX_TURN_AHEAD_SECONDS / 3600)} hours (calls are dialled ${CALLS_PER_SECOND} per second); a new call could not be placed in time. Retry at ${earliest}; nothing was held or queued.`,
    'call_queue_full',
    { earliest_at: earliest, dial_turn_at: turn.toISOString(), max_wait_seconds: MAX_TURN_AHEAD_SECONDS },
  );
}

export async function initiateAgentCall(ctx: TenantContext, env: Bindings, input: z.output<typeof AgentCallBody>) {
  if (!input.lead_id && !input.contact_id) throw ValidationFailed.field('lead_id', 'lead_id or contact_id is required');
  if (input.lead_id && input.contact_id) {
    throw ValidationFailed.field('contact_id', 'give lead_id or contact_id, not both');
  }
  const field = input.lead_id ? 'lead_id' : 'contact_id';
  const callee = await findCallee(ctx, input);
  const to = e164(callee.phone, 'US');
  if (!to) {
    throw ValidationFailed.field(
      field,
      `the ${input.lead_id ? 'lead' : 'contact'} has no valid phone number (phone_number${callee.phone ? ' is not a phone number' : ' is empty'})`,
    );
  }
  const setup = await voiceSetupOf(env, await findVoiceConnection(ctx.db, ctx.orgId));
  if (setup.provider !== 'local' && !setup.agent) {
    throw new ApiError(
      409,
      'conflict',
      'Agent calls need the Vapi agent platform: add vapi_api_key, vapi_phone_number_id and vapi_webhook_secret to the voice connection',
      'agent_platform_missing',
    );
  }
  const from = (await callerNumber(ctx)) ?? (setup.provider === 'local' ? LOCAL_CALLER_ID : null);
  if (!from) {
    throw new ApiError(
      409,
      'conflict',
      'The organization has no phone number to call from; buy one first',
      'no_phone_number',
    );
  }
  const [row] = await ctx.db
    .insert(calls)
    .values({
      organizationId: ctx.orgId,
      userId: ctx.userId,
      leadId: input.lead_id ?? null,
      contactId: input.contact_id ?? null,
      companyId: callee.companyId,
      direction: 'outbound',
      kind: 'agent',
      fromNumber: from,
      toNumber: to,
      provider: setup.provider === 'local' ? 'local' : 'vapi',
      connectionId: setup.connection?.id ?? null,
      agent: {
        system_prompt: input.system_prompt,
        first_message: input.first_message ?? null,
        voice_id: input.voice_id ?? null,
        language: input.language ?? null,
      },
      reservedCents: AGENT_CALL_HOLD_CENTS,
    })
    .returning();
  // The hold is taken under the wallet lock (402 rolls the call back); the dialling turn after it.
  await debitWallet(ctx.db, ctx.orgId, {
    kind: 'call_hold',
    cents: AGENT_CALL_HOLD_CENTS,
    callId: row.id,
    note: 'held for the longest agent call',
    createdBy: ctx.userId,
  });
  const gap = 1 / CALLS_PER_SECOND;
  const [paced] = await ctx.db
    .update(calls)
    .set({
      // Every call whose turn is less than a gap ago or still ahead counts, waiting or dialled: a
      // call dialled a moment ago keeps its second. One that ended without being dialled does not.
      dialAfter: sql`greatest(now(), (select max(c.dial_after) + make_interval(secs => ${gap}) from ${calls} c
        where c.organization_id = ${ctx.orgId} and c.id <> ${row.id} and c.dial_after > now() - make_interval(secs => ${gap})
          and (c.status = 'queued' or c.started_at is not null)))`,
    })
    .where(and(eq(calls.organizationId, ctx.orgId), eq(calls.id, row.id)))
    .returning();
  refuseTurnTooFar(paced.dialAfter);
  // The dial's job with its outbox message, the request's last statement: its COMMIT goes with it.
  ctx.commitWithNext?.();
  await insertJob(ctx, 'voice', voiceJobs, {
    organizationId: ctx.orgId,
    action: 'place_call',
    callId: row.id,
    createdBy: ctx.userId,
  });
  return presentCall(paced);
}
