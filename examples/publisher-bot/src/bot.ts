/**
 * An example publisher bot on grammY. On /ad it asks the network for one ad, sends it by the rendering
 * rules (src/render.ts) and confirms the delivery only after Telegram answered the send with success:
 *   - no ad (204): sends nothing and carries on;
 *   - Telegram refused the send (an error answer): nothing was delivered, nothing is confirmed; a photo
 *     Telegram could not use (400) is sent once more as text, which is a new send, not a retry;
 *   - no answer from Telegram (timeout, broken connection): the message may have arrived, so it is
 *     neither confirmed nor sent again;
 *   - a confirmation without answer is not retried either (the client surfaces DeliveryOutcomeUnknownError).
 * Core functions (/start, /help) never depend on an ad.
 */
import { type Ad, type DeliveryConfirmed, type NetworkClient } from '@pilot/network-client';
import { Bot, GrammyError, type Api, type BotConfig, type Context } from 'grammy';
import type { Message } from 'grammy/types';

export type { Bot } from 'grammy';
export type { Update } from 'grammy/types';

/** What the bot needs of the network client (a NetworkClient, or anything with these two calls). */
export type AdNetwork = Pick<NetworkClient, 'requestAd' | 'confirmDelivery'>;
import { CAPTION_LIMIT, MESSAGE_TEXT_LIMIT, probeImage, renderAd } from './render';

export type AdOutcome =
  | { kind: 'no_ad' }
  | { kind: 'ad_unavailable'; error: unknown }
  | { kind: 'delivered'; ad: Ad; via: 'photo' | 'message'; messageId: number; confirmation: DeliveryConfirmed }
  | { kind: 'confirm_failed'; ad: Ad; via: 'photo' | 'message'; messageId: number; error: unknown }
  | { kind: 'send_failed'; ad: Ad; error: unknown }
  | { kind: 'send_unknown'; ad: Ad; error: unknown };

export interface ServeOptions {
  /** Language asked for when the user's language is unknown. Default en. */
  defaultLanguage?: string;
  /** Send images at all (default true). */
  images?: boolean;
  /** Whether Telegram can send this image URL as a photo; default: probeImage (HEAD: type and size). */
  canSendImage?: (url: string) => Promise<boolean>;
  /** Every outcome, for logs and metrics. */
  onOutcome?: (outcome: AdOutcome) => void;
}

/** The two-letter language of a Telegram language_code (`pt-br` -> `pt`), or null. */
export function languageOf(code: string | undefined): string | null {
  const match = /^([a-z]{2})(?:-|$)/i.exec(code ?? '');
  return match?.[1]?.toLowerCase() ?? null;
}

/** Asks for an ad and, when there is one, sends it to `chatId` and confirms only a successful send. */
export async function serveAd(
  api: Api,
  chatId: number | string,
  client: AdNetwork,
  options: ServeOptions & { language?: string } = {},
): Promise<AdOutcome> {
  const report = (outcome: AdOutcome): AdOutcome => {
    options.onOutcome?.(outcome);
    return outcome;
  };
  let ad: Ad | null;
  try {
    ad = await client.requestAd({ language: options.language ?? options.defaultLanguage ?? 'en' });
  } catch (error) {
    return report({ kind: 'ad_unavailable', error });
  }
  if (ad === null) return report({ kind: 'no_ad' });

  const rendered = renderAd(ad);
  if (rendered.text.length > MESSAGE_TEXT_LIMIT) return report({ kind: 'send_failed', ad, error: new Error('the ad is too long for one message') });
  let sent: Message;
  let via: 'photo' | 'message' = 'message';
  try {
    const photo = await sendablePhoto(ad, rendered.text, options);
    if (photo !== null) {
      try {
        sent = await api.sendPhoto(chatId, photo, { caption: rendered.text, caption_entities: rendered.entities, reply_markup: rendered.reply_markup });
        via = 'photo';
      } catch (error) {
        // 400: Telegram could not use this photo here (fetch failed, type, no right to send photos in this
        // chat). Nothing was delivered, so the text alone is a new send, not a retry of a send in doubt.
        if (!(error instanceof GrammyError && error.error_code === 400)) throw error;
        sent = await api.sendMessage(chatId, rendered.text, { entities: rendered.entities, reply_markup: rendered.reply_markup });
      }
    } else {
      sent = await api.sendMessage(chatId, rendered.text, { entities: rendered.entities, reply_markup: rendered.reply_markup });
    }
  } catch (error) {
    // An error answer of Telegram means the message was not sent; anything else (timeout, broken
    // connection) means we do not know: in both cases no confirmation, and no second send.
    return report(error instanceof GrammyError ? { kind: 'send_failed', ad, error } : { kind: 'send_unknown', ad, error });
  }

  // Telegram answered ok with the sent message: now, and only now, the delivery is confirmed.
  try {
    const confirmation = await client.confirmDelivery(ad.delivery_token);
    return report({ kind: 'delivered', ad, via, messageId: sent.message_id, confirmation });
  } catch (error) {
    return report({ kind: 'confirm_failed', ad, via, messageId: sent.message_id, error });
  }
}

async function sendablePhoto(ad: Ad, caption: string, options: ServeOptions): Promise<string | null> {
  if (ad.image_url === null || options.images === false || caption.length > CAPTION_LIMIT) return null;
  const check = options.canSendImage ?? ((url: string) => probeImage(url));
  return (await check(ad.image_url)) ? ad.image_url : null;
}

export interface PublisherBotOptions extends ServeOptions {
  /** The bot token from @BotFather. */
  token: string;
  client: AdNetwork;
  /** grammY settings, e.g. `{ client: { apiRoot } }` for a local Bot API server. */
  botConfig?: BotConfig<Context>;
}

export const HELP_TEXT = 'This bot shows how a publisher serves sponsored messages.\n/ad shows one sponsored message.\n/help shows this text.';

export function createPublisherBot(options: PublisherBotOptions): Bot {
  const bot = new Bot(options.token, options.botConfig);
  bot.command(['start', 'help'], (ctx) => ctx.reply(HELP_TEXT));
  // The user asked for it: the only place this bot sends an ad.
  bot.command('ad', async (ctx) => {
    await serveAd(ctx.api, ctx.chat.id, options.client, { ...options, language: languageOf(ctx.from?.language_code) ?? options.defaultLanguage });
  });
  bot.catch((error) => {
    console.error('update failed', error.error);
  });
  return bot;
}
