/**
 * Sign-in through the messaging-platform bot, as pure rules: how long a login request lives, what it
 * looks like to the browser, which webhook updates confirm one, and what the bot answers.
 */
import { LOGIN_CODE_PATTERN } from './secrets';

export const LOGIN_REQUEST_TTL_MS = 5 * 60 * 1000;

export type LoginStatus = 'pending' | 'confirmed' | 'expired';

export interface LoginRequestRecord {
  _id: string;
  codeHash: string;
  bindingHash: string;
  createdAt: Date;
  expiresAt: Date;
  status: 'pending' | 'confirmed';
  accountId: string | null;
  displayName: string | null;
  confirmedAt: Date | null;
}

/** What the browser sees: a request past its lifetime is expired unless its session was already issued. */
export function visibleStatus(request: Pick<LoginRequestRecord, 'status' | 'expiresAt'>, now: Date): LoginStatus {
  if (now.getTime() >= request.expiresAt.getTime()) return 'expired';
  return request.status;
}

export function botUrlOf(botUsername: string, code: string): string {
  return `https://t.me/${botUsername}?start=${code}`;
}

export interface StartCommand {
  updateId: number;
  chatId: number;
  accountId: string;
  displayName: string;
  code: string | null;
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function displayNameOf(from: Loose, accountId: string): string {
  const username = typeof from.username === 'string' ? from.username.trim() : '';
  if (/^[A-Za-z0-9_]{1,64}$/.test(username)) return username;
  const first = typeof from.first_name === 'string' ? from.first_name : '';
  const last = typeof from.last_name === 'string' ? from.last_name : '';
  // eslint-disable-next-line no-control-regex
  const name = `${first} ${last}`.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 64);
  return name || accountId;
}

/**
 * The private message of a person (never a bot) in a Telegram Update, with the code of a `/start <code>`
 * command when there is one. null: nothing in this update concerns sign-in.
 */
export function parseUpdate(update: unknown): { updateId: number | null; message: StartCommand | null } {
  if (!isObject(update)) return { updateId: null, message: null };
  const updateId = Number.isSafeInteger(update.update_id) ? (update.update_id as number) : null;
  const message = update.message;
  if (updateId === null || !isObject(message) || !isObject(message.from) || !isObject(message.chat)) return { updateId, message: null };
  const from = message.from;
  const fromId = from.id;
  const chatId = message.chat.id;
  if (typeof fromId !== 'number' || !Number.isSafeInteger(fromId) || fromId <= 0 || from.is_bot === true) return { updateId, message: null };
  if (typeof chatId !== 'number' || !Number.isSafeInteger(chatId)) return { updateId, message: null };
  const accountId = String(fromId);
  const text = typeof message.text === 'string' ? message.text.trim() : '';
  const match = /^\/start(?:@[A-Za-z0-9_]{1,64})?(?:\s+(\S+))?$/.exec(text);
  const code = match?.[1] && LOGIN_CODE_PATTERN.test(match[1]) ? match[1] : null;
  return { updateId, message: { updateId, chatId, accountId, displayName: displayNameOf(from, accountId), code } };
}

export type ConfirmOutcome = 'confirmed' | 'unknown_code' | 'expired' | 'already_used' | 'no_code';

const REPLIES: Record<ConfirmOutcome, string> = {
  confirmed: 'You are signed in. Go back to the browser where you started; the workspace opens there.',
  unknown_code: 'This sign-in link is not valid. Start again from the sign-in page.',
  expired: 'This sign-in link has expired. Start again from the sign-in page.',
  already_used: 'This sign-in link was already used. Start again from the sign-in page.',
  no_code: 'To sign in to the workspace, open the link shown on the sign-in page.',
};

/** The sendMessage method body the webhook answers with, telling the person what happened. */
export function replyFor(chatId: number, outcome: ConfirmOutcome): { method: 'sendMessage'; chat_id: number; text: string } {
  return { method: 'sendMessage', chat_id: chatId, text: REPLIES[outcome] };
}
