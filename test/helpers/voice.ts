/**
 * Voice in tests: money in the calling wallet, leads with phones, and requests whose voice jobs a
 * test delivers itself (through the Worker's queue handler), as often as it likes.
 */
import { and, eq } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { type MockInstance, vi } from 'vitest';
import { calls, phoneNumbers, voiceJobs, voiceLedger } from '../../src/db/schema';
import { call, type SignedUp } from './api';
import { inOrganization } from './leads';
import { deliverJobs, requestRecordingJobs } from './mail';
import { operatorTopUp } from './operator';

/** Puts `amount` USD in the organization's calling wallet, as the operator (the only one who may). */
export async function topUp(org: Pick<SignedUp, 'orgId'>, amount: number): Promise<void> {
  const response = await operatorTopUp({ organization_id: org.orgId, amount });
  if (response.status !== 200) throw new Error(`top-up: ${response.status} ${response.text}`);
}

export async function leadWithPhone(owner: SignedUp, phone: string | null, firstName = 'Grace'): Promise<number> {
  const response = await call('POST', '/api/lead/add', {
    token: owner.token,
    body: {
      first_name: firstName,
      last_name: 'Hopper',
      ...(phone ? { phone_number: phone } : { email: `${crypto.randomUUID().slice(0, 8)}@example.com` }),
    },
  });
  if (response.status !== 201) throw new Error(`lead add: ${response.status} ${response.text}`);
  return response.body.data.id;
}

/** A request, then every job it queued delivered once (the voice job runs to its end). */
export async function withJobsRun(
  method: string,
  path: string,
  options: Parameters<typeof requestRecordingJobs>[2] = {},
) {
  const response = await requestRecordingJobs(method, path, options);
  if (response.sent.length > 0) await deliverJobs(response.sent);
  return response;
}

/** Buys a simulator number (paid, then bought by the job); answers its id. */
export async function buyLocalNumber(admin: SignedUp, phoneNumber = '+14155550100'): Promise<number> {
  const response = await withJobsRun('POST', '/api/voice/purchase-number', {
    token: admin.token,
    body: { phoneNumber },
  });
  if (response.status !== 202) throw new Error(`purchase: ${response.status} ${response.text}`);
  return response.body.data.id;
}

/** Places a local agent call to the lead and runs it to its end; answers the call's id. */
export async function completedAgentCall(owner: SignedUp, leadId: number): Promise<number> {
  const response = await withJobsRun('POST', '/api/call/agent/initiate', {
    token: owner.token,
    body: { system_prompt: 'Book a demo of Acme CRM.', lead_id: leadId, first_message: 'Hi Grace, Acme here.' },
  });
  if (response.status !== 202) throw new Error(`agent call: ${response.status} ${response.text}`);
  return response.body.data.id;
}

let numberSeq = Math.floor(Math.random() * 100);
/** A simulator number not handed out before by this test file (the simulator offers 100 per area code). */
export function nextLocalNumber(area = '628'): string {
  numberSeq = (numberSeq + 1) % 100;
  return `+1${area}55501${String(numberSeq).padStart(2, '0')}`;
}

/**
 * Twilio's Account resource mocked at fetch (GET /2010-04-01/Accounts/{sid}.json answers this
 * status and body); every other request goes to the real fetch. Connecting an account checks it
 * there first. Restore with the answer's mockRestore().
 */
export function mockTwilioAccount(answer: () => Response = () => Response.json({ status: 'active' })): MockInstance {
  const real = globalThis.fetch;
  return vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (/^https:\/\/api\.twilio\.com\/2010-04-01\/Accounts\/[^/]+\.json$/.test(url)) return answer();
    return real(input, init);
  });
}

/**
 * Connects the organization's Twilio account with Vapi agent calling (Twilio's account check
 * mocked for the request); the route's answer.
 */
export async function connectTwilioWithVapi(
  org: SignedUp,
  account: { accountSid: string; authToken: string; vapiPhoneNumberId: string; vapiWebhookSecret: string },
) {
  const twilio = mockTwilioAccount();
  try {
    return await call('POST', '/api/voice/connection', {
      token: org.token,
      body: {
        account_sid: account.accountSid,
        auth_token: account.authToken,
        vapi_api_key: 'vapi-key',
        vapi_phone_number_id: account.vapiPhoneNumberId,
        vapi_webhook_secret: account.vapiWebhookSecret,
      },
    });
  } finally {
    twilio.mockRestore();
  }
}

/** A Twilio number the organization bought before on the connection (the number its calls are made from). */
export async function activeTwilioNumber(
  org: Pick<SignedUp, 'orgId'>,
  connectionId: number,
  phoneNumber: string,
  providerSid: string,
): Promise<void> {
  await inOrganization(org.orgId, (tx) =>
    tx.insert(phoneNumbers).values({
      organizationId: org.orgId,
      phoneNumber,
      numberType: 'local',
      provider: 'twilio',
      connectionId,
      providerSid,
      status: 'active',
      monthlyPriceCents: 115,
    }),
  );
}

/** The organization's rows of a table whose column equals `value` (read in the organization, as RLS lets it). */
async function organizationRows<T extends PgTable & { organizationId: AnyPgColumn }>(
  org: Pick<SignedUp, 'orgId'>,
  table: T,
  column: AnyPgColumn,
  value: number,
): Promise<T['$inferSelect'][]> {
  return (await inOrganization(org.orgId, (tx) =>
    tx
      .select()
      .from(table as PgTable)
      .where(and(eq(table.organizationId, org.orgId), eq(column, value))),
  )) as T['$inferSelect'][];
}

/** The call's row. */
export const callRow = async (org: Pick<SignedUp, 'orgId'>, id: number) =>
  (await organizationRows(org, calls, calls.id, id))[0];

/** The call's voice job. */
export const voiceJobOf = async (org: Pick<SignedUp, 'orgId'>, callId: number) =>
  (await organizationRows(org, voiceJobs, voiceJobs.callId, callId))[0];

/** The call's wallet movements, as [kind, cents] sorted. */
export const ledgerOf = async (org: Pick<SignedUp, 'orgId'>, callId: number) =>
  (await organizationRows(org, voiceLedger, voiceLedger.callId, callId))
    .map((entry) => [entry.kind, entry.amountCents])
    .sort();

/** Sets columns of the call's row. */
export const setCall = (org: Pick<SignedUp, 'orgId'>, id: number, values: Partial<typeof calls.$inferInsert>) =>
  inOrganization(org.orgId, (tx) =>
    tx
      .update(calls)
      .set(values)
      .where(and(eq(calls.organizationId, org.orgId), eq(calls.id, id))),
  );
