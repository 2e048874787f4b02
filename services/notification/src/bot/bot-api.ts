/**
 * The one call this service makes to the messaging platform: Bot API `sendMessage`, plain text, to
 * `chat_id` = the account id. The answer is sorted into what the sender does next.
 */
export type SendOutcome =
  | { kind: 'sent'; messageId: number | null }
  /** 429: wait this long, then try again. */
  | { kind: 'retry_after'; seconds: number }
  /** 403: the person blocked the bot (or never started it); nothing more until they sign in again. */
  | { kind: 'blocked'; description: string }
  /** The platform refused this message for good (400 chat not found, ...). */
  | { kind: 'refused'; status: number; description: string }
  /** No answer in time, no connection, or a 5xx: the message may be tried again. */
  | { kind: 'unavailable'; description: string };

export interface BotApiOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

/** A 429 without `retry_after` waits this long. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

interface PlatformAnswer {
  ok?: boolean;
  description?: string;
  result?: { message_id?: unknown };
  parameters?: { retry_after?: unknown };
}

export class BotApi {
  constructor(private readonly options: BotApiOptions) {}

  async sendMessage(chatId: string, text: string, signal?: AbortSignal): Promise<SendOutcome> {
    const url = new URL(`/bot${this.options.token}/sendMessage`, this.options.baseUrl);
    let response: Response;
    let answer: PlatformAnswer;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text, link_preview_options: { is_disabled: true } }),
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]) : AbortSignal.timeout(this.options.timeoutMs),
      });
      answer = (await response.json().catch(() => ({}))) as PlatformAnswer;
    } catch (error) {
      // The token is part of the URL: only the error's name and message are kept, never the URL.
      return { kind: 'unavailable', description: `${(error as Error).name}: ${(error as Error).message}` };
    }
    const description = typeof answer.description === 'string' ? answer.description : `HTTP ${response.status}`;
    if (response.ok && answer.ok === true) {
      const messageId = answer.result?.message_id;
      return { kind: 'sent', messageId: typeof messageId === 'number' ? messageId : null };
    }
    if (response.status === 429) {
      const seconds = Number(answer.parameters?.retry_after);
      return { kind: 'retry_after', seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS };
    }
    if (response.status === 403) return { kind: 'blocked', description };
    if (response.status >= 500) return { kind: 'unavailable', description };
    return { kind: 'refused', status: response.status, description };
  }
}
