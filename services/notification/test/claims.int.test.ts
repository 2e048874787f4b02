/**
 * The claims under which a message is sent, on real FerretDB and Redis with the Bot API stand-in: a
 * replica takes over a message only once its holder's lease ran out (and stayed so between two looks), and
 * never sends what was settled; a record that could not be written is written again rather than the
 * message sent again.
 */
import { createLogger, createMetricsRegistry, createRedis, RedisLimiter, ServiceUnavailableError, waitForRedis, type Redis } from '@pilot/platform';
import { connectMongo, type Connection } from '@pilot/storage';
import { ManualClock, startBotApiStandIn, testInfra, waitFor, type BotApiStandIn } from '@pilot/testkit';
import { expect } from 'chai';
import { BotApi } from '../src/bot/bot-api';
import { BlockRepository } from '../src/data/block-repository';
import { DeliveryRepository } from '../src/data/delivery-repository';
import { notificationCounters } from '../src/http/notification-metrics';
import { sendMessage, TAKEOVER_CONFIRM_MS, type Message, type SendDeps } from '../src/use-cases/send-message';
import { sendingProcess } from '../src/use-cases/sending-process';
import { BOT_TOKEN } from './support';

describe('notification send claims', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z').getTime());
  const LEASE_MS = 5000;
  let mongo: Connection;
  let redis: Redis;
  let bot: BotApiStandIn;
  let deliveries: DeliveryRepository;
  let serial = 0;

  before(async () => {
    mongo = await connectMongo({ url: infra.mongoUrl, dbName: `notification_claims_${infra.runId}` });
    redis = createRedis(infra.redisUrl, 'notification-claims-test');
    await waitForRedis(redis);
    bot = await startBotApiStandIn();
    deliveries = new DeliveryRepository(mongo);
    await deliveries.ensureIndexes();
  });

  after(async () => {
    await bot?.stop();
    redis?.disconnect();
    await mongo?.close();
  });

  function senderNamed(holder: string): SendDeps {
    return {
      deliveries,
      blocks: new BlockRepository(mongo),
      bot: new BotApi({ baseUrl: bot.baseUrl, token: BOT_TOKEN, timeoutMs: 1000 }),
      limiter: new RedisLimiter(redis, { keyPrefix: `${infra.redisPrefix}notification:sends`, points: 30, windowSeconds: 1 }),
      lastSignInAt: async () => null,
      clock,
      logger: createLogger({ service: 'claims-test', level: 'silent' }),
      counters: notificationCounters(createMetricsRegistry('notification')),
      leaseMs: LEASE_MS,
      sending: sendingProcess(holder),
    };
  }

  async function expectWaiting(sending: Promise<void>, why: string): Promise<void> {
    let refusal: unknown;
    await sending.catch((error: unknown) => (refusal = error));
    expect(refusal, why).to.be.instanceOf(ServiceUnavailableError);
  }

  function message(): Message {
    serial += 1;
    const accountId = String(6100 + serial);
    return { deliveryId: `event-${serial}:${accountId}`, eventId: `event-${serial}`, accountId, kind: 'review', text: `Message ${serial}` };
  }

  it('waits while another replica holds the message, and takes it over once that lease ran out', async () => {
    const sent = message();
    const now = clock.now();
    expect(await deliveries.claimFirst(sent.deliveryId, 'a-replica-that-died', now, new Date(now.getTime() + LEASE_MS))).to.equal(true);
    const sender = senderNamed('replica-b');
    let refusal: unknown;
    await sendMessage(sender, sent).catch((error: unknown) => (refusal = error));
    expect(refusal).to.be.instanceOf(ServiceUnavailableError);
    expect(bot.messages(sent.accountId)).to.deep.equal([]);

    clock.advance(LEASE_MS + 1);
    await expectWaiting(sendMessage(sender, sent), 'the first look at the run-out lease');
    clock.advance(TAKEOVER_CONFIRM_MS - 1);
    await expectWaiting(sendMessage(sender, sent), 'a second look too soon');
    expect(bot.messages(sent.accountId)).to.deep.equal([]);
    clock.advance(1);
    await sendMessage(sender, sent);
    expect(bot.messages(sent.accountId).map((taken) => taken.text)).to.deep.equal([sent.text]);
    expect(await deliveries.currentClaim(sent.deliveryId)).to.deep.include({ claim: 2, holder: 'replica-b' });
    expect((await deliveries.settled(sent.deliveryId))?.outcome).to.equal('sent');

    // Settled: neither that replica nor another sends it again.
    await sendMessage(sender, sent);
    await sendMessage(senderNamed('replica-c'), sent);
    expect(bot.messages(sent.accountId)).to.have.length(1);
  });

  it("looks past its own claim when another replica took the message over since, and that one's lease ran out too", async () => {
    const sent = message();
    const now = clock.now();
    await deliveries.claimFirst(sent.deliveryId, 'replica-b', now, new Date(now.getTime() + LEASE_MS));
    // Claim 1's lease ran out and another replica took the message over, then died.
    const first = (await deliveries.currentClaim(sent.deliveryId))!;
    await deliveries.takeOver(first, 'replica-that-took-over-and-died', now, new Date(now.getTime() + LEASE_MS));
    clock.advance(LEASE_MS + 1);
    const replicaB = senderNamed('replica-b');
    await expectWaiting(sendMessage(replicaB, sent), 'the first look at the run-out lease of claim 2');
    clock.advance(TAKEOVER_CONFIRM_MS);
    await sendMessage(replicaB, sent);
    expect(bot.messages(sent.accountId)).to.have.length(1);
    expect(await deliveries.currentClaim(sent.deliveryId)).to.deep.include({ claim: 3, holder: 'replica-b' });
  });

  it('lets exactly one of several replicas take over a claim found run out', async () => {
    const sent = message();
    const now = clock.now();
    await deliveries.claimFirst(sent.deliveryId, 'a-replica-that-died', now, new Date(now.getTime() + LEASE_MS));
    const runOut = (await deliveries.currentClaim(sent.deliveryId))!;
    const later = new Date(now.getTime() + LEASE_MS + 1);
    const taken = await Promise.all(['g', 'h', 'i', 'j'].map((holder) => deliveries.takeOver(runOut, `replica-${holder}`, later, new Date(later.getTime() + LEASE_MS))));
    expect(taken.filter(Boolean)).to.have.length(1);
    expect((await deliveries.currentClaim(sent.deliveryId))?.claim).to.equal(2);
    expect(await deliveries.takeOver(runOut, 'replica-k', later, new Date(later.getTime() + LEASE_MS)), 'claim 1 is gone').to.equal(false);
  });

  it('writes the record of a sent message again when the write fails, and never sends the message twice', async () => {
    const sent = message();
    let failures = 2;
    // The store refuses the record twice, as a database does that is briefly unreachable.
    const flaky = Object.create(deliveries) as DeliveryRepository;
    flaky.settle = async (document) => {
      if (failures > 0) {
        failures -= 1;
        throw new ServiceUnavailableError('mongodb', 'the record could not be written');
      }
      return deliveries.settle(document);
    };
    await sendMessage({ ...senderNamed('replica-d'), deliveries: flaky, retryPausesMs: [10] }, sent);
    expect(failures, 'both failures met').to.equal(0);
    expect(bot.messages(sent.accountId).map((taken) => taken.text)).to.deep.equal([sent.text]);
    expect((await deliveries.settled(sent.deliveryId))?.outcome).to.equal('sent');
  });

  it('does not send again when the database stays away longer than the lease while the holder writes its record', async () => {
    const sent = message();
    // The holder's store refuses the record while the database is away; the other replica cannot reach it either.
    let databaseAway = true;
    const awayForHolder = Object.create(deliveries) as DeliveryRepository;
    awayForHolder.settle = async (document) => {
      if (databaseAway) throw new ServiceUnavailableError('mongodb', 'the record could not be written');
      return deliveries.settle(document);
    };
    const holder = { ...senderNamed('replica-e'), deliveries: awayForHolder, retryPausesMs: [10] };
    const holding = sendMessage(holder, sent);
    await waitFor(() => bot.messages(sent.accountId).length === 1, { message: 'the message taken by the platform' });
    clock.advance(LEASE_MS + 1);

    // The database is back: the other replica finds the lease run out, and first waits one more look.
    const other = senderNamed('replica-f');
    await expectWaiting(sendMessage(other, sent), 'the first look at the run-out lease');
    databaseAway = false;
    await holding;
    clock.advance(TAKEOVER_CONFIRM_MS);
    await sendMessage(other, sent);
    expect(bot.messages(sent.accountId).map((taken) => taken.text), 'sent once').to.deep.equal([sent.text]);
    expect(await deliveries.currentClaim(sent.deliveryId), 'never taken over').to.deep.include({ claim: 1, holder: 'replica-e' });
    expect((await deliveries.settled(sent.deliveryId))?.claim).to.equal(1);
  });
});
