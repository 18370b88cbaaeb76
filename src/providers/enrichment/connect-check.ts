/**
 * The one call that proves an enrichment credential before POST /api/connected-apps/connect
 * stores it (kind `enrichment`; the adapters themselves live beside this file):
 *   - apollo: GET https://api.apollo.io/v1/auth/health with the key in `x-api-key`. It spends no
 *     Apollo credit (people match does). Apollo answers 401 for an unknown key, and 200 with
 *     `is_logged_in: false` for a key it does not accept; both are the credential's refusal.
 *     A key names no account, so the identity is the provider: one Apollo connection per
 *     organization, and connecting again replaces its key;
 *   - local: nothing to check (the rules and packages of local.ts, no network).
 */
import { expectOk, ProviderFailure, providerFetch } from '../failures';

export const ENRICHMENT_PROVIDERS = ['apollo', 'local'] as const;
export type EnrichmentProviderName = (typeof ENRICHMENT_PROVIDERS)[number];

export const APOLLO_HEALTH_URL = 'https://api.apollo.io/v1/auth/health';

export async function checkEnrichmentCredential(
  provider: EnrichmentProviderName,
  apiKey: string | null,
): Promise<{ identity: string; displayName: string | null }> {
  if (provider === 'local') return { identity: 'local enrichment', displayName: 'Local enrichment (offline)' };
  const response = await providerFetch('apollo', APOLLO_HEALTH_URL, {
    method: 'GET',
    headers: { 'x-api-key': apiKey ?? '', 'cache-control': 'no-cache', accept: 'application/json' },
  });
  await expectOk('apollo', response, 'key check');
  const body = (await response.json().catch(() => ({}))) as { is_logged_in?: boolean };
  if (body.is_logged_in !== true) throw new ProviderFailure('auth', 'apollo', 200, 'apollo refused the API key');
  return { identity: 'apollo', displayName: 'Apollo' };
}
