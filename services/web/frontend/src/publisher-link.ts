/**
 * A platform's public link as people paste it (issue 20, UX): `t.me/x_bot`, `http://t.me/x_bot`,
 * `https://telegram.me/x_bot/`, `@x_bot` all mean https://t.me/x_bot, the one form API.md stores. The form
 * sends that form, so a pasted variant is not refused; anything else is left as typed for the hint to name.
 */
import type { Publisher } from './types';

const LINK = /^(?:(?:https?:\/\/)?(?:www\.)?(?:t|telegram)\.me\/|@)([A-Za-z][A-Za-z0-9_]{3,31})\/?$/i;

/** The https://t.me/<username> form of `value`, or null when it is not a platform link. */
export function normalizedLink(value: string): string | null {
  const match = LINK.exec(value.trim());
  return match ? `https://t.me/${match[1]}` : null;
}

/** The username inside a link of any accepted form. */
export function usernameOf(value: string): string | null {
  return LINK.exec(value.trim())?.[1] ?? null;
}

/**
 * Links registered by more than one account (usernames compare without case), each with its platforms:
 * only one of the accounts can own the bot or channel, which the review has to find out.
 */
export function sharedLinks(publishers: readonly Publisher[]): Map<string, Publisher[]> {
  const byName = new Map<string, Publisher[]>();
  for (const publisher of publishers) {
    const name = (usernameOf(publisher.link) ?? publisher.link).toLowerCase();
    byName.set(name, [...(byName.get(name) ?? []), publisher]);
  }
  const shared = new Map<string, Publisher[]>();
  for (const [name, claims] of byName) if (new Set(claims.map((claim) => claim.ownerAccountId)).size > 1) shared.set(name, claims);
  return shared;
}

/** The other accounts' platforms that claim the same link as `publisher` (empty when none). */
export function otherClaims(publisher: Publisher, publishers: readonly Publisher[]): Publisher[] {
  const name = (usernameOf(publisher.link) ?? publisher.link).toLowerCase();
  return (sharedLinks(publishers).get(name) ?? []).filter((claim) => claim.ownerAccountId !== publisher.ownerAccountId);
}
