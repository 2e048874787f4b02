/**
 * Sign-in through the messaging-platform bot, as pure rules: how long a login request lives, what it
 * looks like to the browser, which webhook updates ask for or answer a confirmation, and what the bot says.
 *
 * `/start <code>` alone never signs anyone in: the bot asks the person, in their private chat, whether the
 * browser and address that made the request are theirs, and only the Confirm button (pressed by the same
 * account) confirms it. A link forwarded by someone else is refused by its victim instead of handing over
 * their session.
 */
import Bowser from 'bowser';
import { LOGIN_CODE_PATTERN, REQUEST_ID_PATTERN } from './secrets';

export const LOGIN_REQUEST_TTL_MS = 5 * 60 * 1000;

export type LoginStatus = 'pending' | 'confirmed' | 'cancelled' | 'expired';

export interface LoginRequestRecord {
  _id: string;
  codeHash: string;
  bindingHash: string;
  createdAt: Date;
  expiresAt: Date;
  status: 'pending' | 'confirmed' | 'cancelled';
  /** What the bot names to the person asked to confirm: the browser and the address that asked. */
  browser?: string | null;
  clientIp?: string | null;
  accountId: string | null;
  displayName: string | null;
  confirmedAt: Date | null;
}

/** What the browser sees: a cancelled request stays cancelled; any other is expired past its lifetime. */
export function visibleStatus(request: Pick<LoginRequestRecord, 'status' | 'expiresAt'>, now: Date): LoginStatus {
  if (request.status === 'cancelled') return 'cancelled';
  if (now.getTime() >= request.expiresAt.getTime()) return 'expired';
  return request.status;
}

export function botUrlOf(botUsername: string, code: string): string {
  return `https://t.me/${botUsername}?start=${code}`;
}

/** "Chrome 120 on Linux" from a User-Agent header; null when it names no browser. */
export function describeBrowser(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const { browser, os } = Bowser.parse(userAgent.slice(0, 512));
  if (!browser.name) return null;
  const major = browser.version?.split('.')[0];
  const name = [browser.name, major].filter(Boolean).join(' ');
  return (os.name ? `${name} on ${os.name}` : name).slice(0, 80);
}

/** The `/start` of a person in their private chat with the bot. */
export interface StartCommand {
  kind: 'start';
  chatId: number;
  accountId: string;
  displayName: string;
  code: string | null;
}

export type LoginAnswer = 'confirm' | 'cancel';

/** A press of one of the two buttons of the bot's question, in a private chat. */
export interface AnswerPress {
  kind: 'answer';
  callbackQueryId: string;
  chatId: number;
  messageId: number;
  accountId: string;
  displayName: string;
  requestId: string;
  answer: LoginAnswer;
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

/** The person (never a bot) an update comes from, in their own private chat with the bot; else null. */
function personInPrivateChat(from: unknown, chat: unknown): { accountId: string; displayName: string; chatId: number } | null {
  if (!isObject(from) || !isObject(chat)) return null;
  const fromId = from.id;
  if (typeof fromId !== 'number' || !Number.isSafeInteger(fromId) || fromId <= 0 || from.is_bot === true) return null;
  // A private chat's id is the person's own id; a group, supergroup or channel never signs anyone in.
  if (chat.type !== 'private' || chat.id !== fromId) return null;
  const accountId = String(fromId);
  return { accountId, displayName: displayNameOf(from, accountId), chatId: fromId };
}

const ANSWER_DATA = /^login:(confirm|cancel):(\S+)$/;

/** The callback data of the question's buttons (at most 64 bytes, as the Bot API allows). */
export function answerData(answer: LoginAnswer, requestId: string): string {
  return `login:${answer}:${requestId}`;
}

function parseStart(message: unknown): StartCommand | null {
  if (!isObject(message)) return null;
  const person = personInPrivateChat(message.from, message.chat);
  if (!person) return null;
  const text = typeof message.text === 'string' ? message.text.trim() : '';
  const match = /^\/start(?:@[A-Za-z0-9_]{1,64})?(?:\s+(\S+))?$/.exec(text);
  const code = match?.[1] && LOGIN_CODE_PATTERN.test(match[1]) ? match[1] : null;
  return { kind: 'start', ...person, code };
}

function parseAnswer(query: unknown): AnswerPress | null {
  if (!isObject(query) || typeof query.id !== 'string' || !isObject(query.message)) return null;
  const person = personInPrivateChat(query.from, query.message.chat);
  const messageId = query.message.message_id;
  if (!person || typeof messageId !== 'number' || !Number.isSafeInteger(messageId)) return null;
  const match = typeof query.data === 'string' ? ANSWER_DATA.exec(query.data) : null;
  if (!match || !REQUEST_ID_PATTERN.test(match[2]!)) return null;
  return { kind: 'answer', callbackQueryId: query.id, messageId, ...person, requestId: match[2]!, answer: match[1] as LoginAnswer };
}

/**
 * What a Telegram Update says about sign-in: a person's `/start` (with its code when it has one) or their
 * press of a button of the bot's question, both in their private chat with the bot. null: nothing.
 */
export function parseUpdate(update: unknown): { updateId: number | null; input: StartCommand | AnswerPress | null } {
  if (!isObject(update)) return { updateId: null, input: null };
  const updateId = Number.isSafeInteger(update.update_id) ? (update.update_id as number) : null;
  if (updateId === null) return { updateId, input: null };
  return { updateId, input: parseStart(update.message) ?? parseAnswer(update.callback_query) };
}

/** What a `/start <code>` led to: the question, or why there is nothing to ask. */
export type StartOutcome = 'ask' | 'unknown_code' | 'expired' | 'already_used' | 'no_code';
/** What a press of Confirm or Cancel led to. */
export type AnswerOutcome = 'confirmed' | 'cancelled' | 'expired' | 'already_answered' | 'not_yours';

const START_REPLIES: Record<Exclude<StartOutcome, 'ask'>, string> = {
  unknown_code: 'This sign-in link is not valid. Start again from the sign-in page.',
  expired: 'This sign-in link has expired. Start again from the sign-in page.',
  already_used: 'This sign-in link was already used. Start again from the sign-in page.',
  no_code: 'To sign in to the workspace, open the link shown on the sign-in page.',
};

const ANSWER_REPLIES: Record<Exclude<AnswerOutcome, 'not_yours'>, string> = {
  confirmed: 'You are signed in. Go back to the browser where you started; the workspace opens there.',
  cancelled: 'Sign-in cancelled. Nobody was signed in with your account.',
  expired: 'This sign-in request has expired. Start again from the sign-in page.',
  already_answered: 'This sign-in request was already answered.',
};

export interface SendMessage {
  method: 'sendMessage';
  chat_id: number;
  text: string;
  reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
}

export interface EditMessageText {
  method: 'editMessageText';
  chat_id: number;
  message_id: number;
  text: string;
}

export interface AnswerCallbackQuery {
  method: 'answerCallbackQuery';
  callback_query_id: string;
  text: string;
}

export type BotReply = SendMessage | EditMessageText | AnswerCallbackQuery;

/** The sendMessage method body the webhook answers a `/start` with when there is nothing to confirm. */
export function startReply(chatId: number, outcome: Exclude<StartOutcome, 'ask'>): SendMessage {
  return { method: 'sendMessage', chat_id: chatId, text: START_REPLIES[outcome] };
}

function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The question: which browser, from which address and when asked to sign in, with Confirm first and
 * Cancel second (API.md). The person confirms only what they recognise as their own.
 */
export function confirmationQuestion(chatId: number, request: Pick<LoginRequestRecord, '_id' | 'browser' | 'clientIp' | 'createdAt'>): SendMessage {
  const text = [
    'Someone asked to sign in to the workspace with your account:',
    `Browser: ${request.browser ?? 'unknown'}`,
    `Address: ${request.clientIp ?? 'unknown'}`,
    `Time: ${utcMinute(request.createdAt)}`,
    '',
    'Confirm only if this was you, just now. If someone sent you this link, press Cancel.',
  ].join('\n');
  return {
    method: 'sendMessage',
    chat_id: chatId,
    text,
    reply_markup: {
      inline_keyboard: [
        [
          { text: 'Confirm sign-in', callback_data: answerData('confirm', request._id) },
          { text: 'Cancel', callback_data: answerData('cancel', request._id) },
        ],
      ],
    },
  };
}

/**
 * The answer to a button press: the question is replaced by its outcome (its buttons go with it); a press
 * by an account that was not asked only hears so.
 */
export function answerReply(press: AnswerPress, outcome: AnswerOutcome): EditMessageText | AnswerCallbackQuery {
  if (outcome === 'not_yours') return { method: 'answerCallbackQuery', callback_query_id: press.callbackQueryId, text: 'This sign-in request was not sent to you.' };
  return { method: 'editMessageText', chat_id: press.chatId, message_id: press.messageId, text: ANSWER_REPLIES[outcome] };
}
