import { BlockList, isIP } from 'node:net';

interface Network {
  address: string;
  prefix: number;
  type: 'ipv4' | 'ipv6';
}

/** `192.0.2.0/24`, `2001:db8::/32`, or a single address (its /32 or /128); null when it is none of these. */
export function parseNetwork(text: string): Network | null {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (!version || rest.length) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, type: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The networks as a BlockList, asked with `allows(ip)`; an IPv4-mapped IPv6 address counts as its IPv4 one. */
export function networkList(cidrs: readonly string[]) {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const network = parseNetwork(cidr);
    if (network) list.addSubnet(network.address, network.prefix, network.type);
  }
  return {
    allows(ip: string): boolean {
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
      const address = mapped ?? ip;
      const version = isIP(address);
      return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
