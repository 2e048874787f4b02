/**
 * What a per-address limit (sign-in attempts, impression reports) counts a client under. An IPv4 address
 * is one client. An IPv6 address is not: a host or a home network is handed a whole /64 and may use any
 * address in it, so counting single IPv6 addresses would give one client billions of windows. Counted by
 * its /64, an IPv6 client has one window, as an IPv4 one has.
 */
import ipaddr from 'ipaddr.js';

export function addressLimitKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address is its IPv4 address
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
