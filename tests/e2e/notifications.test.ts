/**
 * Notifications through the bot, end to end: people act in the workspace through the gateway, the
 * campaign and publisher-identity services publish their events, and the notification service tells the
 * owners through the Bot API stand-in (TELEGRAM_API_BASE_URL) what happened to their records.
 */
import { scrapeMetrics, startBotApiStandIn, waitFor, type BotApiStandIn } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from './support/clients';
import { draftCampaign, type Campaign } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

const SECOND_ADMIN = '1001';
const ADMINS = `${ADMIN_ID},${SECOND_ADMIN}`;

describe('notifications through the bot', function () {
  this.timeout(120_000);
  let bot: BotApiStandIn;
  let system: System;
  let admin: Browser;
  let secondAdmin: Browser;

  before(async function () {
    this.timeout(90_000);
    bot = await startBotApiStandIn();
    system = await startSystem({
      settings: {
        'publisher-identity': { ADMIN_ACCOUNT_IDS: ADMINS },
        notification: { ADMIN_ACCOUNT_IDS: ADMINS, TELEGRAM_BOT_TOKEN: '424242:e2e-stand-in-token', TELEGRAM_API_BASE_URL: bot.baseUrl },
      },
    });
    admin = await signedIn(system, ADMIN_ID);
    secondAdmin = await signedIn(system, SECOND_ADMIN);
    // The review-queue summaries have tests of their own; here the administrators hear only of their records.
    for (const browser of [admin, secondAdmin]) expect((await browser.put('/api/workspace/notifications', { queue: false })).body).to.deep.equal({ reviews: true, queue: false });
  });

  after(async function () {
    this.timeout(60_000);
    await system?.stop();
    await bot?.stop();
  });

  const notificationUrl = () => system.replicasOf('notification')[0]?.running?.url ?? '';
  const consumed = async () => (await scrapeMetrics(notificationUrl())).value('pilot_bus_events_consumed_total', { subscription: 'durable' });

  /** Does the moves, then waits until the notification service acknowledged `events` more events. */
  async function moves(events: number, work: () => Promise<void>): Promise<void> {
    const before = await consumed();
    await work();
    await waitFor(async () => (await consumed()) >= before + events, { timeoutMs: 20_000, message: `${events} events handled by the notification service` });
  }

  async function move(who: Browser, campaign: Campaign, action: string, body?: unknown): Promise<void> {
    const answer = await who.post(`/api/workspace/campaigns/${campaign.id}/${action}`, body);
    expect(answer.status, `${action}: ${answer.text}`).to.equal(200);
  }

  const ownMessages = (accountId: string) => bot.messages(accountId).filter((message) => message.text.startsWith('Your '));

  it('tells the owner of a rejection with its reason, an approval, an activation and a pause, each once; not of their own pause', async () => {
    const owner = await signedIn(system, '9701');
    const campaign = await draftCampaign(owner, { name: 'Turkish <lessons> & more' });
    const page = `${system.baseUrl}/workspace/campaigns/${campaign.id}`;
    await moves(8, async () => {
      await move(owner, campaign, 'submit');
      await move(admin, campaign, 'reject', { reason: 'The destination page does not load' });
      await move(owner, campaign, 'submit');
      await move(admin, campaign, 'approve');
      await move(admin, campaign, 'activate');
      await move(admin, campaign, 'pause', { reason: 'Readers complained' });
      await move(admin, campaign, 'activate');
      await move(owner, campaign, 'pause');
    });
    expect(ownMessages('9701').map((message) => message.text)).to.deep.equal([
      `Your campaign "Turkish <lessons> & more" was rejected.\nReason: The destination page does not load\nOpen it: ${page}`,
      `Your campaign "Turkish <lessons> & more" was approved. An administrator puts it on air next.\nOpen it: ${page}`,
      `Your campaign "Turkish <lessons> & more" is active: it can be shown to readers now.\nOpen it: ${page}`,
      `Your campaign "Turkish <lessons> & more" was paused.\nReason: Readers complained\nOpen it: ${page}`,
      `Your campaign "Turkish <lessons> & more" is active: it can be shown to readers now.\nOpen it: ${page}`,
    ]);
    expect(bot.messages('9701').every((message) => message.parse_mode === undefined)).to.equal(true);
  });

  it("tells a platform's owner of its approval and of its rejection with the reason", async () => {
    const owner = await signedIn(system, '9702');
    const created = await owner.post<{ id: number }>('/api/workspace/publishers', { type: 'bot', link: '@e2e_notified_bot' });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    await moves(3, async () => {
      expect((await owner.post(`/api/workspace/publishers/${id}/submit`)).status).to.equal(200);
      expect((await admin.post(`/api/workspace/publishers/${id}/approve`)).status).to.equal(200);
      expect((await admin.post(`/api/workspace/publishers/${id}/reject`, { reason: 'Not the owner' })).status).to.equal(200);
    });
    const texts = ownMessages('9702').map((message) => message.text);
    expect(texts).to.have.length(2);
    expect(texts[0]).to.match(/^Your platform \S*e2e_notified_bot was approved\. You can generate its API key now\.\nOpen it: /);
    expect(texts[1]).to.equal(`Your platform ${texts[0]!.split(' ')[2]} was rejected. Its key no longer works.\nReason: Not the owner\nOpen it: ${system.baseUrl}/workspace/publishers/${id}`);
  });

  it('keeps the settings per account through the gateway; with reviews off nothing is announced', async () => {
    const owner = await signedIn(system, '9703');
    expect((await owner.get('/api/workspace/notifications')).body).to.deep.equal({ reviews: true, queue: false });
    expect((await admin.get('/api/workspace/notifications')).body).to.deep.equal({ reviews: true, queue: false });
    const off = await owner.put('/api/workspace/notifications', { reviews: false });
    expect(off.status, off.text).to.equal(200);
    expect(off.body).to.deep.equal({ reviews: false, queue: false });
    const invalid = await owner.put('/api/workspace/notifications', { reviews: 'sometimes' });
    expect(invalid.status).to.equal(422);
    expect(invalid.body).to.include({ code: 'validation_failed' });
    const campaign = await draftCampaign(owner);
    await moves(2, async () => {
      await move(owner, campaign, 'submit');
      await move(admin, campaign, 'reject', { reason: 'Quiet please' });
    });
    expect(bot.messages('9703')).to.deep.equal([]);
    expect((await owner.get('/api/workspace/notifications')).body).to.deep.equal({ reviews: false, queue: false });
  });

  it("does not announce an administrator's own actions on their own records to them", async () => {
    const campaign = await draftCampaign(admin, { name: 'House ad' });
    await moves(4, async () => {
      await move(admin, campaign, 'submit');
      await move(secondAdmin, campaign, 'approve');
      await move(secondAdmin, campaign, 'activate');
      await move(admin, campaign, 'pause', { reason: 'Enough for today' });
    });
    expect(ownMessages(ADMIN_ID).map((message) => message.text.split('\n')[0])).to.deep.equal([
      'Your campaign "House ad" was approved. An administrator puts it on air next.',
      'Your campaign "House ad" is active: it can be shown to readers now.',
    ]);
  });

  it('stops messages to an account whose person blocked the bot (403) until they sign in again', async () => {
    const owner = await signedIn(system, '9704');
    const campaign = await draftCampaign(owner, { name: 'Blocked one' });
    const attemptsTo = () => bot.attempts.filter((attempt) => attempt.chat_id === '9704').length;
    bot.failNext({ error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    await moves(4, async () => {
      await move(owner, campaign, 'submit');
      await move(admin, campaign, 'reject', { reason: 'First' });
      await waitFor(() => attemptsTo() === 1, { message: 'the rejection tried once' });
      await move(owner, campaign, 'submit');
      await move(admin, campaign, 'reject', { reason: 'Second' });
    });
    expect(attemptsTo()).to.equal(1);
    expect(bot.messages('9704')).to.deep.equal([]);
    expect((await scrapeMetrics(notificationUrl())).value('pilot_notifications_total', { outcome: 'blocked' })).to.equal(1);

    await signedIn(system, '9704');
    await moves(2, async () => {
      await move(owner, campaign, 'submit');
      await move(admin, campaign, 'reject', { reason: 'Third' });
    });
    expect(bot.messages('9704').map((message) => message.text.split('\n')[1])).to.deep.equal(['Reason: Third']);
  });
});
