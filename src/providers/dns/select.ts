/**
 * The DNS provider of this deployment, from its configuration (one per Worker, no credential):
 *   DNS_PROVIDER         local | doh; unset: local when the Worker runs with local providers
 *                        (LOCAL_PROVIDERS=true: `npm start`, the tests), else doh
 *   DNS_OVER_HTTPS_URL   doh: the resolver's JSON endpoint (default Cloudflare's)
 * An unknown DNS_PROVIDER falls back to doh, never to local: the local provider vouches for
 * reserved names only, but a production Worker must not skip the real lookup by a typo.
 */
import { CLOUDFLARE_DOH_URL, dnsOverHttps } from './doh';
import type { DnsProvider } from './interface';
import { localDns } from './local';

export interface DnsSettings {
  DNS_PROVIDER?: string;
  DNS_OVER_HTTPS_URL?: string;
  LOCAL_PROVIDERS?: string;
}

export function dnsProviderFor(env: DnsSettings): DnsProvider {
  const chosen = (env.DNS_PROVIDER ?? '').trim().toLowerCase() || (env.LOCAL_PROVIDERS === 'true' ? 'local' : 'doh');
  if (chosen === 'local') return localDns;
  return dnsOverHttps(env.DNS_OVER_HTTPS_URL || CLOUDFLARE_DOH_URL);
}
