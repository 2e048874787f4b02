/**
 * A local stand-in for the messaging platform's Bot API, for the sends of the notification service: tests
 * and local runs point TELEGRAM_API_BASE_URL at it and read what each chat received. It answers
 * `POST /bot<token>/sendMessage` and `getMe` as Telegram does (`{"ok": true, "result": ...}` or
 * `{"ok": false, "error_code", "description", "parameters"}`), and keeps the messages it took per chat.
 * Adapted from the example publisher bot's fake (examples/publisher-bot), which is a project of its own.
 *
 * A message counts as sent when the stand-in takes it: a request it holds (`holdNext`, `holdFromNow`) is not
 * taken until released, and one whose client went away first (a timeout, a killed process) never is, as
 * when the platform never received it.
 *
 *   node packages/testkit/dist/bot-api-stand-in.js     listens on BOT_API_STAND_IN_PORT (default 8081)
 *   GET /stand-in/chats/<chat_id>                       what that chat received, in order
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TakenMessage {
  message_id: number;
  chat_id: string;
  text: string;
  parse_mode?: string;
  token: string;
  at: Date;
}

interface PlatformError {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number };
}

type Behaviour = { fail: PlatformError } | { hold: true };

interface Held {
  token: string;
  payload: Record<string, unknown>;
  res: ServerResponse;
  /** The client went away before an answer (it timed out, or its process died). */
  gone: boolean;
}

export class BotApiStandIn {
  /** Every sendMessage request that arrived, taken or not, in order. */
  readonly attempts: { chat_id: string; text: string }[] = [];
  private readonly taken: TakenMessage[] = [];
  private readonly behaviours: Behaviour[] = [];
  private readonly held: Held[] = [];
  private holdingAll = false;
  private nextMessageId = 1;

  constructor(private readonly server: Server) {}

  /** TELEGRAM_API_BASE_URL for a service that sends through the stand-in. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The messages taken, in order; only those of `chatId` when given. */
  messages(chatId?: string): TakenMessage[] {
    return chatId === undefined ? [...this.taken] : this.taken.filter((message) => message.chat_id === chatId);
  }

  /** The next sendMessage gets this error answer (429 with `retry_after`, 403, 500, ...). */
  failNext(error: PlatformError): void {
    this.behaviours.push({ fail: error });
  }

  /** The next sendMessage is held without being taken until `releaseHeld()`, or its client gives up. */
  holdNext(): void {
    this.behaviours.push({ hold: true });
  }

  /** Every sendMessage from now on is held, until `releaseHeld()`. */
  holdFromNow(): void {
    this.holdingAll = true;
  }

  /** How many requests are held now (their clients still waiting). */
  heldCount(): number {
    return this.held.filter((held) => !held.gone).length;
  }

  /** Takes and answers every held request whose client still waits; stops holding. */
  releaseHeld(): void {
    this.holdingAll = false;
    for (const held of this.held.splice(0)) {
      if (!held.gone) this.take(held.token, held.payload, held.res);
    }
  }

  async stop(): Promise<void> {
    for (const held of this.held.splice(0)) held.res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  handle(req: IncomingMessage, body: string, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (call && req.method === 'POST') return this.botApi(call[1] ?? '', call[2] ?? '', parseObject(body), res);
    const chat = /^\/stand-in\/chats\/(-?\d+)$/.exec(path);
    if (chat && req.method === 'GET') return reply(res, 200, { ok: true, messages: this.messages(chat[1]) });
    reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
  }

  private botApi(token: string, method: string, payload: Record<string, unknown>, res: ServerResponse): void {
    if (method === 'getMe') return reply(res, 200, { ok: true, result: { id: 1, is_bot: true, first_name: 'Stand-in', username: 'pilot_signin_bot' } });
    if (method !== 'sendMessage') return reply(res, 400, { ok: false, error_code: 400, description: `Bad Request: the stand-in does not know ${method}` });
    this.attempts.push({ chat_id: String(payload.chat_id), text: String(payload.text) });
    const behaviour = this.behaviours.shift();
    if ((behaviour && 'hold' in behaviour) || this.holdingAll) {
      const held: Held = { token, payload, res, gone: false };
      res.once('close', () => {
        if (!res.writableEnded) held.gone = true;
      });
      this.held.push(held);
      return;
    }
    if (behaviour) return reply(res, behaviour.fail.error_code, { ok: false, ...behaviour.fail });
    this.take(token, payload, res);
  }

  private take(token: string, payload: Record<string, unknown>, res: ServerResponse): void {
    if (typeof payload.text !== 'string' || payload.text.length === 0 || payload.chat_id === undefined) {
      return reply(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    }
    const message: TakenMessage = {
      message_id: (this.nextMessageId += 1),
      chat_id: String(payload.chat_id),
      text: payload.text,
      ...(typeof payload.parse_mode === 'string' ? { parse_mode: payload.parse_mode } : {}),
      token,
      at: new Date(),
    };
    this.taken.push(message);
    reply(res, 200, {
      ok: true,
      result: { message_id: message.message_id, date: Math.floor(Date.now() / 1000), chat: { id: Number(message.chat_id), type: 'private' }, text: message.text },
    });
  }
}

function parseObject(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts the stand-in on `port` (0: any free port) of 127.0.0.1. */
export async function startBotApiStandIn(port = 0): Promise<BotApiStandIn> {
  let standIn: BotApiStandIn | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => standIn?.handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  standIn = new BotApiStandIn(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return standIn;
}

if (require.main === module) {
  startBotApiStandIn(Number(process.env.BOT_API_STAND_IN_PORT ?? 8081))
    .then((standIn) => {
      process.stdout.write(`${JSON.stringify({ msg: 'Bot API stand-in listening', url: standIn.baseUrl })}\n`);
      const stop = () => void standIn.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
