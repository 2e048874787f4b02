/**
 * A platform's public link as people paste it: `t.me/x_bot`, `http://t.me/x_bot`,
 * `https://telegram.me/x_bot/`, `@x_bot` all mean https://t.me/x_bot, the one form API.md stores. The form
 * sends that form, so a pasted variant is not refused; anything else is left as typed for the hint to name.
 * The rule is the server's own (the contracts' telegram-link.ts), so the page and the server never disagree.
 */
import { telegramLinkProblem, usernameOf as usernameInLink } from '../../../../packages/contracts/src/validation/telegram-link';
import type { Publisher } from './types';

/** The username inside a link of any accepted form, or null when the server would refuse the link. */
export function usernameOf(value: string): string | null {
  const trimmed = value.trim();
  return telegramLinkProblem(trimmed) === null ? usernameInLink(trimmed) : null;
}

/** The https://t.me/<username> form of `value`, or null when it is not a platform link. */
export function normalizedLink(value: string): string | null {
  const username = usernameOf(value);
  return username === null ? null : `https://t.me/${username}`;
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

/** The other accounts' platforms that claim the same link as `publisher` (empty when none), from sharedLinks' answer. */
export function otherClaims(publisher: Publisher, shared: ReadonlyMap<string, Publisher[]>): Publisher[] {
  const name = (usernameOf(publisher.link) ?? publisher.link).toLowerCase();
  return (shared.get(name) ?? []).filter((claim) => claim.ownerAccountId !== publisher.ownerAccountId);
}
