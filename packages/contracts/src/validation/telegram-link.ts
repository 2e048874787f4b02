/**
 * The public link of a publisher platform (API.md): `https://t.me/<username>`; `@username`, `t.me/name`
 * and telegram.me links are accepted and normalized. A bot token is never accepted, not even by mistake.
 */
import type { RuleProblem } from './plain-text';

export const LINK_MAX_LENGTH = 200;
const USERNAME = /^[A-Za-z0-9_]{5,32}$/;
const BOT_TOKEN = /\d{5,}:[A-Za-z0-9_-]{30,}/;

/** `@name`, `t.me/name`, `https://t.me/name` (and telegram.me) -> the username, else null. */
export function usernameOf(link: string): string | null {
  const trimmed = link.trim();
  if (trimmed.startsWith('@')) return trimmed.slice(1);
  const match = /^(?:https?:\/\/)?(?:www\.)?(?:t\.me|telegram\.me)\/([^/?#\s]+)\/?$/i.exec(trimmed);
  return match?.[1] ?? null;
}

/** Why a string is not a platform link, or null when it is one. */
export function telegramLinkProblem(value: string): RuleProblem | null {
  if (value.length > LINK_MAX_LENGTH) return { code: 'too_long', message: `must be at most ${LINK_MAX_LENGTH} characters` };
  if (BOT_TOKEN.test(value)) return { code: 'bot_token_refused', message: 'a bot token is never requested or accepted' };
  const username = usernameOf(value);
  if (username === null) return { code: 'invalid_link', message: 'must be https://t.me/<username> or @username' };
  if (!USERNAME.test(username)) return { code: 'invalid_username', message: 'the username must be 5 to 32 letters, digits or underscores' };
  return null;
}
