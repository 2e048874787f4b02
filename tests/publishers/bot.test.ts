/**
 * The example publisher bot (examples/publisher-bot) against the running system and a local fake of the
 * Telegram Bot API: what it sends on /ad (Sponsored label, plain text, click_url as the button URL, a
 * photo only when it can be sent), that it confirms a delivery only after Telegram reported success, and
 * that a failed or timed-out send is never confirmed (the delivery endpoint still sees it unconfirmed).
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { createPublisherBot, HELP_TEXT, type AdOutcome, type Bot, type Update } from '../../examples/publisher-bot/src/bot';
import { NetworkClient } from '../../packages/network-client/src';
import { openLink, signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { FakeTelegram, type BotApiCall } from './support/fake-telegram';

interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
}

const CHAT_ID = 9001;
let updateId = 0;

function command(text: string, languageCode: string): Update {
  updateId += 1;
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: CHAT_ID, type: 'private', first_name: 'Reader' },
      from: { id: CHAT_ID, is_bot: false, first_name: 'Reader', language_code: languageCode },
      text,
      entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]?.length ?? text.length }],
    },
  };
}

describe('example publisher bot against the running system and a fake Telegram', function () {
  this.timeout(120_000);
  let system: System;
  let owner: Browser;
  let textCampaign: Campaign;
  let imageCampaign: Campaign;
  let client: NetworkClient;
  const telegram = new FakeTelegram();
  let bot: Bot;
  let outcomes: AdOutcome[];
  let imageSendable = true;

  const totals = async (): Promise<Totals> => (await owner.get<Totals>('/api/workspace/stats')).body;
  const lastOutcome = (): AdOutcome => {
    const outcome = outcomes.at(-1);
    if (!outcome) throw new Error('no outcome reported');
    return outcome;
  };
  const onlySend = (): BotApiCall => {
    const sends = telegram.sends();
    expect(sends, JSON.stringify(sends)).to.have.length(1);
    return sends[0] as BotApiCall;
  };
  const newBot = (timeoutSeconds?: number): Bot =>
    createPublisherBot({
      token: '123456:TEST-token',
      client,
      canSendImage: async () => imageSendable,
      onOutcome: (outcome) => outcomes.push(outcome),
      botConfig: { client: { apiRoot: telegram.apiRoot, ...(timeoutSeconds ? { timeoutSeconds } : {}) } },
    });

  before(async () => {
    system = await startSystem();
    const admin = await signedIn(system, ADMIN_ID);
    const advertiser = await signedIn(system, '7201');
    owner = await signedIn(system, '7202');
    textCampaign = await activeCampaign(advertiser, admin, {
      title: 'Learn <i>Turkish</i> & *more*',
      text: 'Plain text, not markup: <b>bold?</b> _under_ [link](https://x.example) &amp;\nSecond line.',
      language: 'en',
    });
    imageCampaign = await activeCampaign(advertiser, admin, { language: 'tr', imageUrl: 'https://cdn.advertiser.example/banner.jpg' });
    const publisher = await approvedPublisher(system, owner, admin);
    client = new NetworkClient({ baseUrl: system.baseUrl, apiKey: publisher.server.key });
    // Both campaigns selectable before the bot asks (these allocations are never confirmed).
    for (const language of ['en', 'tr']) {
      await waitFor(() => client.requestAd({ language }), { timeoutMs: 15_000, message: `an ad in ${language}` });
    }
    await telegram.start();
    bot = newBot();
    await bot.init();
  });

  beforeEach(() => {
    telegram.reset();
    outcomes = [];
    imageSendable = true;
  });

  after(async () => {
    await telegram.stop();
    await system?.stop();
  });

  it('sends the ad as one plain-text message labelled Sponsored, with click_url as the button URL, then confirms it', async () => {
    const before = await totals();
    await bot.handleUpdate(command('/ad', 'en'));

    const outcome = lastOutcome();
    if (outcome.kind !== 'delivered') throw new Error(`expected delivered, got ${outcome.kind}`);
    expect(outcome.via).to.equal('message');
    expect(outcome.confirmation).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    expect(outcome.ad.campaign_id).to.equal(textCampaign.id);

    const send = onlySend();
    expect(send.method).to.equal('sendMessage');
    expect(send.payload.chat_id).to.equal(CHAT_ID);
    expect(send.payload.text).to.equal(`Sponsored\n${textCampaign.title}\n\n${textCampaign.text}`);
    expect(send.payload).to.not.have.property('parse_mode');
    expect(send.payload.entities).to.deep.equal([
      { type: 'bold', offset: 0, length: 'Sponsored'.length },
      { type: 'bold', offset: 'Sponsored'.length + 1, length: String(textCampaign.title).length },
    ]);
    expect(send.payload.reply_markup).to.deep.equal({ inline_keyboard: [[{ text: textCampaign.buttonText, url: outcome.ad.click_url }]] });
    expect(outcome.ad.click_url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);
    const click = await openLink(outcome.ad.click_url, 'HEAD');
    expect(click.status).to.equal(302);
    expect(click.headers.get('location')).to.equal(textCampaign.destinationUrl);

    const after = await waitFor(async () => {
      const now = await totals();
      return now.confirmedDeliveries === before.confirmedDeliveries + 1 ? now : null;
    }, { message: 'the confirmation to be counted' });
    expect(after.confirmedDeliveries).to.equal(before.confirmedDeliveries + 1);
  });

  it('sends a photo with the same caption when the ad has an image Telegram can send', async () => {
    await bot.handleUpdate(command('/ad', 'tr'));
    const outcome = lastOutcome();
    if (outcome.kind !== 'delivered') throw new Error(`expected delivered, got ${outcome.kind}`);
    expect(outcome.via).to.equal('photo');
    const send = onlySend();
    expect(send.method).to.equal('sendPhoto');
    expect(send.payload.photo).to.equal(imageCampaign.imageUrl);
    expect(send.payload.caption).to.equal(`Sponsored\n${imageCampaign.title}\n\n${imageCampaign.text}`);
    expect(send.payload).to.not.have.property('parse_mode');
    expect(send.payload.reply_markup).to.deep.equal({ inline_keyboard: [[{ text: imageCampaign.buttonText, url: outcome.ad.click_url }]] });
  });

  it('sends the text alone when the image cannot be sent', async () => {
    imageSendable = false;
    await bot.handleUpdate(command('/ad', 'tr'));
    expect(lastOutcome()).to.include({ kind: 'delivered', via: 'message' });
    expect(onlySend().method).to.equal('sendMessage');
  });

  it('sends the text once more when Telegram refuses the photo (400), and confirms that message', async () => {
    telegram.failNext('sendPhoto', 400, 'Bad Request: wrong file identifier/HTTP URL specified');
    await bot.handleUpdate(command('/ad', 'tr'));
    expect(telegram.sends().map((call) => call.method)).to.deep.equal(['sendPhoto', 'sendMessage']);
    const outcome = lastOutcome();
    expect(outcome).to.include({ kind: 'delivered', via: 'message' });
    if (outcome.kind === 'delivered') expect(outcome.confirmation.first_confirmation).to.equal(true);
  });

  it('never confirms a send that Telegram answered with an error', async () => {
    const before = await totals();
    telegram.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
    await bot.handleUpdate(command('/ad', 'en'));
    const outcome = lastOutcome();
    if (outcome.kind !== 'send_failed') throw new Error(`expected send_failed, got ${outcome.kind}`);
    expect(onlySend().method).to.equal('sendMessage');

    // The allocation is counted, its delivery is not...
    const after = await waitFor(async () => {
      const now = await totals();
      return now.adRequests === before.adRequests + 1 ? now : null;
    }, { message: 'the allocation to be counted' });
    expect(after.confirmedDeliveries).to.equal(before.confirmedDeliveries);
    // ...and the delivery endpoint has never seen this token confirmed.
    expect(await client.confirmDelivery(outcome.ad.delivery_token)).to.deep.equal({ status: 'confirmed', first_confirmation: true });
  });

  it('neither confirms nor sends again when the send gets no answer (timeout)', async () => {
    const impatient = newBot(2);
    await impatient.init();
    telegram.reset();
    telegram.hangNext('sendMessage');
    await impatient.handleUpdate(command('/ad', 'en'));
    const outcome = lastOutcome();
    if (outcome.kind !== 'send_unknown') throw new Error(`expected send_unknown, got ${outcome.kind}`);
    // Give a second send, were there one, every chance to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(onlySend().method).to.equal('sendMessage');
    expect(await client.confirmDelivery(outcome.ad.delivery_token)).to.deep.equal({ status: 'confirmed', first_confirmation: true });
  });

  it('sends nothing when no ad matches (204) and carries on serving its own commands', async () => {
    await bot.handleUpdate(command('/ad', 'de'));
    expect(lastOutcome()).to.deep.equal({ kind: 'no_ad' });
    expect(telegram.sends()).to.deep.equal([]);

    await bot.handleUpdate(command('/help', 'de'));
    const help = onlySend();
    expect(help.method).to.equal('sendMessage');
    expect(help.payload.text).to.equal(HELP_TEXT);
  });
});
