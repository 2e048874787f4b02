/**
 * The name of the workspace session cookie, the same in publisher-identity (which sets it) and the
 * gateway (which reads it). On an https site it carries the `__Host-` prefix: a browser then accepts it
 * only when Secure, with Path=/ and without Domain, so a sibling subdomain or a plain-http page cannot
 * plant or overwrite the session. Browsers refuse `__Host-` cookies without Secure, so http (local runs)
 * keeps the plain name.
 */
const HOST_PREFIX = '__Host-';

export function sessionCookieName(configuredName: string, publicBaseUrl: string): string {
  const https = new URL(publicBaseUrl).protocol === 'https:';
  const bare = configuredName.startsWith(HOST_PREFIX) ? configuredName.slice(HOST_PREFIX.length) : configuredName;
  return https ? `${HOST_PREFIX}${bare}` : bare;
}
