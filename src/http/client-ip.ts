import { isIPv6 } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address. Behind a reverse proxy set TRUST_PROXY_HEADER (e.g. `x-forwarded-for`):
 * the last entry is the one our own proxy appended, so a client cannot forge it. Unset: the socket.
 */
export function clientIp(c: Context, trustHeader: string | undefined): string {
  if (trustHeader) {
    const value = c.req.header(trustHeader);
    const last = value?.split(',').pop()?.trim();
    if (last) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // app.request() in tests has no socket
  }
}

/**
 * The network a throttle counts: an IPv4 address, or the /64 an IPv6 address is in (one subscriber
 * line gets a whole /64, so counting single IPv6 addresses would give an attacker endless ones).
 */
export function addressBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}
