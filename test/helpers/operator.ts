/**
 * The service operator in tests: its key (OPERATOR_API_KEY of vitest.config.ts's bindings) and the
 * grant of credits, which only the operator may make (core/auth/operator.ts).
 */
import { env } from 'cloudflare:workers';
import { call, type ApiResponse, type SignedUp } from './api';

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
