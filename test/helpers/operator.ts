/**
 * The service operator in tests: its key (OPERATOR_API_KEY of vitest.config.ts's bindings), the
 * grant of credits and the calling wallet's top-up, which only the operator may make
 * (core/auth/operator.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { buildApp } from '../../src/app';
import { call, type ApiResponse, type CallOptions, memberToken, type SignedUp } from './api';

// Members of an organization are made by test/helpers/api.ts; re-exported for this file's users.
export { memberToken };

export function operatorKey(): string {
  const key = (env as { OPERATOR_API_KEY?: string }).OPERATOR_API_KEY;
  if (!key) throw new Error('OPERATOR_API_KEY is not bound in the test Worker (vitest.config.ts)');
  return key;
}

/** The operator key as the dedicated header. */
export function operatorHeaders(): Record<string, string> {
  return { 'x-operator-key': operatorKey() };
}

/** POST /api/credits/grant as the operator. */
export function operatorGrant(body: Record<string, unknown>): Promise<ApiResponse> {
  return call('POST', '/api/credits/grant', { headers: operatorHeaders(), body });
}

/** Tops an organization up with `amount` credits; answers the new balance. */
export async function grantCredits(org: Pick<SignedUp, 'orgId'>, amount: number, note?: string): Promise<number> {
  const response = await operatorGrant({ organization_id: org.orgId, amount, ...(note ? { note } : {}) });
  if (response.status !== 201) throw new Error(`credits grant: ${response.status} ${response.text}`);
  return response.body.data.balance;
}

/** POST /api/voice/wallet/top-up as the operator. */
export function operatorTopUp(body: Record<string, unknown>): Promise<ApiResponse> {
  return call('POST', '/api/voice/wallet/top-up', { headers: operatorHeaders(), body });
}

/**
 * Every credential a tenant holds, none of which may reach an operator route: the admin's,
 * a manager's and a sales rep's tokens, an API key of the organization, and a wrong operator key.
 */
export async function tenantCredentials(owner: SignedUp): Promise<{ label: string; options: CallOptions }[]> {
  const key = await call('POST', '/api/api-keys/add', { token: owner.token, body: { name: 'operator attempt' } });
  if (key.status !== 201) throw new Error(`api key: ${key.status} ${key.text}`);
  return [
    { label: 'admin', options: { token: owner.token } },
    { label: 'manager', options: { token: await memberToken(owner, 'manager') } },
    { label: 'sales_rep', options: { token: await memberToken(owner, 'sales_rep') } },
    { label: 'API key', options: { apiKey: key.body.data.key as string } },
    { label: 'wrong operator key', options: { headers: { 'x-operator-key': `${operatorKey()}x` } } },
  ];
}

/**
 * The status an operator route answers, with the operator key sent, on a Worker whose
 * OPERATOR_API_KEY is `configured` (unset, empty or too short: the route should not exist).
 */
export async function statusWithOperatorKeyConfigured(
  path: string,
  body: Record<string, unknown>,
  configured: string | undefined,
): Promise<{ status: number; body: unknown }> {
  const ctx = createExecutionContext();
  const request = new Request(`http://lead.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-operator-key': configured || operatorKey() },
    body: JSON.stringify(body),
  });
  const response = await buildApp().fetch(request, { ...env, OPERATOR_API_KEY: configured }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: await response.json() };
}
