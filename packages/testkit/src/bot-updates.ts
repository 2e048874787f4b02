/**
 * The messaging platform's side of sign-in, for tests: the Updates it posts to the bot's webhook when a
 * person sends `/start <code>` and when they press a button of the bot's question, and the whole
 * confirmation as a person does it (start, then the first button of the answer).
 */
let nextUpdateId = Date.now() * 100;

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

/** The Update of `/start <code>` sent by `accountId` (in their private chat unless `chat` says otherwise). */
export function startUpdate(code: string, accountId: string, options: { username?: string; chat?: { id: number; type: ChatType } } = {}): Record<string, unknown> {
  const id = Number(accountId);
  nextUpdateId += 1;
  return {
    update_id: nextUpdateId,
    message: {
      message_id: nextUpdateId % 1_000_000,
      date: Math.floor(Date.now() / 1000),
      chat: options.chat ?? { id, type: 'private' },
      from: { id, is_bot: false, first_name: 'Test', username: options.username ?? `user_${accountId}` },
      text: `/start ${code}`,
    },
  };
}

/** The Update of `accountId` pressing the button whose callback data is `data`, under message `messageId` of their private chat. */
export function buttonUpdate(data: string, accountId: string, options: { username?: string; messageId?: number; chat?: { id: number; type: ChatType } } = {}): Record<string, unknown> {
  const id = Number(accountId);
  nextUpdateId += 1;
  return {
    update_id: nextUpdateId,
    callback_query: {
      id: `cq${nextUpdateId}`,
      from: { id, is_bot: false, first_name: 'Test', username: options.username ?? `user_${accountId}` },
      message: { message_id: options.messageId ?? 1, date: Math.floor(Date.now() / 1000), chat: options.chat ?? { id, type: 'private' } },
      chat_instance: String(id),
      data,
    },
  };
}

interface InlineKeyboardReply {
  reply_markup?: { inline_keyboard?: Array<Array<{ callback_data?: string }>> };
}

/** The callback data of button `index` (0: the first, which confirms) of the bot's question, or null. */
export function questionButton(reply: unknown, index: number): string | null {
  const keyboard = (reply as InlineKeyboardReply | null)?.reply_markup?.inline_keyboard;
  return keyboard?.[0]?.[index]?.callback_data ?? null;
}

/**
 * A person confirming a sign-in in the bot: `/start <code>`, then the first button of the question the
 * bot answers with. `post` delivers an Update to the webhook and resolves to the webhook's JSON answer.
 * Resolves to the answer of the button press; throws when the bot asked nothing.
 */
export async function confirmInBot(post: (update: Record<string, unknown>) => Promise<unknown>, code: string, accountId: string, username?: string): Promise<unknown> {
  const question = await post(startUpdate(code, accountId, { username }));
  const confirm = questionButton(question, 0);
  if (!confirm) throw new Error(`the bot asked nothing: ${JSON.stringify(question)}`);
  return post(buttonUpdate(confirm, accountId, { username }));
}
