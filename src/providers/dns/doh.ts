/**
 * DNS over HTTPS, JSON API: GET <resolver>?name=<name>&type=TXT with `accept: application/dns-json`
 * (Cloudflare's https://cloudflare-dns.com/dns-query by default; Google's https://dns.google/resolve
 * speaks the same schema). The answer's `Status` is the DNS RCODE: 0 NOERROR (the records are in
 * `Answer`, type 16 for TXT, alongside any CNAME the name went through), 3 NXDOMAIN (no such name),
 * 2 SERVFAIL (the resolver could not get an answer: temporary, so a ProviderFailure `unavailable`);
 * any other is a refusal. A TXT record's `data` is its character-strings, each quoted
 * (`"\"v=spf1 -all\""`, a long record as `"\"part one\" \"part two\""`), which are joined
 * without separator to form its value (RFC 7208 §3.3 does the same for SPF); an unquoted `data`
 * (Google) is the value itself.
 */
import { expectOk, ProviderFailure, providerFetch } from '../failures';
import type { DnsProvider, TxtCheck } from './interface';

export const CLOUDFLARE_DOH_URL = 'https://cloudflare-dns.com/dns-query';
const TXT = 16;
const NOERROR = 0;
const SERVFAIL = 2;
const NXDOMAIN = 3;

interface DnsJsonAnswer {
  Status?: number;
  Answer?: { name?: string; type?: number; data?: string }[];
}

/** A TXT record's value from its presentation: the quoted character-strings joined, escapes resolved. */
export function txtValue(data: string): string {
  const text = data.trim();
  if (!text.startsWith('"')) return text;
  let value = '';
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      quoted = !quoted;
    } else if (!quoted) {
      // Blanks between the strings separate them; they are not part of the value.
    } else if (char === '\\' && /^\d{3}$/.test(text.slice(at + 1, at + 4))) {
      value += String.fromCharCode(Number(text.slice(at + 1, at + 4)));
      at += 3;
    } else if (char === '\\' && at + 1 < text.length) {
      value += text[++at];
    } else {
      value += char;
    }
  }
  return value;
}

export function dnsOverHttps(resolverUrl = CLOUDFLARE_DOH_URL): DnsProvider {
  return {
    name: 'doh',
    local: false,
    async checkTxt(name: string, value: string): Promise<TxtCheck> {
      const url = `${resolverUrl}?${new URLSearchParams({ name, type: 'TXT' })}`;
      const response = await expectOk(
        'dns',
        await providerFetch('dns', url, { method: 'GET', headers: { accept: 'application/dns-json' } }),
        'TXT lookup',
      );
      const body = (await response.json().catch(() => null)) as DnsJsonAnswer | null;
      const status = body?.Status;
      if (status === SERVFAIL || typeof status !== 'number') {
        throw new ProviderFailure(
          'unavailable',
          'dns',
          response.status,
          `the DNS resolver could not look up ${name} (${status === SERVFAIL ? 'SERVFAIL' : 'no answer'}); try again later`,
          60,
        );
      }
      if (status === NXDOMAIN) return { found: false, nameMissing: true, records: 0 };
      if (status !== NOERROR) {
        throw new ProviderFailure(
          'rejected',
          'dns',
          response.status,
          `the DNS lookup of ${name} failed (RCODE ${status})`,
        );
      }
      const records = (body?.Answer ?? []).filter((answer) => answer.type === TXT && typeof answer.data === 'string');
      return {
        found: records.some((record) => txtValue(record.data as string) === value),
        nameMissing: false,
        records: records.length,
      };
    },
  };
}
