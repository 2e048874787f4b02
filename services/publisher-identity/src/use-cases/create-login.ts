import { addressLimitKey, problems } from '@pilot/platform';
import { newBindingValue, newLoginCode, newRequestId, sha256Hex } from '../domain/secrets';
import { LOGIN_REQUEST_TTL_MS, botUrlOf, describeBrowser } from '../domain/sign-in';
import type { IdentityDeps } from './deps';

export interface CreatedLogin {
  requestId: string;
  code: string;
  botUrl: string;
  expiresAt: string;
  /** Goes into the HttpOnly binding cookie; only its hash is stored. */
  binding: string;
}

/**
 * A sign-in request for the browser at `clientIp`; 429 over the address's limit (an IPv6 address's
 * /64), before anything is stored. The address and the browser's name are what the bot shows the person asked to confirm.
 */
export async function createLogin(deps: IdentityDeps, clientIp: string, userAgent?: string): Promise<CreatedLogin> {
  const decision = await deps.loginLimit.consume(addressLimitKey(clientIp));
  if (!decision.allowed) throw problems.tooManyRequests(decision.retryAfterSeconds, 'Too many sign-in attempts from this address; wait a moment');
  const now = deps.clock.now();
  const requestId = newRequestId();
  const code = newLoginCode();
  const binding = newBindingValue();
  const expiresAt = new Date(now.getTime() + LOGIN_REQUEST_TTL_MS);
  await deps.logins.create({
    _id: requestId,
    codeHash: sha256Hex(code),
    bindingHash: sha256Hex(binding),
    createdAt: now,
    expiresAt,
    status: 'pending',
    browser: describeBrowser(userAgent),
    clientIp,
    accountId: null,
    displayName: null,
    confirmedAt: null,
  });
  return { requestId, code, botUrl: botUrlOf(deps.botUsername, code), expiresAt: expiresAt.toISOString(), binding };
}
