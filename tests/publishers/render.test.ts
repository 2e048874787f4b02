/** The example bot's rendering and image check, without a system: pure functions and a scripted fetch. */
import { expect } from 'chai';
import { languageOf } from '../../examples/publisher-bot/src/bot';
import { CAPTION_LIMIT, PHOTO_URL_MAX_BYTES, probeImage, renderAd } from '../../examples/publisher-bot/src/render';
import type { Ad } from '../../packages/network-client/src';

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
    expect(init?.method).to.equal('HEAD');
    return new Response(null, { status, headers });
  }) as typeof fetch;
}

describe('example publisher bot rendering', () => {
  it('keeps title and text as they are, labels the message Sponsored and puts click_url unchanged on the button', () => {
    const rendered = renderAd(ad);
    expect(rendered.text).to.equal(`Sponsored\n${ad.title}\n\n${ad.text}`);
    expect(rendered.reply_markup).to.deep.equal({ inline_keyboard: [[{ text: 'Try it', url: ad.click_url }]] });
    expect(rendered.text.length).to.be.below(CAPTION_LIMIT);
  });

  it('measures entity offsets in UTF-16 code units, so a flag emoji in the title keeps the bold on the title', () => {
    const [label, title] = renderAd(ad).entities;
    expect(label).to.deep.equal({ type: 'bold', offset: 0, length: 9 });
    const text = renderAd(ad).text;
    expect(text.slice(title?.offset, (title?.offset ?? 0) + (title?.length ?? 0))).to.equal(ad.title);
  });

  it('asks for an image only when its host says it is a photo type within Telegram’s size for URLs', async () => {
    expect(await probeImage(ad.image_url ?? '', headFetch(200, { 'content-type': 'image/jpeg', 'content-length': '20000' }))).to.equal(true);
    expect(await probeImage(ad.image_url ?? '', headFetch(200, { 'content-type': 'image/png', 'content-length': String(PHOTO_URL_MAX_BYTES + 1) }))).to.equal(false);
    expect(await probeImage(ad.image_url ?? '', headFetch(200, { 'content-type': 'text/html', 'content-length': '100' }))).to.equal(false);
    expect(await probeImage(ad.image_url ?? '', headFetch(404, { 'content-type': 'image/jpeg', 'content-length': '100' }))).to.equal(false);
    expect(await probeImage(ad.image_url ?? '', headFetch(200, { 'content-type': 'image/jpeg' }))).to.equal(false);
    const failing = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    expect(await probeImage(ad.image_url ?? '', failing)).to.equal(false);
    expect(await probeImage('http://cdn.example/banner.jpg', headFetch(200, { 'content-type': 'image/jpeg', 'content-length': '1' }))).to.equal(false);
  });

  it('asks for the two-letter language of the user, or none', () => {
    expect(languageOf('pt-br')).to.equal('pt');
    expect(languageOf('TR')).to.equal('tr');
    expect(languageOf(undefined)).to.equal(null);
    expect(languageOf('fil')).to.equal(null);
  });
});
