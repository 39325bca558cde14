import { expect, it } from 'vitest';
import { addressBucket } from '../../src/http/client-ip.ts';

it('counts IPv4 addresses one by one and IPv6 addresses by their /64', () => {
  expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
  expect(addressBucket('::ffff:198.51.100.7')).toBe('198.51.100.7');
  expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
  expect(addressBucket('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe('2001:db8:1:2::/64');
  expect(addressBucket('2001:DB8::1')).toBe('2001:db8:0:0::/64');
  expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  expect(addressBucket('unknown')).toBe('unknown');
});
