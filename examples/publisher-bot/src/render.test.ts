/** The rendering rules and the image check, without a network or a platform: `npm test` after `npm run build`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ad } from '@pilot/network-client';
import { languageOf } from './bot';
import { CAPTION_LIMIT, PHOTO_URL_MAX_BYTES, probeImage, renderAd } from './render';

const ad: Ad = {
  campaign_id: 1,
  title: '🇹🇷 Türkçe <b>öğren</b>',
  text: 'Never *markup*: <a href="https://evil.example">x</a> & _y_',
  button_text: 'Try it',
  image_url: 'https://cdn.example/banner.jpg',
  click_url: 'https://pilot.example/api/network/click/AbC.d_e-F~g',
  delivery_token: 'dt',
  expires_in: 3600,
  sponsored: true,
  billing: 'pilot_non_billable',
};

function headFetch(status: number, headers: Record<string, string>): typeof fetch {
  return (async (_input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    assert.equal(init?.method, 'HEAD');
    return new Response(null, { status, headers });
  }) as typeof fetch;
}

describe('rendering an ad', () => {
  it('keeps title and text as they are, labels the message Sponsored and puts click_url unchanged on the button', () => {
    const rendered = renderAd(ad);
    assert.equal(rendered.text, `Sponsored\n${ad.title}\n\n${ad.text}`);
    assert.deepEqual(rendered.reply_markup, { inline_keyboard: [[{ text: 'Try it', url: ad.click_url }]] });
    assert.ok(rendered.text.length < CAPTION_LIMIT);
  });

  it('measures entity offsets in UTF-16 code units, so a flag emoji in the title keeps the bold on the title', () => {
    const [label, title] = renderAd(ad).entities;
    assert.deepEqual(label, { type: 'bold', offset: 0, length: 9 });
    const text = renderAd(ad).text;
    assert.equal(text.slice(title?.offset, (title?.offset ?? 0) + (title?.length ?? 0)), ad.title);
  });

  it('sends an image only when its host says it is a photo type within Telegram’s size for URLs', async () => {
    const url = ad.image_url ?? '';
    assert.equal(await probeImage(url, headFetch(200, { 'content-type': 'image/jpeg', 'content-length': '20000' })), true);
    assert.equal(await probeImage(url, headFetch(200, { 'content-type': 'image/png', 'content-length': String(PHOTO_URL_MAX_BYTES + 1) })), false);
    assert.equal(await probeImage(url, headFetch(200, { 'content-type': 'text/html', 'content-length': '100' })), false);
    assert.equal(await probeImage(url, headFetch(404, { 'content-type': 'image/jpeg', 'content-length': '100' })), false);
    assert.equal(await probeImage(url, headFetch(200, { 'content-type': 'image/jpeg' })), false);
    const failing = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    assert.equal(await probeImage(url, failing), false);
    assert.equal(await probeImage('http://cdn.example/banner.jpg', headFetch(200, { 'content-type': 'image/jpeg', 'content-length': '1' })), false);
  });

  it('asks for the two-letter language of the user, or none', () => {
    assert.equal(languageOf('pt-br'), 'pt');
    assert.equal(languageOf('TR'), 'tr');
    assert.equal(languageOf(undefined), null);
    assert.equal(languageOf('fil'), null);
  });
});
