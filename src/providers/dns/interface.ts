/**
 * What the rest of the code may ask of a DNS provider: whether a TXT record holding a value is
 * published at a name (the proof an organization controls a link domain,
 * modules/tracking/link-domain-verification.ts). Each provider (local.ts offline, doh.ts over
 * DNS-over-HTTPS) speaks its own wire format behind this; a lookup the resolver could not answer
 * (down, throttled, SERVFAIL) is a ProviderFailure of kind `unavailable` (providers/failures.ts).
 */

export const DNS_PROVIDERS = ['local', 'doh'] as const;
export type DnsProviderName = (typeof DNS_PROVIDERS)[number];

export interface TxtCheck {
  /** One of the TXT records at the name is exactly the value (its strings joined). */
  found: boolean;
  /** The name does not exist at all (NXDOMAIN), as opposed to existing without the record. */
  nameMissing: boolean;
  /** How many TXT records the name holds (their text is not kept: it is anyone's). */
  records: number;
}

export interface DnsProvider {
  name: DnsProviderName;
  /** True when no outside service is asked (the local provider). */
  local: boolean;
  checkTxt(name: string, value: string): Promise<TxtCheck>;
}
