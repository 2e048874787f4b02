/**
 * The example publisher bot (examples/publisher-bot) as a publisher runs it: installed outside the
 * repository against the packed network client (support/outside-project.ts), against the running system
 * and the fake Bot API it ships.
 *
 * First the README's journey, every part a process of its own: the fake Bot API (`npm run fake-bot-api`),
 * the bot (`npm start`), a user writing /ad in the simulated chat; the chat shows the sponsored message, and
 * the confirmation and a click land in the owner's totals. Then the installed bot's code in this process
 * for what a journey cannot show on demand: a photo, a refused photo, a refused send and a send without
 * answer (never confirmed), no ad, the bot's own commands.
 */
import { reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { startFakeBotApi, type BotApiCall, type ChatLine, type FakeBotApi } from '../../examples/publisher-bot/src/fake-bot-api';
import { openLink, signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { installExampleBot, startNode, type OutsideProject, type RunningProcess } from './support/outside-project';

interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

/** What this test uses of the installed project's modules (their own types live in that project). */
interface InstalledAd {
  campaign_id: number;
  click_url: string;
  delivery_token: string;
}
interface Outcome {
  kind: string;
  via?: string;
  ad?: InstalledAd;
  confirmation?: { status: string; first_confirmation: boolean };
}
interface InstalledClient {
  requestAd(query: { language: string }): Promise<InstalledAd | null>;
  confirmDelivery(token: string): Promise<{ status: string; first_confirmation: boolean }>;
}
interface ClientModule {
  NetworkClient: new (options: { baseUrl: string; apiKey: string }) => InstalledClient;
}
interface InstalledBot {
  init(): Promise<void>;
  handleUpdate(update: unknown): Promise<void>;
}
interface BotModule {
  HELP_TEXT: string;
  createPublisherBot(options: {
    token: string;
    client: InstalledClient;
    canSendImage: (url: string) => Promise<boolean>;
    onOutcome: (outcome: Outcome) => void;
    botConfig: { client: { apiRoot: string; timeoutSeconds?: number } };
  }): InstalledBot;
}

const CHAT_ID = 9001;
const TOKEN = '123456:TEST-token';

describe('example publisher bot, installed outside the repository, against the running system', function () {
  this.timeout(420_000);
  let system: System;
  let owner: Browser;
  let key: string;
  let textCampaign: Campaign;
  let imageCampaign: Campaign;
  let project: OutsideProject;
  let installing: Promise<OutsideProject | null> = Promise.resolve(null);

  const totals = async (): Promise<Totals> => (await owner.get<Totals>('/api/workspace/stats')).body;
  const totalsReach = (field: keyof Totals, value: number): Promise<Totals> =>
    waitFor(async () => {
      const now = await totals();
      return now[field] === value ? now : null;
    }, { timeoutMs: 30_000, message: `${field} to reach ${value}` });

  before(async () => {
    // The install reads the registry; it runs while the system starts.
    const install = installExampleBot();
    installing = install.catch(() => null);
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
    key = (await approvedPublisher(system, owner, admin)).server.key;
    project = await install;
    // Both campaigns selectable before the bot asks (these allocations are never confirmed).
    const warmUp = new (project.load<ClientModule>('@pilot/network-client').NetworkClient)({ baseUrl: system.baseUrl, apiKey: key });
    for (const language of ['en', 'tr']) {
      await waitFor(() => warmUp.requestAd({ language }), { timeoutMs: 15_000, message: `an ad in ${language}` });
    }
  });

  after(async () => {
    await system?.stop();
    // Also when the system failed to start before the install was awaited.
    await (await installing)?.remove();
  });

  describe('the README journey: fake Bot API, bot and chat as processes', () => {
    let fakeApi: RunningProcess;
    let bot: RunningProcess;
    let apiRoot: string;

    before(async () => {
      fakeApi = startNode(project.dir, 'dist/fake-bot-api.js', { FAKE_BOT_API_PORT: String(await reservedPort()) });
      const started = await waitFor(async () => fakeApi.lines.find((line) => line.event === 'fake_bot_api_started') ?? null, {
        timeoutMs: 15_000,
        message: 'the fake Bot API to start',
      });
      apiRoot = String(started.apiRoot);
      bot = startNode(project.dir, 'dist/main.js', {
        BOT_TOKEN: TOKEN,
        PILOT_BASE_URL: system.baseUrl,
        PILOT_API_KEY: key,
        TELEGRAM_API_ROOT: apiRoot,
      });
      await waitFor(async () => bot.lines.some((line) => line.event === 'started'), { timeoutMs: 15_000, message: 'the bot to start polling' });
    });

    after(async () => {
      await bot?.stop();
      await fakeApi?.stop();
    });

    it('shows the sponsored message on /ad in the simulated chat, and its confirmation and click land in the totals', async () => {
      const before = await totals();
      const said = await fetch(`${apiRoot}/simulate/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: CHAT_ID, text: '/ad', language_code: 'en-US' }),
      });
      expect(said.status).to.equal(200);

      const sponsored = await waitFor(
        async () => {
          const { chat } = (await (await fetch(`${apiRoot}/simulate/chat/${CHAT_ID}`)).json()) as { chat: ChatLine[] };
          return chat.find((line) => line.from === 'bot') ?? null;
        },
        { timeoutMs: 20_000, message: 'the bot to answer /ad in the chat' },
      );
      expect(sponsored.text).to.equal(`Sponsored\n${textCampaign.title}\n\n${textCampaign.text}`);
      const buttons = (sponsored.reply_markup as { inline_keyboard: { text: string; url: string }[][] }).inline_keyboard;
      expect(buttons).to.have.length(1);
      const button = buttons[0]?.[0];
      expect(button?.text).to.equal(textCampaign.buttonText);
      expect(button?.url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);

      const delivered = await waitFor(async () => bot.lines.find((line) => line.event === 'ad') ?? null, { message: 'the bot to log the outcome' });
      expect(delivered).to.include({ kind: 'delivered', campaignId: textCampaign.id });
      const confirmed = await totalsReach('confirmedDeliveries', before.confirmedDeliveries + 1);
      expect(confirmed.adRequests).to.be.at.least(before.adRequests + 1);

      // The reader taps the button.
      const click = await openLink(String(button?.url), 'GET');
      expect(click.status).to.equal(302);
      expect(click.headers.get('location')).to.equal(textCampaign.destinationUrl);
      await totalsReach('clickedLinks', before.clickedLinks + 1);
    });
  });

  describe("the installed bot's code with the fake Bot API in this process", () => {
    let telegram: FakeBotApi;
    let client: InstalledClient;
    let botModule: BotModule;
    let bot: InstalledBot;
    let outcomes: Outcome[];
    let imageSendable = true;

    const lastOutcome = (): Outcome => {
      const outcome = outcomes.at(-1);
      if (!outcome) throw new Error('no outcome reported');
      return outcome;
    };
    const onlySend = (): BotApiCall => {
      const sends = telegram.sends();
      expect(sends, JSON.stringify(sends)).to.have.length(1);
      return sends[0] as BotApiCall;
    };
    const newBot = (timeoutSeconds?: number): InstalledBot =>
      botModule.createPublisherBot({
        token: TOKEN,
        client,
        canSendImage: async () => imageSendable,
        onOutcome: (outcome) => outcomes.push(outcome),
        botConfig: { client: { apiRoot: telegram.apiRoot, ...(timeoutSeconds ? { timeoutSeconds } : {}) } },
      });
    const command = (text: string, languageCode: string) => telegram.say({ chat_id: CHAT_ID, text, language_code: languageCode });

    before(async () => {
      telegram = await startFakeBotApi();
      client = new (project.load<ClientModule>('@pilot/network-client').NetworkClient)({ baseUrl: system.baseUrl, apiKey: key });
      botModule = project.load<BotModule>('./dist/bot.js');
      bot = newBot();
      await bot.init();
    });

    beforeEach(() => {
      telegram.reset();
      outcomes = [];
      imageSendable = true;
    });

    after(async () => {
      await telegram?.stop();
    });

    it('sends the ad as one plain-text message labelled Sponsored, with click_url as the button URL, then confirms it', async () => {
      const before = await totals();
      await bot.handleUpdate(command('/ad', 'en'));

      const outcome = lastOutcome();
      expect(outcome.kind).to.equal('delivered');
      expect(outcome.via).to.equal('message');
      expect(outcome.confirmation).to.deep.equal({ status: 'confirmed', first_confirmation: true });
      expect(outcome.ad?.campaign_id).to.equal(textCampaign.id);

      const send = onlySend();
      expect(send.method).to.equal('sendMessage');
      expect(send.payload.chat_id).to.equal(CHAT_ID);
      expect(send.payload.text).to.equal(`Sponsored\n${textCampaign.title}\n\n${textCampaign.text}`);
      expect(send.payload).to.not.have.property('parse_mode');
      expect(send.payload.entities).to.deep.equal([
        { type: 'bold', offset: 0, length: 'Sponsored'.length },
        { type: 'bold', offset: 'Sponsored'.length + 1, length: String(textCampaign.title).length },
      ]);
      expect(send.payload.reply_markup).to.deep.equal({ inline_keyboard: [[{ text: textCampaign.buttonText, url: outcome.ad?.click_url }]] });
      const click = await openLink(String(outcome.ad?.click_url), 'HEAD');
      expect(click.status).to.equal(302);
      expect(click.headers.get('location')).to.equal(textCampaign.destinationUrl);

      await totalsReach('confirmedDeliveries', before.confirmedDeliveries + 1);
    });

    it('sends a photo with the same caption when the ad has an image Telegram can send', async () => {
      await bot.handleUpdate(command('/ad', 'tr'));
      const outcome = lastOutcome();
      expect(outcome).to.include({ kind: 'delivered', via: 'photo' });
      const send = onlySend();
      expect(send.method).to.equal('sendPhoto');
      expect(send.payload.photo).to.equal(imageCampaign.imageUrl);
      expect(send.payload.caption).to.equal(`Sponsored\n${imageCampaign.title}\n\n${imageCampaign.text}`);
      expect(send.payload).to.not.have.property('parse_mode');
      expect(send.payload.reply_markup).to.deep.equal({ inline_keyboard: [[{ text: imageCampaign.buttonText, url: outcome.ad?.click_url }]] });
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
      expect(outcome.confirmation?.first_confirmation).to.equal(true);
    });

    it('never confirms a send that Telegram answered with an error', async () => {
      const before = await totals();
      telegram.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
      await bot.handleUpdate(command('/ad', 'en'));
      const outcome = lastOutcome();
      expect(outcome.kind).to.equal('send_failed');
      expect(onlySend().method).to.equal('sendMessage');

      // The allocation is counted, its delivery is not...
      const after = await totalsReach('adRequests', before.adRequests + 1);
      expect(after.confirmedDeliveries).to.equal(before.confirmedDeliveries);
      // ...and the delivery endpoint has never seen this token confirmed.
      expect(await client.confirmDelivery(String(outcome.ad?.delivery_token))).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    });

    it('neither confirms nor sends again when the send gets no answer (timeout)', async () => {
      const impatient = newBot(2);
      await impatient.init();
      telegram.reset();
      telegram.hangNext('sendMessage');
      await impatient.handleUpdate(command('/ad', 'en'));
      const outcome = lastOutcome();
      expect(outcome.kind).to.equal('send_unknown');
      // A second send, were there one, announces nothing before it comes: a bounded window for it to arrive.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(onlySend().method).to.equal('sendMessage');
      expect(await client.confirmDelivery(String(outcome.ad?.delivery_token))).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    });

    it('sends nothing when no ad matches (204) and carries on serving its own commands', async () => {
      await bot.handleUpdate(command('/ad', 'de'));
      expect(lastOutcome()).to.deep.equal({ kind: 'no_ad' });
      expect(telegram.sends()).to.deep.equal([]);

      await bot.handleUpdate(command('/help', 'de'));
      const help = onlySend();
      expect(help.method).to.equal('sendMessage');
      expect(help.payload.text).to.equal(botModule.HELP_TEXT);
    });
  });
});
