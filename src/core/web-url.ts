/**
 * The one rule for web addresses we store and later send somewhere (a Location header, a CSP
 * header, a link in a client): the raw text holds no control character, whitespace or backslash;
 * the scheme is http or https; the host is a DNS host name (letters, digits, hyphens) or an IP
 * literal. The raw text is judged before parsing because `new URL` silently drops tab, CR and LF
 * and turns `\` into `/`: `https://exa\nmple.com/` would parse, and then break the header it lands
 * in. The zod schemas built on this are in schemas.ts.
 */

/** C0 and C1 controls, DEL, every Unicode space and line separator, zero-width and BOM characters, backslash. */
const UNSAFE_CHARACTER = /[\p{Cc}\s\u200b-\u200f\u2060\ufeff\\]/u;

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export const WEB_URL_MESSAGES = {
  unsafe: 'must not contain spaces, control characters or backslashes',
  scheme: 'must be an http or https URL',
  host: 'must have a valid host name or IP address',
} as const;

export type WebUrlProblem = keyof typeof WEB_URL_MESSAGES;

/**
 * A host as the URL parser leaves it (lower-cased, IDN in punycode, numeric IPv4 forms written
 * dotted, IPv6 in brackets) that is a host name by RFC 1123 or an IP literal. `a;sandbox` and
 * `a_b` are not: the parser keeps them, a CSP header or a mail client would not.
 */
export function isHostName(host: string): boolean {
  if (host.startsWith('[') && host.endsWith(']')) return true;
  if (IPV4.test(host)) return true;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => DNS_LABEL.test(label));
}

/**
 * What is wrong with `raw` as a web address, or null. With `bareHost`, a value without a scheme
 * (`example.com`, `example.com:8080/x`) is judged as `http://` + value: the website and profile
 * fields have always taken those.
 */
export function webUrlProblem(raw: string, options: { bareHost?: boolean } = {}): WebUrlProblem | null {
  if (UNSAFE_CHARACTER.test(raw)) return 'unsafe';
  const hasScheme = /^[a-z][a-z0-9+.-]*:(?!\d+(?:[/?#]|$))/i.test(raw);
  if (hasScheme && !/^https?:\/\//i.test(raw)) return 'scheme';
  if (!hasScheme && !options.bareHost) return 'scheme';
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    return 'host';
  }
  return isHostName(url.hostname) ? null : 'host';
}

/** An absolute http(s) URL by the rule above, parsed; null when it breaks the rule. */
export function parseWebUrl(raw: string): URL | null {
  return webUrlProblem(raw) === null ? new URL(raw) : null;
}

/** True for an absolute http(s) URL by the rule above (click targets, redirects). */
export function isWebUrl(raw: string): boolean {
  return webUrlProblem(raw) === null;
}
