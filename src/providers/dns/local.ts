/**
 * The local DNS provider: no network, deterministic, marked `local`. It answers as if the
 * verification record were published at every name under the reserved names of RFC 2606 and
 * RFC 6761 (`*.test`, `*.example`, `*.invalid`, `*.localhost`, and example.com, .net and .org
 * with their subdomains), which no one can register, and at no other name, so tests and
 * `npm start` demos see both outcomes. Chosen under LOCAL_PROVIDERS=true or DNS_PROVIDER=local.
 */
import type { DnsProvider, TxtCheck } from './interface';

const RESERVED_TOP_LEVEL = new Set(['test', 'example', 'invalid', 'localhost']);
const RESERVED_SECOND_LEVEL = new Set(['example.com', 'example.net', 'example.org']);

/** The name is one of the reserved ones, or under one. */
export function isReservedName(name: string): boolean {
  const labels = name.toLowerCase().replace(/\.$/, '').split('.');
  if (RESERVED_TOP_LEVEL.has(labels.at(-1) ?? '')) return true;
  return labels.length >= 2 && RESERVED_SECOND_LEVEL.has(labels.slice(-2).join('.'));
}

export const localDns: DnsProvider = {
  name: 'local',
  local: true,
  async checkTxt(name: string): Promise<TxtCheck> {
    const found = isReservedName(name);
    return { found, nameMissing: !found, records: found ? 1 : 0 };
  },
};
