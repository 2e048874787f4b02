/**
 * The notification service on real RabbitMQ, Redis and FerretDB, with the Bot API stand-in as the
 * messaging platform: events published as the campaign and publisher-identity services publish them.
 */
import type { KnownEvent } from '@pilot/contracts';
import { ManualClock, scrapeMetrics, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { ADMIN_ID, BOT_TOKEN, campaignEvent, publisherEvent, SITE, startHarness, type Harness } from './support';

/** Events this replica (or these replicas) acknowledged so far. */
async function consumed(...urls: string[]): Promise<number> {
  let total = 0;
  for (const url of urls) total += (await scrapeMetrics(url)).value('pilot_bus_events_consumed_total', { subscription: 'durable' });
  return total;
}

describe('notification service', function () {
  this.timeout(60_000);
  let harness: Harness;

  before(async () => {
    harness = await startHarness();
  });

  after(async () => {
    await harness?.stop();
  });

  /** Publishes `events` and waits until the service acknowledged every one of them. */
  async function handled(events: KnownEvent[], urls = [harness.service.url]): Promise<void> {
    const before = await consumed(...urls);
    for (const event of events) await harness.publish(event);
    await waitFor(async () => (await consumed(...urls)) >= before + events.length, { timeoutMs: 20_000, message: `${events.length} events handled` });
  }

  it('tells the owner once of a rejection with its reason, an approval, an activation and a pause by an administrator', async () => {
    const owner = '5101';
    const events = [
      campaignEvent('campaign.rejected', { owner, campaignId: 7101, name: 'Spring sale', reason: 'The landing page is not reachable' }),
      campaignEvent('campaign.approved', { owner, campaignId: 7102, name: 'Summer sale' }),
      campaignEvent('campaign.activated', { owner, campaignId: 7103, name: 'Autumn sale' }),
      campaignEvent('campaign.paused', { owner, campaignId: 7104, name: 'Winter sale', reason: 'Too many complaints' }),
    ];
    await handled(events);
    const texts = harness.bot.messages(owner).map((message) => message.text);
    expect(texts).to.have.length(4);
    expect(texts).to.include.members([
      `Your campaign "Spring sale" was rejected.\nReason: The landing page is not reachable\nOpen it: ${SITE}/workspace/campaigns/7101`,
      `Your campaign "Summer sale" was approved. An administrator puts it on air next.\nOpen it: ${SITE}/workspace/campaigns/7102`,
      `Your campaign "Autumn sale" is active: it can be shown to readers now.\nOpen it: ${SITE}/workspace/campaigns/7103`,
      `Your campaign "Winter sale" was paused.\nReason: Too many complaints\nOpen it: ${SITE}/workspace/campaigns/7104`,
    ]);
    // The same events delivered again (a redelivery, a republished outbox entry): nothing more is sent.
    await handled(events);
    expect(harness.bot.messages(owner)).to.have.length(4);
    expect(harness.bot.attempts.filter((attempt) => attempt.chat_id === owner)).to.have.length(4);
  });

  it("tells a platform's owner of its approval, rejection with the reason, and pause, linking its page", async () => {
    const owner = '5102';
    await handled([
      publisherEvent('publisher.approved', { owner, publisherId: 8101 }),
      publisherEvent('publisher.rejected', { owner, publisherId: 8102, reason: 'We could not verify the ownership' }),
      publisherEvent('publisher.paused', { owner, publisherId: 8103 }),
    ]);
    const texts = harness.bot.messages(owner).map((message) => message.text);
    expect(texts).to.have.length(3);
    expect(texts).to.include(
      `Your platform https://t.me/platform_8102_bot was rejected. Its key no longer works.\nReason: We could not verify the ownership\nOpen it: ${SITE}/workspace/publishers/8102`,
    );
    expect(texts.some((text) => text.startsWith('Your platform https://t.me/platform_8101_bot was approved.') && text.endsWith(`${SITE}/workspace/publishers/8101`))).to.equal(true);
    expect(texts.some((text) => text.startsWith('Your platform https://t.me/platform_8103_bot was paused.'))).to.equal(true);
  });

  it("does not announce what an owner did themselves: an administrator's actions on their own records, an owner's own pause", async () => {
    const advertiser = '5103';
    await handled([
      campaignEvent('campaign.approved', { owner: ADMIN_ID, actor: ADMIN_ID }),
      campaignEvent('campaign.activated', { owner: ADMIN_ID, actor: ADMIN_ID }),
      publisherEvent('publisher.paused', { owner: ADMIN_ID, actor: ADMIN_ID }),
      campaignEvent('campaign.paused', { owner: advertiser, actor: advertiser }),
      // Nor the steps that are nobody else's doing: a submission, a key rotation is not even consumed.
      campaignEvent('campaign.submitted', { owner: advertiser, actor: advertiser }),
    ]);
    expect(harness.bot.messages(advertiser)).to.deep.equal([]);
    expect(harness.bot.messages(ADMIN_ID).filter((message) => message.text.startsWith('Your '))).to.deep.equal([]);
  });

  it('does not announce a change older than NOTIFICATION_MAX_AGE_MS (events parked for days before the first rollout)', async () => {
    const owner = '5105';
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await handled([campaignEvent('campaign.rejected', { owner, reason: 'Old news' }, 2, twoDaysAgo), campaignEvent('campaign.approved', { owner, name: 'Fresh' })]);
    expect(harness.bot.messages(owner).map((message) => message.text.split('\n')[0])).to.deep.equal(['Your campaign "Fresh" was approved. An administrator puts it on air next.']);
  });

  it('sends plain text: what people typed arrives as typed, never as markup', async () => {
    const owner = '5104';
    await handled([campaignEvent('campaign.rejected', { owner, name: '<b>Bold</b> & <a href="https://evil.example">x</a>', reason: '<i>no</i> & "yes"' })]);
    const [message] = harness.bot.messages(owner);
    expect(message?.parse_mode).to.equal(undefined);
    expect(message?.text).to.include('"<b>Bold</b> & <a href="https://evil.example">x</a>"');
    expect(message?.text).to.include('Reason: <i>no</i> & "yes"');
  });

  describe('settings', () => {
    it('answers the defaults: reviews on, queue on for administrators only', async () => {
      expect((await harness.settings('get', '5201').expect(200)).body).to.deep.equal({ reviews: true, queue: false });
      expect((await harness.settings('get', ADMIN_ID).expect(200)).body).to.deep.equal({ reviews: true, queue: true });
    });

    it('keeps a field left out, answers the settings in force, and refuses what is not a boolean with 422', async () => {
      const account = '5202';
      expect((await harness.settings('put', account, { reviews: false }).expect(200)).body).to.deep.equal({ reviews: false, queue: false });
      expect((await harness.settings('put', account, {}).expect(200)).body).to.deep.equal({ reviews: false, queue: false });
      // queue is in force for administrators only, whatever someone else chooses.
      expect((await harness.settings('put', account, { queue: true }).expect(200)).body).to.deep.equal({ reviews: false, queue: false });
      expect((await harness.settings('get', account).expect(200)).body).to.deep.equal({ reviews: false, queue: false });
      const refused = await harness.settings('put', account, { reviews: 'no', extra: 1 }).expect(422);
      expect(refused.headers['content-type']).to.match(/application\/problem\+json/);
      expect(refused.body.code).to.equal('validation_failed');
      expect(refused.body.errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`)).to.deep.equal(['extra:unknown_field', 'reviews:invalid_type']);
      const notJson = await harness.settings('put', account, '[1,2]').set('content-type', 'application/json').expect(422);
      expect(notJson.body.code).to.equal('validation_failed');
      expect((await harness.settings('get', account).expect(200)).body).to.deep.equal({ reviews: false, queue: false });
    });

    it('refuses a call that did not come through the gateway', async () => {
      const response = await fetch(`${harness.service.url}/api/workspace/notifications`, { headers: { 'x-pilot-account': '5203' } });
      expect(response.status).to.equal(401);
    });

    it('stops review messages while reviews is off, and sends them again once it is on', async () => {
      const owner = '5204';
      await harness.settings('put', owner, { reviews: false }).expect(200);
      await handled([campaignEvent('campaign.rejected', { owner, reason: 'Nope' }), publisherEvent('publisher.approved', { owner })]);
      expect(harness.bot.messages(owner)).to.deep.equal([]);
      await harness.settings('put', owner, { reviews: true }).expect(200);
      await handled([campaignEvent('campaign.approved', { owner, name: 'Back on' })]);
      expect(harness.bot.messages(owner).map((message) => message.text.split('\n')[0])).to.deep.equal(['Your campaign "Back on" was approved. An administrator puts it on air next.']);
    });
  });

  describe('the platform answering with trouble', () => {
    it('waits the retry_after of a 429, then sends once', async () => {
      const owner = '5301';
      harness.bot.failNext({ error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
      const startedAt = Date.now();
      await handled([campaignEvent('campaign.approved', { owner })]);
      expect(harness.bot.messages(owner)).to.have.length(1);
      expect(harness.bot.attempts.filter((attempt) => attempt.chat_id === owner)).to.have.length(2);
      expect(Date.now() - startedAt).to.be.at.least(1000);
      const metrics = await scrapeMetrics(harness.service.url);
      expect(metrics.value('pilot_notifications_total', { outcome: 'retried', reason: '429' })).to.be.at.least(1);
    });

    it('tries again after a 500 and after a send that timed out, and sends once', async () => {
      const owner = '5302';
      harness.bot.failNext({ error_code: 500, description: 'Internal Server Error' });
      harness.bot.holdNext();
      await handled([campaignEvent('campaign.rejected', { owner, reason: 'Misleading' })]);
      expect(harness.bot.messages(owner)).to.have.length(1);
      expect(harness.bot.attempts.filter((attempt) => attempt.chat_id === owner)).to.have.length(3);
      const metrics = await scrapeMetrics(harness.service.url);
      expect(metrics.value('pilot_notifications_total', { outcome: 'retried', reason: 'unavailable' })).to.be.at.least(2);
      expect(metrics.value('pilot_notifications_total', { outcome: 'sent', kind: 'review' })).to.be.at.least(1);
      // The token is part of the Bot API's URL: no log line of the retries carries it.
      expect(harness.logs.some((line) => line.includes('message not sent yet'))).to.equal(true);
      expect(harness.logs.join('\n')).to.not.include(BOT_TOKEN);
    });

    it('records a message the platform refuses for good (400) as failed and does not send it again', async () => {
      const owner = '5303';
      harness.bot.failNext({ error_code: 400, description: 'Bad Request: chat not found' });
      const event = campaignEvent('campaign.approved', { owner });
      await handled([event]);
      await handled([event]);
      expect(harness.bot.attempts.filter((attempt) => attempt.chat_id === owner)).to.have.length(1);
      expect((await scrapeMetrics(harness.service.url)).value('pilot_notifications_total', { outcome: 'failed', reason: '400' })).to.be.at.least(1);
    });
  });

  it('reports its backlog: the events waiting in its queue while the platform holds its sends', async () => {
    const backlog = async () => (await scrapeMetrics(harness.service.url)).value('pilot_notification_backlog_messages');
    harness.bot.holdFromNow();
    try {
      // 20 events in hand (the prefetch), each held at the platform; the other 10 wait in the queue.
      for (let index = 0; index < 30; index += 1) await harness.publish(campaignEvent('campaign.approved', { owner: String(5801 + index) }));
      await waitFor(async () => harness.bot.heldCount() === 20 && (await backlog()) === 10, { timeoutMs: 15_000, message: '20 sends held, 10 events waiting' });
    } finally {
      harness.bot.releaseHeld();
    }
    await waitFor(async () => harness.bot.messages().filter((message) => Number(message.chat_id) >= 5801 && Number(message.chat_id) <= 5830).length === 30, { timeoutMs: 20_000, message: 'all 30 sent' });
    expect(await backlog()).to.equal(0);
  });

  it('sends one message per change with two replicas and every event delivered twice', async () => {
    const replica = await harness.startReplica();
    try {
      const owner = '5401';
      const events = Array.from({ length: 15 }, (_, index) => campaignEvent('campaign.approved', { owner, name: `Twice ${index}` }));
      await handled([...events, ...events], [harness.service.url, replica.url]);
      const texts = harness.bot.messages(owner).map((message) => message.text.split('\n')[0]);
      expect(texts).to.have.length(15);
      expect(new Set(texts).size).to.equal(15);
    } finally {
      await replica.stop();
    }
  });

});

describe("the administrators' review-queue summary", function () {
  this.timeout(60_000);
  let harness: Harness;
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z').getTime());

  before(async () => {
    harness = await startHarness({}, { clock });
  });

  after(async () => {
    await harness?.stop();
  });

  async function handled(events: KnownEvent[]): Promise<void> {
    const before = await consumed(harness.service.url);
    for (const event of events) await harness.publish(event);
    await waitFor(async () => (await consumed(harness.service.url)) >= before + events.length, { timeoutMs: 20_000, message: `${events.length} events handled` });
  }

  const summaries = () => harness.bot.messages(ADMIN_ID).map((message) => message.text);

  it('tells an administrator how many records wait when one arrives, at most once per 10 minutes', async () => {
    await handled([campaignEvent('campaign.submitted', { owner: '5701', actor: '5701', campaignId: 9001 }, 2)]);
    expect(summaries()).to.deep.equal([`1 record waits in the review queue.\nOpen it: ${SITE}/workspace/review`]);
    await handled([
      campaignEvent('campaign.submitted', { owner: '5702', actor: '5702', campaignId: 9002 }, 2),
      publisherEvent('publisher.submitted', { owner: '5703', actor: '5703', publisherId: 9003 }, 2),
    ]);
    expect(summaries()).to.have.length(1);

    clock.advance(10 * 60 * 1000);
    // A review takes a record out of the queue and is no reason for a summary; a new arrival is.
    await handled([campaignEvent('campaign.approved', { owner: '5701', campaignId: 9001 }, 3)]);
    expect(summaries()).to.have.length(1);
    await handled([campaignEvent('campaign.submitted', { owner: '5704', actor: '5704', campaignId: 9004 }, 2)]);
    expect(summaries()).to.deep.equal([
      `1 record waits in the review queue.\nOpen it: ${SITE}/workspace/review`,
      `3 records wait in the review queue.\nOpen it: ${SITE}/workspace/review`,
    ]);
  });

  it('sends no summary to an administrator who turned queue off', async () => {
    await harness.settings('put', ADMIN_ID, { queue: false }).expect(200);
    clock.advance(30 * 60 * 1000);
    const before = summaries().length;
    await handled([campaignEvent('campaign.submitted', { owner: '5705', actor: '5705' }, 2)]);
    expect(summaries()).to.have.length(before);
  });
});

describe('notification service under its overall send limit', function () {
  this.timeout(60_000);

  it('sends at most BOT_SEND_LIMIT_PER_SECOND messages a second, over every replica', async () => {
    const harness = await startHarness({ BOT_SEND_LIMIT_PER_SECOND: '5' });
    try {
      const replica = await harness.startReplica();
      const owners = Array.from({ length: 12 }, (_, index) => String(5500 + index));
      for (const owner of owners) await harness.publish(campaignEvent('campaign.approved', { owner }));
      await waitFor(() => harness.bot.messages().length >= 12, { timeoutMs: 20_000, message: '12 messages' });
      const times = harness.bot
        .messages()
        .map((message) => message.at.getTime())
        .sort((a, b) => a - b);
      // Five per one-second window: the 6th waits for the 2nd window, the 11th for the 3rd.
      expect(times[5]! - times[0]!).to.be.at.least(900);
      expect(times[10]! - times[0]!).to.be.at.least(1900);
      expect(harness.bot.messages()).to.have.length(12);
      await replica.stop();
    } finally {
      await harness.stop();
    }
  });
});

describe('notification service without TELEGRAM_BOT_TOKEN', function () {
  this.timeout(60_000);

  it('sends nothing, says so once at start, and still consumes the events', async () => {
    const harness = await startHarness({ TELEGRAM_BOT_TOKEN: '' });
    try {
      await harness.publish(campaignEvent('campaign.approved', { owner: '5601' }));
      await harness.publish(campaignEvent('campaign.rejected', { owner: '5601', reason: 'No' }));
      await waitFor(async () => (await consumed(harness.service.url)) >= 2, { timeoutMs: 15_000, message: 'the events consumed' });
      expect(harness.bot.attempts).to.deep.equal([]);
      const said = harness.logs.filter((line) => line.includes('TELEGRAM_BOT_TOKEN'));
      expect(said).to.have.length(1);
      expect(JSON.parse(said[0]!)).to.include({ msg: 'TELEGRAM_BOT_TOKEN is not set: no notification is sent' });
    } finally {
      await harness.stop();
    }
  });
});
