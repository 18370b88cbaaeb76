/**
 * Matching a caller IP against an allow-list of addresses and CIDR ranges, IPv4 and IPv6.
 */
function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  let input = text;
  const lastColon = input.lastIndexOf(':');
  if (input.includes('.') && lastColon >= 0) {
    const v4 = parseIpv4(input.slice(lastColon + 1));
    if (v4 === null) return null;
    input = `${input.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = input.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

interface ParsedAddress {
  version: 4 | 6;
  value: bigint;
}

export function parseIp(text: string): ParsedAddress | null {
  const v4 = parseIpv4(text);
  if (v4 !== null) return { version: 4, value: v4 };
  const v6 = parseIpv6(text);
  if (v6 === null) return null;
  // IPv4-mapped IPv6 (::ffff:a.b.c.d) compares as IPv4.
  if (v6 >> 32n === 0xffffn) return { version: 4, value: v6 & 0xffffffffn };
  return { version: 6, value: v6 };
}

/** True for "203.0.113.7", "203.0.113.0/24", "2001:db8::/32" and the like. */
export function isValidIpOrCidr(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined) return false;
  const parsed = parseIp(address ?? '');
  if (!parsed) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (parsed.version === 4 ? 32 : 128);
}

export function ipMatches(ip: string, entry: string): boolean {
  const caller = parseIp(ip);
  const [address, bitsText] = entry.split('/');
  const range = parseIp(address ?? '');
  if (!caller || !range || caller.version !== range.version) return false;
  const width = caller.version === 4 ? 32n : 128n;
  const bits = bitsText === undefined ? width : BigInt(bitsText);
  const shift = width - bits;
  return caller.value >> shift === range.value >> shift;
}
