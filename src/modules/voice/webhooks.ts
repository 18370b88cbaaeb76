/**
 * Provider webhooks: Twilio's status and recording callbacks (form-encoded, X-Twilio-Signature
 * under the account's auth token) and Vapi's end-of-call report (JSON, x-vapi-signature under the
 * server credential's secret). Nothing is read from the body before its signature is checked
 * against the organization's sealed credentials: unsigned, badly signed, or for an organization
 * without a Twilio connection is a 403 and changes nothing. A Twilio callback naming a call we did
 * not place (a browser call, a call to one of our numbers) records it first (observed-calls.ts).
 * A replay changes nothing twice:
 * statuses only move forward, a call ends (and is charged) once, and a recording is copied once.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { Forbidden } from '../../core/errors';
import { type TransactionEffects, withTenantEffects } from '../../core/transaction-effects';
import type { Database, Transaction } from '../../db/client';
import { calls, voiceJobs } from '../../db/schema';
import type { Bindings } from '../../env';
import { enqueueJob } from '../../jobs/outbox';
import { openCredentials } from '../../providers/connections';
import { findVoiceConnection, type VoiceCredentials } from '../../providers/voice/select';
import { isValidVapiSignature, parseVapiReport } from '../../providers/voice/vapi';
import type { CallStatus } from '../../db/schema';
import { advanceCall, endCall } from './call-progress';
import { recordObservedCall } from './observed-calls';
import { verifiedTwilioCredentials } from './twilio-request';

const refused = () => new Forbidden('The webhook’s signature is missing or not valid', 'invalid_signature');

async function credentialsOf(tx: Transaction, env: Bindings, orgId: number) {
  const connection = await findVoiceConnection(tx, orgId);
  if (connection?.provider !== 'twilio') return null;
  const credentials = await openCredentials<VoiceCredentials>(env, connection).catch(() => null);
  return credentials ? { connection, credentials } : null;
}

/** The organization's calls matching the conditions (the one select both lookups below start from). */
function organizationCalls(tx: Transaction, orgId: number, ...conditions: SQL[]) {
  return tx
    .select()
    .from(calls)
    .where(and(eq(calls.organizationId, orgId), ...conditions));
}

async function findProviderCall(tx: Transaction, orgId: number, providers: string[], providerCallId: string) {
  const [row] = await organizationCalls(
    tx,
    orgId,
    sql`${calls.provider} in (${sql.join(
      providers.map((name) => sql`${name}`),
      sql`, `,
    )})`,
    eq(calls.providerCallId, providerCallId),
  );
  return row ?? null;
}

/**
 * The Vapi call a report names: by Vapi's call id, or by our id in its metadata on a call that has
 * no Vapi id yet (the job's record of it came after the report, or never: the create answer was
 * lost and the job gave up). Ours first when both match (another row holding Vapi's id is not the
 * call the report names). One statement, as findProviderCall.
 */
async function findVapiCall(tx: Transaction, orgId: number, providerCallId: string, callId: number | null) {
  const ours = sql`${calls.id} = ${callId ?? 0} and ${calls.providerCallId} is null`;
  const [row] = await organizationCalls(
    tx,
    orgId,
    eq(calls.provider, 'vapi'),
    sql`(${calls.providerCallId} = ${providerCallId} or (${ours}))`,
  )
    .orderBy(sql`(${ours}) desc`)
    .limit(1);
  return row ?? null;
}

/** Queues the copy of a call's recording unless one was queued before (a replayed callback). */
async function queueRecordingCopy(
  tx: Transaction,
  effects: TransactionEffects,
  orgId: number,
  callId: number,
  url: string,
) {
  const [job] = await tx
    .execute<{ id: string }>(sql`
    insert into ${voiceJobs} (organization_id, action, call_id, source_url)
    select ${orgId}, 'copy_recording', ${callId}, ${url}
    where not exists (select 1 from ${voiceJobs} j where j.organization_id = ${orgId} and j.call_id = ${callId} and j.action = 'copy_recording')
    returning id`)
    .then((result) => result.rows);
  if (job) await enqueueJob({ db: tx, orgId, effects }, { kind: 'voice', jobId: Number(job.id) });
}

const TWILIO_ENDED: Partial<Record<string, CallStatus>> = {
  completed: 'completed',
  busy: 'busy',
  failed: 'failed',
  'no-answer': 'no-answer',
  canceled: 'canceled',
};

/** A Twilio callback: `url` is the URL Twilio requested (the configured origin plus path and query). */
export async function twilioCallback(
  db: Database,
  env: Bindings,
  orgId: number,
  url: string,
  signature: string | undefined,
  rawBody: string,
) {
  const params = [...new URLSearchParams(rawBody).entries()];
  return withTenantEffects(db, env, orgId, async (tx, effects) => {
    const connection = await findVoiceConnection(tx, orgId);
    if (!connection || !(await verifiedTwilioCredentials(env, connection, url, signature, params))) throw refused();
    const get = (name: string) => params.find(([key]) => key === name)?.[1];
    const callSid = get('CallSid');
    if (!callSid) return { handled: false };
    const call =
      (await findProviderCall(tx, orgId, ['twilio', 'vapi'], callSid)) ??
      (await recordObservedCall(tx, orgId, connection.id, callSid, get));
    if (!call) return { handled: false };
    if (get('RecordingSid') && get('RecordingStatus') === 'completed' && get('RecordingUrl')) {
      await queueRecordingCopy(tx, effects, orgId, call.id, get('RecordingUrl') as string);
      return { handled: true };
    }
    const status = get('CallStatus') ?? '';
    if (status === 'ringing' || status === 'in-progress') await advanceCall(tx, orgId, call.id, status);
    const ended = TWILIO_ENDED[status];
    if (ended) {
      const raw = Number(get('CallDuration') ?? 0);
      const duration = Number.isFinite(raw) ? Math.max(0, Math.round(raw)) : 0;
      const endedAt = new Date();
      await endCall(
        tx,
        { orgId, userId: call.userId },
        call.id,
        {
          status: ended,
          durationSec: duration,
          // Twilio's CallDuration runs from the answer: the answer was that long before the end.
          answeredAt: ended === 'completed' ? new Date(endedAt.getTime() - duration * 1000) : null,
          endedAt,
          transcript: null,
        },
        effects,
      );
    }
    return { handled: true };
  });
}

/** Vapi's server message: only the end-of-call report changes anything. */
export async function vapiCallback(
  db: Database,
  env: Bindings,
  orgId: number,
  signature: string | undefined,
  rawBody: string,
) {
  return withTenantEffects(db, env, orgId, async (tx, effects) => {
    const account = await credentialsOf(tx, env, orgId);
    const secret = account?.credentials.vapi?.webhook_secret;
    if (!secret || !(await isValidVapiSignature(secret, signature, rawBody))) throw refused();
    let payload: unknown = null;
    try {
      payload = JSON.parse(rawBody);
    } catch {
      return { handled: false };
    }
    const report = parseVapiReport(payload);
    if (!report) return { handled: false };
    const call = await findVapiCall(tx, orgId, report.providerCallId, report.callId);
    if (!call) return { handled: false };
    await endCall(tx, { orgId, userId: call.userId }, call.id, report.outcome, effects, report);
    if (report.outcome.recordingUrl) await queueRecordingCopy(tx, effects, orgId, call.id, report.outcome.recordingUrl);
    return { handled: true };
  });
}
