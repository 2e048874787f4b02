/**
 * The rule of every link the API stores for others to follow (destinations, images): an absolute HTTPS
 * URL without embedded credentials, spaces, control characters or backslashes (which browsers silently
 * rewrite), so what is stored is exactly where a click goes; its host a public name (public-host).
 */
import type { RuleProblem } from './plain-text';
import { publicHostProblem } from './public-host';

export const URL_MAX_LENGTH = 2048;

/** Why a string is not such a URL (named by `field` in the message), or null when it is. */
export function httpsUrlProblem(field: string, value: string): RuleProblem | null {
  if (value.length === 0) return { code: 'required', message: `${field} is required` };
  if (value.length > URL_MAX_LENGTH) return { code: 'too_long', message: `${field} must have at most ${URL_MAX_LENGTH} characters` };
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\s\u0000-\u001f\u007f-\u009f\\]/.test(value)) {
    return { code: 'invalid_url', message: `${field} must not contain spaces, control characters or backslashes` };
  }
  if (!/^https:\/\//i.test(value)) return { code: 'https_required', message: `${field} must be an https:// URL` };
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return { code: 'invalid_url', message: `${field} is not a valid URL` };
  }
  if (parsed.protocol !== 'https:') return { code: 'https_required', message: `${field} must be an https:// URL` };
  const authority = value.slice('https://'.length).split(/[/?#]/, 1)[0] ?? '';
  if (parsed.username !== '' || parsed.password !== '' || authority.includes('@')) {
    return { code: 'credentials_not_allowed', message: `${field} must not contain a user name or password` };
  }
  if (parsed.hostname === '' || parsed.hostname.startsWith('.') || parsed.hostname.includes('..')) {
    return { code: 'invalid_url', message: `${field} has no valid host` };
  }
  const host = publicHostProblem(field, parsed);
  return host ? { code: host.code, message: host.message } : null;
}
