/**
 * How an ad becomes a message, by the rendering rules of the publishers guide:
 *   1. a clear Sponsored label;                2. click_url unchanged, as the URL of the inline button;
 *   3. title and text sent as plain text: no parse_mode, so nothing in them is ever read as markup
 *      (the label and the title are made bold with message entities, which carry no markup);
 *   4. the image only when the platform can send it (HTTPS, a photo type and size it accepts, a caption
 *      within its limit), otherwise the text alone.
 */
import type { Ad } from '@pilot/network-client';
import type { InlineKeyboardMarkup, MessageEntity } from 'grammy/types';

export const SPONSORED_LABEL = 'Sponsored';
/** Telegram's limits: a message text and a photo caption, in UTF-16 code units after entity parsing. */
export const MESSAGE_TEXT_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;

export interface RenderedAd {
  text: string;
  entities: MessageEntity[];
  reply_markup: InlineKeyboardMarkup;
}

/** The message of an ad: label, title and text as plain text, one URL button that is click_url as given. */
export function renderAd(ad: Ad): RenderedAd {
  const text = `${SPONSORED_LABEL}\n${ad.title}\n\n${ad.text}`;
  return {
    text,
    // JavaScript string lengths are UTF-16 code units, the unit Telegram counts entity offsets in.
    entities: [
      { type: 'bold', offset: 0, length: SPONSORED_LABEL.length },
      { type: 'bold', offset: SPONSORED_LABEL.length + 1, length: ad.title.length },
    ],
    reply_markup: { inline_keyboard: [[{ text: ad.button_text, url: ad.click_url }]] },
  };
}

const PHOTO_TYPES = /^image\/(jpeg|png|webp)\b/i;
/** Telegram fetches a photo given by URL only up to 5 MB. */
export const PHOTO_URL_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Whether the platform can fetch `url` as a photo: asks the image host (HEAD, short deadline) for its
 * type and size. Any doubt (no answer, another type, too large, no length) says no: the ad goes as text.
 */
export async function probeImage(url: string, fetchImpl: typeof fetch = fetch, timeoutMs = 3000): Promise<boolean> {
  if (!url.startsWith('https://')) return false;
  try {
    const response = await fetchImpl(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    if (!response.ok) return false;
    const type = response.headers.get('content-type') ?? '';
    const length = Number(response.headers.get('content-length') ?? NaN);
    return PHOTO_TYPES.test(type) && Number.isFinite(length) && length > 0 && length <= PHOTO_URL_MAX_BYTES;
  } catch {
    return false;
  }
}
