/**
 * Whether a link stored for others to follow (a destination, an image a publisher's server fetches)
 * names a host on the public internet. Campaigns and placements both use it, so there is one rule.
 *
 * The host is taken from the WHATWG URL parser, which already turns every IPv4 spelling (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`, `127.1`) into dotted decimal and IPv6 into its bracketed canonical form. Any
 * IP literal is refused, private or not: a creative names its site, and a literal is the usual way to
 * reach loopback, RFC 1918, fc00::/7, link-local and cloud metadata addresses (169.254.169.254,
 * fd00:ec2::254). Names that only resolve inside a network are refused too: `localhost` and its
 * subdomains, single-label names, and the reserved internal suffixes.
 *
 * This checks what is written, not what a name resolves to: a public name pointing at a private address
 * is for whoever fetches the link to refuse.
 */
import { isIP } from 'node:net';
import type { FieldProblem } from './field-problem';

const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'intranet', 'lan', 'home.arpa', 'localdomain'];

export type HostRefusal = 'ip_address_not_allowed' | 'private_host';

/** Why a URL host (as `new URL(...).hostname` gives it) is not a public name, or null when it is. */
export function hostRefusalOf(hostname: string): HostRefusal | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return 'ip_address_not_allowed';
  const name = bare.toLowerCase().replace(/\.+$/, '');
  if (name === '' || !name.includes('.')) return 'private_host';
  if (INTERNAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) return 'private_host';
  return null;
}

/** The 422 field problem for a parsed URL whose host is not public, or null. */
export function publicHostProblem(field: string, url: URL): FieldProblem | null {
  const refusal = hostRefusalOf(url.hostname);
  if (refusal === 'ip_address_not_allowed') {
    return { field, code: refusal, message: `${field} must name its host, not an IP address` };
  }
  if (refusal === 'private_host') {
    return { field, code: refusal, message: `${field} must name a public host (not localhost or an internal name)` };
  }
  return null;
}
