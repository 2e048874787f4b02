import { ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { ensureRetentionIndexes, RetentionSweeper, type RetentionRule, type SweepLogger } from '../src';

const HOUR = 3_600_000;

function recordingLogger(): SweepLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (_details, message) => void warnings.push(message), info: () => undefined };
}

describe('RetentionSweeper (real MongoDB-compatible server, MONGO_URL)', () => {
  const infra = testInfra();
  const dbName = `mongo_retention_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  const sweepers: RetentionSweeper[] = [];
  const newSweeper = (rules: RetentionRule[], clock: ManualClock, logger: SweepLogger = recordingLogger(), intervalMs = 0) => {
    const sweeper = new RetentionSweeper({ rules, clock, logger, intervalMs });
    sweepers.push(sweeper);
    return sweeper;
  };
  const ids = async (collection: string) => (await db.collection(collection).find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map((d) => d._id);

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('deletes in one sweep what is older than the window and keeps what is inside it, by the injected clock', async () => {
    const clock = new ManualClock();
    const now = clock.now().getTime();
    const events = db.collection('events_window');
    await events.insertMany([
      { _id: 'old' as never, at: new Date(now - 2 * HOUR - 1) },
      { _id: 'edge' as never, at: new Date(now - 2 * HOUR) },
      { _id: 'new' as never, at: new Date(now) },
      { _id: 'undated' as never },
    ]);
    const sweeper = newSweeper([{ collection: events, dateFields: ['at'], keepMs: 2 * HOUR }], clock);
    expect(await sweeper.sweep()).to.deep.equal({ events_window: 1 });
    expect(await ids('events_window')).to.deep.equal(['edge', 'new', 'undated']);
    clock.advance(1);
    expect(await sweeper.sweep()).to.deep.equal({ events_window: 1 });
    expect(await ids('events_window')).to.deep.equal(['new', 'undated']);
  });

  it('with several date fields deletes a document when any of them is past the window; a null field keeps nothing alive and deletes nothing', async () => {
    const clock = new ManualClock();
    const now = clock.now().getTime();
    const sessions = db.collection('sessions_window');
    await sessions.insertMany([
      { _id: 'expired' as never, expiresAt: new Date(now - 2 * HOUR), endedAt: null },
      { _id: 'ended' as never, expiresAt: new Date(now + 100 * HOUR), endedAt: new Date(now - 2 * HOUR) },
      { _id: 'live' as never, expiresAt: new Date(now + 100 * HOUR), endedAt: null },
      { _id: 'recently-ended' as never, expiresAt: new Date(now + 100 * HOUR), endedAt: new Date(now - HOUR) },
    ]);
    const rules = [{ collection: sessions, dateFields: ['expiresAt', 'endedAt'], keepMs: HOUR + 1 }];
    await ensureRetentionIndexes(rules);
    const indexed = (await sessions.listIndexes().toArray()).map((index) => Object.keys(index.key as object).join(','));
    expect(indexed).to.include.members(['expiresAt', 'endedAt']);
    expect(await newSweeper(rules, clock).sweep()).to.deep.equal({ sessions_window: 2 });
    expect(await ids('sessions_window')).to.deep.equal(['live', 'recently-ended']);
  });

  it('logs a failed rule as a warning, still sweeps the others, and resolves', async () => {
    const clock = new ManualClock();
    const closed = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    const broken = closed.db(dbName).collection('broken_window');
    await closed.close();
    const healthy = db.collection('healthy_window');
    await healthy.insertOne({ _id: 'old' as never, at: new Date(clock.now().getTime() - 2 * HOUR) });
    const logger = recordingLogger();
    const sweeper = newSweeper(
      [
        { collection: broken, dateFields: ['at'], keepMs: HOUR },
        { collection: healthy, dateFields: ['at'], keepMs: HOUR },
      ],
      clock,
      logger,
    );
    expect(await sweeper.sweep()).to.deep.equal({ healthy_window: 1 });
    expect(logger.warnings).to.deep.equal(['retention sweep failed; will retry at the next interval']);
  });

  it('sweeps at start and on its interval until stopped', async () => {
    const clock = new ManualClock();
    const events = db.collection('events_timer');
    await events.insertOne({ _id: 'old' as never, at: new Date(clock.now().getTime() - 2 * HOUR) });
    const sweeper = newSweeper([{ collection: events, dateFields: ['at'], keepMs: HOUR }], clock, recordingLogger(), 50);
    sweeper.start();
    await waitFor(async () => (await events.countDocuments()) === 0, { timeoutMs: 5000 });
    await events.insertOne({ _id: 'later' as never, at: clock.now() });
    clock.advance(HOUR + 1);
    await waitFor(async () => (await events.countDocuments()) === 0, { timeoutMs: 5000 });
    await sweeper.stop();
    await events.insertOne({ _id: 'after-stop' as never, at: new Date(clock.now().getTime() - 2 * HOUR) });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await ids('events_timer')).to.deep.equal(['after-stop']);
  });

  it('refuses a rule without a positive window or a date field', () => {
    const clock = new ManualClock();
    const collection = db.collection('never');
    expect(() => newSweeper([{ collection, dateFields: ['at'], keepMs: 0 }], clock)).to.throw(/must be positive/);
    expect(() => newSweeper([{ collection, dateFields: [], keepMs: HOUR }], clock)).to.throw(/needs a date field/);
  });
});
