/**
 * A local fake of the Telegram Bot API, enough for a bot built on grammY (`client: { apiRoot }`):
 * POST /bot<token>/<method> with a JSON body. It records every call, answers getMe, sendMessage and
 * sendPhoto like Telegram does ({ok: true, result: Message}), and can be told to fail a method with an
 * error answer ({ok: false, error_code, description}) or to never answer (a send that times out).
 */
import type { ServerResponse } from 'node:http';
import { localServer, type LocalServer } from './local-server';

export interface BotApiCall {
  method: string;
  token: string;
  payload: Record<string, unknown>;
}

type Behaviour = { fail: { error_code: number; description: string } } | { hang: true };

export const FAKE_BOT = { id: 424242, is_bot: true, first_name: 'Example publisher bot', username: 'example_publisher_bot' };

export class FakeTelegram {
  readonly calls: BotApiCall[] = [];
  private server: LocalServer | null = null;
  private readonly behaviours = new Map<string, Behaviour[]>();
  private readonly hanging: ServerResponse[] = [];
  private messageId = 100;

  get apiRoot(): string {
    if (!this.server) throw new Error('the fake is not started');
    return this.server.url;
  }

  async start(): Promise<void> {
    this.server = await localServer((request, res) => this.answer(request.path, request.body, res));
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await this.server?.close();
  }

  /** The next call of `method` gets this error answer. */
  failNext(method: string, error_code: number, description: string): void {
    this.queue(method, { fail: { error_code, description } });
  }

  /** The next call of `method` gets no answer at all. */
  hangNext(method: string): void {
    this.queue(method, { hang: true });
  }

  sends(): BotApiCall[] {
    return this.calls.filter((call) => call.method === 'sendMessage' || call.method === 'sendPhoto');
  }

  reset(): void {
    this.calls.length = 0;
    this.behaviours.clear();
  }

  private queue(method: string, behaviour: Behaviour): void {
    this.behaviours.set(method, [...(this.behaviours.get(method) ?? []), behaviour]);
  }

  private answer(path: string, body: string, res: ServerResponse): void {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (!match) {
      reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    const [, token = '', method = ''] = match;
    let payload: Record<string, unknown> = {};
    if (body.length > 0) payload = JSON.parse(body) as Record<string, unknown>;
    this.calls.push({ method, token, payload });

    const behaviour = this.behaviours.get(method)?.shift();
    if (behaviour && 'hang' in behaviour) {
      this.hanging.push(res);
      return;
    }
    if (behaviour) {
      reply(res, behaviour.fail.error_code, { ok: false, ...behaviour.fail });
      return;
    }
    const chat = { id: Number(payload.chat_id), type: 'private', first_name: 'Reader' };
    const date = Math.floor(Date.now() / 1000);
    switch (method) {
      case 'getMe':
        reply(res, 200, { ok: true, result: { ...FAKE_BOT, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } });
        return;
      case 'sendMessage':
        reply(res, 200, {
          ok: true,
          result: { message_id: (this.messageId += 1), date, chat, from: FAKE_BOT, text: payload.text, entities: payload.entities, reply_markup: payload.reply_markup },
        });
        return;
      case 'sendPhoto':
        reply(res, 200, {
          ok: true,
          result: {
            message_id: (this.messageId += 1),
            date,
            chat,
            from: FAKE_BOT,
            photo: [{ file_id: 'photo-1', file_unique_id: 'p1', width: 640, height: 360 }],
            caption: payload.caption,
            caption_entities: payload.caption_entities,
            reply_markup: payload.reply_markup,
          },
        });
        return;
      default:
        reply(res, 400, { ok: false, error_code: 400, description: `Bad Request: the fake does not know ${method}` });
    }
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
