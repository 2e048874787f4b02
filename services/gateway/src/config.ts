import { httpSettings, listenPort, loadConfig as load, makeValidator, num, redisSettings, str, url } from '@pilot/config';
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
  WEB_URLS: upstreamList({ devDefault: ['http://127.0.0.1:8106'], desc: 'web replicas' }),
  UPSTREAM_TIMEOUT_MS: num({ default: 10_000, desc: 'an upstream slower than this gives 504' }),
  MAX_BODY_BYTES: num({ default: 65_536, desc: 'a request body larger than this is refused with 413 before it reaches a service' }),
  ...redisSettings,
  WORKSPACE_WRITE_LIMIT_POINTS: num({ default: 120, desc: 'workspace writes (POST, PUT, PATCH, DELETE) one account may make per minute; over it 429 rate_limited' }),
  SESSION_COOKIE: str({ default: 'pilot_session', desc: 'name of the workspace session cookie set by publisher-identity (__Host- prefixed when PUBLIC_BASE_URL is https)' }),
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
