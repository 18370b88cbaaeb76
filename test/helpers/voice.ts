/**
 * Voice in tests: money in the calling wallet, leads with phones, and requests whose voice jobs a
 * test delivers itself (through the Worker's queue handler), as often as it likes.
 */
import { type MockInstance, vi } from 'vitest';
import { call, type SignedUp } from './api';
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
