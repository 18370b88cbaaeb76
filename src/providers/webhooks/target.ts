/**
 * Which addresses a webhook may be sent to. The server makes the request, so an endpoint URL is
 * a way to make it call something on the caller's behalf (server-side request forgery): the
 * cloud's metadata service (169.254.169.254), a database or admin port on the private network,
 * the Worker's own loopback. So, outside local development: https only; no `localhost`; no IP
 * literal in a private, loopback, link-local, CGNAT or otherwise non-public range; the standard
 * port only, unless WEBHOOK_ALLOWED_PORTS lists it. A name that resolves to a private address is
 * not caught here (Workers cannot resolve names); Cloudflare's egress does not reach private
 * networks, which covers it in production.
 */
import ipaddr from 'ipaddr.js';

/** IPv6's global unicast space (RFC 4291); everything outside it is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export interface TargetRules {
  /** Local development (`npm start`): http, loopback and any port allowed, for a receiver on this machine. */
  local: boolean;
  /** Ports allowed besides the scheme's default (WEBHOOK_ALLOWED_PORTS). */
  allowedPorts: readonly number[];
}

/** Why `raw` may not be a webhook target, in words for the caller; null when it may. */
export function targetProblem(raw: string, rules: TargetRules): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(rules.local && url.protocol === 'http:')) {
    return rules.local ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.port !== '' && !rules.local && !rules.allowedPorts.includes(Number(url.port))) {
    return 'must use the standard port (443) unless the server allows another';
  }
  if (rules.local) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at localhost';
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (ipaddr.isValid(literal)) {
    let address = ipaddr.parse(literal);
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      address = (address as ipaddr.IPv6).toIPv4Address();
    }
    // unicast is the only public range; private, loopback, linkLocal, carrierGradeNat, uniqueLocal,
    // unspecified, reserved and the rest are refused.
    if (address.range() !== 'unicast') return `must not point at a ${address.range()} address`;
    // ipaddr.js calls every IPv6 address it has no name for unicast; only 2000::/3 is global unicast.
    // The rest is reserved, e.g. the deprecated IPv4-compatible [::127.0.0.1] (::7f00:1).
    if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6)) return 'must not point at a reserved address';
  } else if (!host.includes('.')) {
    return 'must have a public host name';
  }
  return null;
}

/** The rules from the Worker's bindings: local when WEBHOOK_LOCAL_TARGETS is "true" (set by .dev.vars and tests only). */
export function targetRules(env: { WEBHOOK_LOCAL_TARGETS?: string; WEBHOOK_ALLOWED_PORTS?: string }): TargetRules {
  const allowedPorts = (env.WEBHOOK_ALLOWED_PORTS ?? '')
    .split(',')
    .map((port) => Number(port.trim()))
    .filter((port) => Number.isInteger(port) && port > 0 && port < 65536);
  return { local: env.WEBHOOK_LOCAL_TARGETS === 'true', allowedPorts };
}
