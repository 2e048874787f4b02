import { ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { connectMongo, createDeclaredIndexes, modelOf, RetentionSweeper, retentionRule, storedSchema, type Connection, type RetentionRule, type SweepLogger } from '../../src';

interface Event {
  _id: string;
  at?: Date;
}
interface Session {
  _id: string;
  expiresAt: Date;
  endedAt: Date | null;
}
const eventSchema = storedSchema<Event>({ _id: { type: String, required: true }, at: Date }, [[{ at: 1 }]]);
const sessionSchema = storedSchema<Session>({ _id: { type: String, required: true }, expiresAt: Date, endedAt: Date }, [[{ expiresAt: 1 }], [{ endedAt: 1 }]]);

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
  let connection: Connection;
  const events = (name: string) => modelOf(connection, name, eventSchema);
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
    connection = await connectMongo({ url: infra.mongoUrl, dbName });
  });
  after(async () => {
    await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
    await db.dropDatabase().catch(() => undefined);
    await client.close();
    await connection.close();
  });

  it('deletes in one sweep what is older than the window and keeps what is inside it, by the injected clock', async () => {
    const clock = new ManualClock();
    const now = clock.now().getTime();
    await db.collection('events_window').insertMany([
      { _id: 'old' as never, at: new Date(now - 2 * HOUR - 1) },
      { _id: 'edge' as never, at: new Date(now - 2 * HOUR) },
      { _id: 'new' as never, at: new Date(now) },
      { _id: 'undated' as never },
    ]);
    const sweeper = newSweeper([retentionRule(events('events_window'), ['at'], 2 * HOUR)], clock);
    expect(await sweeper.sweep()).to.deep.equal({ events_window: 1 });
    expect(await ids('events_window')).to.deep.equal(['edge', 'new', 'undated']);
    clock.advance(1);
    expect(await sweeper.sweep()).to.deep.equal({ events_window: 1 });
    expect(await ids('events_window')).to.deep.equal(['new', 'undated']);
  });

  it('with several date fields deletes a document when any of them is past the window; a null field keeps nothing alive and deletes nothing', async () => {
    const clock = new ManualClock();
    const now = clock.now().getTime();
    await db.collection('sessions_window').insertMany([
      { _id: 'expired' as never, expiresAt: new Date(now - 2 * HOUR), endedAt: null },
      { _id: 'ended' as never, expiresAt: new Date(now + 100 * HOUR), endedAt: new Date(now - 2 * HOUR) },
      { _id: 'live' as never, expiresAt: new Date(now + 100 * HOUR), endedAt: null },
      { _id: 'recently-ended' as never, expiresAt: new Date(now + 100 * HOUR), endedAt: new Date(now - HOUR) },
    ]);
    const sessions = modelOf(connection, 'sessions_window', sessionSchema);
    const rules = [retentionRule(sessions, ['expiresAt', 'endedAt'], HOUR + 1)];
    await createDeclaredIndexes(sessions);
    const indexed = (await db.collection('sessions_window').listIndexes().toArray()).map((index) => Object.keys(index.key as object).join(','));
    expect(indexed).to.include.members(['expiresAt', 'endedAt']);
    expect(await newSweeper(rules, clock).sweep()).to.deep.equal({ sessions_window: 2 });
    expect(await ids('sessions_window')).to.deep.equal(['live', 'recently-ended']);
  });

  it('logs a failed rule as a warning, still sweeps the others, and resolves', async () => {
    const clock = new ManualClock();
    const closed = await connectMongo({ url: infra.mongoUrl, dbName });
    const broken = modelOf(closed, 'broken_window', eventSchema);
    await closed.close();
    await db.collection('healthy_window').insertOne({ _id: 'old' as never, at: new Date(clock.now().getTime() - 2 * HOUR) });
    const logger = recordingLogger();
    const sweeper = newSweeper(
      [
        retentionRule(broken, ['at'], HOUR),
        retentionRule(events('healthy_window'), ['at'], HOUR),
      ],
      clock,
      logger,
    );
    expect(await sweeper.sweep()).to.deep.equal({ healthy_window: 1 });
    expect(logger.warnings).to.deep.equal(['retention sweep failed; will retry at the next interval']);
  });

  it('sweeps at start and on its interval until stopped', async () => {
    const clock = new ManualClock();
    const timed = db.collection('events_timer');
    await timed.insertOne({ _id: 'old' as never, at: new Date(clock.now().getTime() - 2 * HOUR) });
    const sweeper = newSweeper([retentionRule(events('events_timer'), ['at'], HOUR)], clock, recordingLogger(), 50);
    sweeper.start();
    await waitFor(async () => (await timed.countDocuments()) === 0, { timeoutMs: 5000 });
    await timed.insertOne({ _id: 'later' as never, at: clock.now() });
    clock.advance(HOUR + 1);
    await waitFor(async () => (await timed.countDocuments()) === 0, { timeoutMs: 5000 });
    await sweeper.stop();
    await timed.insertOne({ _id: 'after-stop' as never, at: new Date(clock.now().getTime() - 2 * HOUR) });
    // That a stopped sweeper does nothing has no event to wait for: five intervals (50 ms) pass with the record kept.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await ids('events_timer')).to.deep.equal(['after-stop']);
  });

  it('refuses a rule without a positive window or a date field, or on a date field its schema does not index', () => {
    const clock = new ManualClock();
    const never = events('never');
    expect(() => newSweeper([retentionRule(never, ['at'], 0)], clock)).to.throw(/must be positive/);
    expect(() => newSweeper([retentionRule(never, [], HOUR)], clock)).to.throw(/needs a date field/);
    const unindexed = modelOf(connection, 'unindexed', storedSchema<Event>({ _id: String, at: Date }));
    expect(() => retentionRule(unindexed, ['at'], HOUR)).to.throw(/sweeps on at, which its schema does not index/);
  });
});
