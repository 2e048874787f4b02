import { ConfigError, httpSettings, listenPort, loadConfig as load, makeValidator, num, redisSettings, SESSION_CACHE_MAX_MS, str, url } from '@pilot/platform';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/** A comma-separated list of upstream base URLs (replicas of one service). */
const upstreamList = makeValidator<string[]>((raw) => {
  const urls = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  if (urls.length === 0) throw new Error('needs at least one URL');
  for (const candidate of urls) {
    const parsed = new URL(candidate);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${candidate} is not http(s)`);
  }
  return urls.map((item) => item.replace(/\/+$/, ''));
});

/**
 * Addresses or CIDR ranges of the proxies in front of the gateway (proxy-addr's syntax, also `loopback`,
 * `linklocal`, `uniquelocal`), comma-separated; empty: none, the socket peer is the client.
 */
const proxyList = makeValidator<string[]>((raw) => {
  const entries = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  proxyaddr.compile(entries); // throws on an entry that is not an address, a range or a known name
  return entries;
});

/** Milliseconds a resolved session may be kept: a whole number from 0 (keep none) to SESSION_CACHE_MAX_MS. */
const sessionCacheMs = makeValidator<number>((raw) => {
  const value = Number(raw);
  if (!/^[0-9]+$/.test(raw.trim()) || value > SESSION_CACHE_MAX_MS) throw new Error(`must be a whole number of milliseconds from 0 to ${SESSION_CACHE_MAX_MS}`);
  return value;
});

export const configSpec = {
  GATEWAY_PORT: listenPort({ devDefault: 8080, desc: 'port the gateway listens on' }),
  GATEWAY_OPERATOR_PORT: listenPort({
    default: 0,
    desc: 'port of /metrics and the detailed /readyz (each upstream replica), which the public port does not serve (0: any free port, logged)',
  }),
  TRUSTED_PROXIES: proxyList({
    default: [],
    desc: 'proxies in front of the gateway (addresses, CIDR ranges, loopback/uniquelocal): X-Forwarded-For is read only from them',
  }),
  HOST: httpSettings.HOST,
  INTERNAL_SECRET: httpSettings.INTERNAL_SECRET,
  LOG_LEVEL: httpSettings.LOG_LEVEL,
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: 'origin of the site and of click links' }),
  IDENTITY_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8101'], desc: 'publisher-identity replicas' }),
  CAMPAIGN_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8102'], desc: 'campaign replicas' }),
  ALLOCATION_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8103'], desc: 'allocation replicas' }),
  TRACKING_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8104'], desc: 'tracking replicas' }),
  PLACEMENT_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8105'], desc: 'placement replicas' }),
  NOTIFICATION_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8107'], desc: 'notification replicas' }),
  WEB_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8106'], desc: 'web replicas' }),
  UPSTREAM_TIMEOUT_MS: num({ default: 10_000, desc: 'an upstream slower than this gives 504' }),
  MAX_BODY_BYTES: num({ default: 65_536, desc: 'a request body larger than this is refused with 413 before it reaches a service' }),
  ...redisSettings,
  WORKSPACE_WRITE_LIMIT_POINTS: num({ default: 120, desc: 'workspace writes (POST, PUT, PATCH, DELETE) one account may make per minute; over it 429 rate_limited' }),
  SESSION_COOKIE: str({ default: 'pilot_session', desc: 'name of the workspace session cookie set by publisher-identity (__Host- prefixed when PUBLIC_BASE_URL is https)' }),
  SESSION_CACHE_MS: sessionCacheMs({
    default: 60_000,
    desc:
      'how long a session resolved with publisher-identity is kept and used without asking it again (never past the session\'s expiry; ' +
      'a logout still takes effect at once through its Redis marker); administrator rights granted or taken in ADMIN_ACCOUNT_IDS reach a kept session this much later. ' +
      `0: every workspace call asks publisher-identity; at most ${SESSION_CACHE_MAX_MS}`,
  }),
};

export type Config = ReturnType<typeof loadConfig>;

/** The widest range a production gateway trusts as its ingress: a /24 (IPv4) or a /120 (IPv6), 256 addresses. */
const WIDEST_TRUSTED_PREFIX = { ipv4: 24, ipv6: 120 } as const;
/** proxy-addr's names for whole private networks: a pod or node network, never just the ingress. */
const BROAD_NAMES = new Set(['linklocal', 'uniquelocal']);

/**
 * Why a TRUSTED_PROXIES entry is too broad for production, or null. Trusting more than the ingress
 * controller's own addresses (the pod network, the nodes) lets a client's own X-Forwarded-For entry pass
 * as its address wherever a trusted hop forwarded it (an ingress that sees SNATed node addresses does).
 */
export function tooBroadProxy(entry: string): string | null {
  if (BROAD_NAMES.has(entry)) return `${entry} names whole private networks`;
  const [address, range] = entry.split('/');
  if (range === undefined || !address || !ipaddr.isValid(address)) return null;
  const kind = ipaddr.parse(address).kind();
  const prefix = /^[0-9]+$/.test(range) ? Number(range) : ipaddr.isValid(range) ? ipaddr.parse(range).prefixLengthFromSubnetMask() : null;
  if (prefix === null || prefix >= WIDEST_TRUSTED_PREFIX[kind]) return null;
  return `${entry} covers more than ${2 ** (kind === 'ipv4' ? 32 - WIDEST_TRUSTED_PREFIX.ipv4 : 128 - WIDEST_TRUSTED_PREFIX.ipv6)} addresses`;
}

export function loadConfig(env: NodeJS.ProcessEnv) {
  const config = load(configSpec, env);
  if (env.NODE_ENV === 'production') {
    const broad = config.TRUSTED_PROXIES.map(tooBroadProxy).filter((problem): problem is string => problem !== null);
    if (broad.length > 0) {
      throw new ConfigError({ TRUSTED_PROXIES: `trusts more than the ingress controller, refused in production (${broad.join('; ')}; docs/operations.md)` });
    }
  }
  return config;
}
