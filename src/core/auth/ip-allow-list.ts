/**
 * Matching a caller IP against an allow-list of addresses and CIDR ranges, IPv4 and IPv6, with
 * ipaddr.js. Stricter than ipaddr.js alone: IPv4 only as four decimal parts ("10" or "0x0a.0.0.1"
 * are refused), and no zone id (`%eth0`) in an allow-list entry, since a zone names an interface
 * of one host and means nothing for a caller on the internet. An IPv4-mapped IPv6 address
 * (::ffff:10.0.0.1) compares as the IPv4 address it carries, on either side.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseAddress(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return null;
  const address = ipaddr.IPv6.parse(text);
  return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/** The entry as a range (a single address is its own /32 or /128), or null when it is not one. */
function parseEntry(entry: string): [Address, number] | null {
  if (entry.includes('%')) return null;
  const [addressText, bitsText, extra] = entry.split('/');
  if (extra !== undefined || addressText === undefined) return null;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) {
    const bits = bitsText === undefined ? 32 : Number(bitsText);
    return bits <= 32 ? [ipaddr.IPv4.parse(addressText), bits] : null;
  }
  if (!ipaddr.IPv6.isValid(addressText)) return null;
  const address = ipaddr.IPv6.parse(addressText);
  const bits = bitsText === undefined ? 128 : Number(bitsText);
  if (bits > 128) return null;
  // ::ffff:10.0.0.0/104 is 10.0.0.0/8; a shorter prefix spans more than the mapped block and stays IPv6.
  if (address.isIPv4MappedAddress() && bits >= 96) return [address.toIPv4Address(), bits - 96];
  return [address, bits];
}

/** True for "203.0.113.7", "203.0.113.0/24", "2001:db8::/32" and the like. */
export function isValidIpOrCidr(entry: string): boolean {
  return parseEntry(entry) !== null;
}

export function ipMatches(ip: string, entry: string): boolean {
  // A caller's zone id (fe80::1%eth0) is dropped: the address alone is matched.
  const caller = parseAddress(ip.replace(/%.*$/, ''));
  const range = parseEntry(entry);
  if (!caller || !range || caller.kind() !== range[0].kind()) return false;
  return caller.match(range);
}
