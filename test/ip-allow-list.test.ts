import { describe, expect, it } from 'vitest';
import { ipMatches, isValidIpOrCidr } from '../src/core/auth/ip-allow-list';

describe('IP allow-list (ipaddr.js)', () => {
  it('matches an IPv4-mapped IPv6 caller against an IPv4 range, and a mapped range against an IPv4 caller', () => {
    expect(ipMatches('::ffff:10.0.0.1', '10.0.0.0/8')).toBe(true);
    expect(ipMatches('::FFFF:0a00:0001', '10.0.0.0/8')).toBe(true);
    expect(ipMatches('::ffff:11.0.0.1', '10.0.0.0/8')).toBe(false);
    expect(ipMatches('10.1.2.3', '::ffff:10.0.0.0/104')).toBe(true);
    expect(ipMatches('11.1.2.3', '::ffff:10.0.0.0/104')).toBe(false);
  });

  it('treats /0 as everything of its family, and /32 and /128 as one address', () => {
    expect(ipMatches('198.51.100.7', '0.0.0.0/0')).toBe(true);
    expect(ipMatches('2001:db8::1', '0.0.0.0/0')).toBe(false);
    expect(ipMatches('2001:db8::1', '::/0')).toBe(true);
    expect(ipMatches('198.51.100.7', '::/0')).toBe(false);
    expect(ipMatches('198.51.100.7', '198.51.100.7/32')).toBe(true);
    expect(ipMatches('198.51.100.8', '198.51.100.7/32')).toBe(false);
    expect(ipMatches('2001:db8::1', '2001:db8::1/128')).toBe(true);
    expect(ipMatches('2001:db8::2', '2001:db8::1/128')).toBe(false);
    expect(ipMatches('2001:db8::1', '2001:db8::1')).toBe(true);
  });

  it('matches compressed and uncompressed IPv6 forms and uppercase hex alike', () => {
    expect(ipMatches('2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::/32')).toBe(true);
    expect(ipMatches('2001:DB8::1', '2001:db8::/32')).toBe(true);
    expect(ipMatches('2001:db8::1', '2001:DB8:0:0::/32')).toBe(true);
    expect(ipMatches('2001:db8:0:0:0:0:0:1', '2001:db8::1')).toBe(true);
    expect(ipMatches('::1', '0:0:0:0:0:0:0:1/128')).toBe(true);
  });

  it("ignores a caller's zone id but refuses one in an entry", () => {
    expect(ipMatches('fe80::1%eth0', 'fe80::/10')).toBe(true);
    expect(isValidIpOrCidr('fe80::1%eth0')).toBe(false);
    expect(isValidIpOrCidr('fe80::%eth0/10')).toBe(false);
  });

  it('accepts addresses and ranges of both families', () => {
    for (const entry of [
      '203.0.113.7',
      '203.0.113.0/24',
      '0.0.0.0/0',
      '10.0.0.1/32',
      '2001:db8::/32',
      '2001:DB8::/32',
      '::/0',
      '::1/128',
      '::ffff:10.0.0.0/104',
      '2001:db8:0:0:0:0:0:1',
    ]) {
      expect(isValidIpOrCidr(entry), entry).toBe(true);
    }
  });

  it('refuses what is not an address or range', () => {
    for (const entry of [
      '',
      'not-an-ip',
      '300.1.1.1',
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/8/8',
      '10.0.0.0/ 8',
      '10',
      '10.0.1',
      '0x0a.0.0.1',
      '010.0.0.1',
      '1:2:3:4:5:6:7:8:9',
      '2001:db8:::1',
      '2001:db8::g',
    ]) {
      expect(isValidIpOrCidr(entry), entry).toBe(false);
    }
  });

  it('never matches a caller address that does not parse', () => {
    expect(ipMatches('unknown', '0.0.0.0/0')).toBe(false);
    expect(ipMatches('10', '0.0.0.0/0')).toBe(false);
    expect(ipMatches('', '::/0')).toBe(false);
  });
});
