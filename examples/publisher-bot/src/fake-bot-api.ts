/**
 * A small fake of the Telegram Bot API, to run the bot (or any bot) against the network on one machine,
 * without the real messaging platform. Node's standard library only.
 *
 *   node dist/fake-bot-api.js            listens on FAKE_BOT_API_PORT (default 8081), 127.0.0.1
 *
 * The bot side, as a bot library calls it (`TELEGRAM_API_ROOT=http://127.0.0.1:8081`):
 *   POST /bot<token>/getMe, deleteWebhook, getUpdates (long polling), sendMessage, sendPhoto
 * answered like Telegram does: `{"ok": true, "result": ...}`, or `{"ok": false, "error_code", "description"}`.
 *
 * The person's side, a simulated chat:
 *   POST /simulate/message  {"text": "/ad", "chat_id": 1, "language_code": "en"}   a user writes to the bot
 *   GET  /simulate/chat/<chat_id>                                                   what was said, in order
 *
 * Tests use the same server in-process (startFakeBotApi) and can make the next call of a method fail with
 * an error answer or never answer (a send that times out).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotApiCall {
  method: string;
  token: string;
  payload: Record<string, unknown>;
}

/** One line of a simulated chat: what the user wrote, or what the bot sent (a message or a photo). */
export interface ChatLine {
  from: 'user' | 'bot';
  message_id: number;
  text?: string;
  entities?: unknown;
  photo?: unknown;
  caption?: string;
  caption_entities?: unknown;
  reply_markup?: unknown;
}

export interface SimulatedMessage {
  text: string;
  chat_id?: number;
  language_code?: string;
}

type Behaviour = { fail: { error_code: number; description: string } } | { hang: true };

interface Update {
  update_id: number;
  message: Record<string, unknown>;
}

interface Poll {
  offset: number;
  res: ServerResponse;
  timer: NodeJS.Timeout;
}

export const FAKE_BOT = { id: 424242, is_bot: true, first_name: 'Example publisher bot', username: 'example_publisher_bot' };
const DEFAULT_CHAT_ID = 1;
/** A long poll never waits longer than this, whatever `timeout` the bot asks for. */
const MAX_POLL_SECONDS = 50;

export class FakeBotApi {
  readonly calls: BotApiCall[] = [];
  private readonly behaviours = new Map<string, Behaviour[]>();
  private readonly hanging: ServerResponse[] = [];
  private readonly updates: Update[] = [];
  private readonly polls: Poll[] = [];
  private readonly chats = new Map<number, ChatLine[]>();
  private nextUpdateId = 1;
  private nextMessageId = 100;

  constructor(private readonly server: Server) {}

  /** Where a bot library is pointed (grammY's `client.apiRoot`, python-telegram-bot's `base_url`: this + /bot). */
  get apiRoot(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** The sends (sendMessage, sendPhoto) since the last reset, in order. */
  sends(): BotApiCall[] {
    return this.calls.filter((call) => call.method === 'sendMessage' || call.method === 'sendPhoto');
  }

  /** The next call of `method` gets this error answer. */
  failNext(method: string, error_code: number, description: string): void {
    this.queue(method, { fail: { error_code, description } });
  }

  /** The next call of `method` gets no answer at all. */
  hangNext(method: string): void {
    this.queue(method, { hang: true });
  }

  /** Forgets the calls and the queued behaviours (not the chats or the updates). */
  reset(): void {
    this.calls.length = 0;
    this.behaviours.clear();
  }

  /** A user writes `text` to the bot: an update for the bot's next getUpdates. Returns the update. */
  say(message: SimulatedMessage): Update {
    const chatId = message.chat_id ?? DEFAULT_CHAT_ID;
    const messageId = (this.nextMessageId += 1);
    const command = /^\/[A-Za-z0-9_]+/.exec(message.text);
    const user = { id: chatId, is_bot: false, first_name: 'Reader', language_code: message.language_code ?? 'en' };
    const update: Update = {
      update_id: (this.nextUpdateId += 1),
      message: {
        message_id: messageId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: 'private', first_name: 'Reader' },
        from: user,
        text: message.text,
        ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
      },
    };
    this.chat(chatId).push({ from: 'user', message_id: messageId, text: message.text });
    this.updates.push(update);
    this.answerPolls();
    return update;
  }

  /** What was said in the chat with `chatId`, in order. */
  transcript(chatId: number = DEFAULT_CHAT_ID): ChatLine[] {
    return [...this.chat(chatId)];
  }

  async stop(): Promise<void> {
    for (const poll of this.polls.splice(0)) {
      clearTimeout(poll.timer);
      reply(poll.res, 200, { ok: true, result: [] });
    }
    for (const res of this.hanging.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Every request of the server comes here. */
  handle(req: IncomingMessage, body: string, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const botCall = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (botCall && req.method === 'POST') return this.botApi(botCall[1] ?? '', botCall[2] ?? '', parseObject(body), res);
    if (path === '/simulate/message' && req.method === 'POST') {
      const payload = parseObject(body);
      if (typeof payload.text !== 'string' || payload.text.length === 0) return reply(res, 400, { ok: false, description: 'text is required' });
      const update = this.say({
        text: payload.text,
        ...(typeof payload.chat_id === 'number' ? { chat_id: payload.chat_id } : {}),
        ...(typeof payload.language_code === 'string' ? { language_code: payload.language_code } : {}),
      });
      return reply(res, 200, { ok: true, update_id: update.update_id });
    }
    const chat = /^\/simulate\/chat\/(-?\d+)$/.exec(path);
    if (chat && req.method === 'GET') return reply(res, 200, { ok: true, chat: this.transcript(Number(chat[1])) });
    reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
  }

  private botApi(token: string, method: string, payload: Record<string, unknown>, res: ServerResponse): void {
    this.calls.push({ method, token, payload });
    const behaviour = this.behaviours.get(method)?.shift();
    if (behaviour && 'hang' in behaviour) {
      this.hanging.push(res);
      return;
    }
    if (behaviour) return reply(res, behaviour.fail.error_code, { ok: false, ...behaviour.fail });

    switch (method) {
      case 'getMe':
        return reply(res, 200, { ok: true, result: { ...FAKE_BOT, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } });
      case 'deleteWebhook':
        return reply(res, 200, { ok: true, result: true });
      case 'getUpdates':
        return this.poll(payload, res);
      case 'sendMessage':
      case 'sendPhoto':
        return reply(res, 200, { ok: true, result: this.send(method, payload) });
      default:
        return reply(res, 400, { ok: false, error_code: 400, description: `Bad Request: the fake does not know ${method}` });
    }
  }

  /** The sent message as Telegram answers it, and a line of the chat. */
  private send(method: 'sendMessage' | 'sendPhoto', payload: Record<string, unknown>): Record<string, unknown> {
    const chatId = Number(payload.chat_id);
    const messageId = (this.nextMessageId += 1);
    const content =
      method === 'sendPhoto'
        ? {
            photo: [{ file_id: 'photo-1', file_unique_id: 'p1', width: 640, height: 360 }],
            caption: payload.caption,
            caption_entities: payload.caption_entities,
          }
        : { text: payload.text, entities: payload.entities };
    const replyMarkup = jsonParameter(payload.reply_markup);
    this.chat(chatId).push({ from: 'bot', message_id: messageId, ...content, reply_markup: replyMarkup } as ChatLine);
    return {
      message_id: messageId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: 'private', first_name: 'Reader' },
      from: FAKE_BOT,
      ...content,
      reply_markup: replyMarkup,
    };
  }

  /** getUpdates: what is there from `offset` on at once, else wait up to `timeout` seconds for it. */
  private poll(payload: Record<string, unknown>, res: ServerResponse): void {
    const offset = integerParameter(payload.offset) ?? 0;
    // Telegram forgets the updates before the offset: the bot has them.
    while (this.updates.length > 0 && (this.updates[0] as Update).update_id < offset) this.updates.shift();
    if (this.updates.length > 0) return reply(res, 200, { ok: true, result: [...this.updates] });
    const seconds = Math.min(integerParameter(payload.timeout) ?? 0, MAX_POLL_SECONDS);
    if (seconds <= 0) return reply(res, 200, { ok: true, result: [] });
    const poll: Poll = {
      offset,
      res,
      timer: setTimeout(() => {
        this.forget(poll);
        reply(res, 200, { ok: true, result: [] });
      }, seconds * 1000),
    };
    // The bot gave up on this poll (it stopped, or its request timed out).
    res.once('close', () => {
      clearTimeout(poll.timer);
      this.forget(poll);
    });
    this.polls.push(poll);
  }

  private forget(poll: Poll): void {
    const index = this.polls.indexOf(poll);
    if (index >= 0) this.polls.splice(index, 1);
  }

  private answerPolls(): void {
    for (const poll of this.polls.splice(0)) {
      clearTimeout(poll.timer);
      reply(poll.res, 200, { ok: true, result: this.updates.filter((update) => update.update_id >= poll.offset) });
    }
  }

  private chat(chatId: number): ChatLine[] {
    let lines = this.chats.get(chatId);
    if (!lines) {
      lines = [];
      this.chats.set(chatId, lines);
    }
    return lines;
  }

  private queue(method: string, behaviour: Behaviour): void {
    this.behaviours.set(method, [...(this.behaviours.get(method) ?? []), behaviour]);
  }
}

function parseObject(body: string): Record<string, unknown> {
  if (body.trim().length === 0) return {};
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Telegram takes an integer parameter as a number or as a string of digits (python-telegram-bot 13 sends strings). */
function integerParameter(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

/** Telegram takes an object parameter such as reply_markup as JSON or as a JSON-serialized string (python-telegram-bot 13 sends the string). */
function jsonParameter(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts the fake on `port` (0: any free port) of 127.0.0.1. */
export async function startFakeBotApi(port = 0): Promise<FakeBotApi> {
  let fake: FakeBotApi | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => fake?.handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  fake = new FakeBotApi(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return fake;
}

if (require.main === module) {
  startFakeBotApi(Number(process.env.FAKE_BOT_API_PORT ?? 8081))
    .then((fake) => {
      process.stdout.write(`${JSON.stringify({ event: 'fake_bot_api_started', apiRoot: fake.apiRoot })}\n`);
      const stop = () => void fake.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
