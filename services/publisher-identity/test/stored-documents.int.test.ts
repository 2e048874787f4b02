/**
 * The documents publisher-identity's models write hold exactly the fields their repositories give them:
 * no `__v`, `_id` of the stored type (never an ObjectId), nulls kept; and the indexes are exactly the
 * ones listed here. Read back with the raw driver, on a real FerretDB (MONGO_URL).
 */
import { connectMongo, type Connection } from '@pilot/storage';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { AccountRepository } from '../src/data/account-repository';
import { LoginRepository } from '../src/data/login-repository';
import { PublisherRepository } from '../src/data/publisher-repository';
import { SessionRepository } from '../src/data/session-repository';

describe('publisher-identity: stored documents through the models', () => {
  const infra = testInfra();
  let connection: Connection;
  const at = new Date('2026-02-01T10:00:00.000Z');
  const later = new Date('2026-02-01T10:05:00.000Z');
  const stored = (collection: string) => connection.db!.collection(collection).find({}).toArray();
  const indexKeys = async (collection: string) => (await connection.db!.collection(collection).indexes()).map((index) => [index.key, index.unique === true]);

  before(async () => {
    connection = await connectMongo({ url: infra.mongoUrl, dbName: `identity_documents_${infra.runId}` });
  });
  after(async () => {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  });

  it('writes accounts and their audit with the same fields as before', async () => {
    const accounts = new AccountRepository(connection);
    await accounts.ensureIndexes();
    await accounts.remember('42', 'Ann', at);
    await accounts.remember('42', 'Ann B', later);
    await accounts.record({ at, actorAccountId: '42', entityId: '42', action: 'signed_in' });
    expect(await stored('accounts')).to.deep.equal([{ _id: '42', createdAt: at, displayName: 'Ann B', lastSignInAt: later }]);
    const [entry] = await stored('account_audit');
    expect(typeof entry?._id).to.equal('string');
    expect({ ...entry, _id: 'random' }).to.deep.equal({
      _id: 'random',
      at,
      actorAccountId: '42',
      entity: 'account',
      entityId: '42',
      ownerAccountId: '42',
      action: 'signed_in',
      from: null,
      to: null,
      reason: null,
    });
    expect(await indexKeys('account_audit')).to.have.deep.members([
      [{ _id: 1 }, false],
      [{ ownerAccountId: 1, at: -1, _id: -1 }, false],
      [{ entityId: 1, at: -1, _id: -1 }, false],
      [{ action: 1, at: -1, _id: -1 }, false],
      [{ ownerAccountId: 1, action: 1, at: -1, _id: -1 }, false],
      [{ at: -1, _id: -1 }, false],
    ]);
  });

  it('writes login requests, their one-time claims and sessions with the same fields and indexes as before', async () => {
    const logins = new LoginRepository(connection);
    const sessions = new SessionRepository(connection);
    await logins.ensureIndexes();
    await sessions.ensureIndexes();
    await logins.create({ _id: 'r1', codeHash: 'h', bindingHash: 'b', createdAt: at, expiresAt: later, status: 'pending', accountId: null, displayName: null, confirmedAt: null });
    expect(await stored('login_requests')).to.deep.equal([
      { _id: 'r1', codeHash: 'h', bindingHash: 'b', createdAt: at, expiresAt: later, status: 'pending', accountId: null, displayName: null, confirmedAt: null },
    ]);
    await logins.markConfirmed('r1', '42', 'Ann', later);
    expect(await logins.findById('r1')).to.deep.equal({
      _id: 'r1',
      codeHash: 'h',
      bindingHash: 'b',
      createdAt: at,
      expiresAt: later,
      status: 'confirmed',
      accountId: '42',
      displayName: 'Ann',
      confirmedAt: later,
    });
    expect(await logins.claimCode('h', at, '42')).to.equal(true);
    expect(await logins.claimSessionIssue('r1', at)).to.equal(true);
    expect(await logins.claimUpdate(7, at)).to.equal(true);
    expect(await stored('login_code_uses')).to.deep.equal([{ _id: 'h', at, accountId: '42' }]);
    expect(await stored('session_issues')).to.deep.equal([{ _id: 'r1', at }]);
    expect(await stored('webhook_updates')).to.deep.equal([{ _id: 7, at }]);

    await sessions.create({ _id: 's', accountId: '42', displayName: 'Ann', createdAt: at, expiresAt: later, endedAt: null });
    expect(await sessions.find('s')).to.deep.equal({ _id: 's', accountId: '42', displayName: 'Ann', createdAt: at, expiresAt: later, endedAt: null });
    await sessions.end('s', later);
    expect(await stored('sessions')).to.deep.equal([{ _id: 's', accountId: '42', displayName: 'Ann', createdAt: at, expiresAt: later, endedAt: later }]);

    expect(await indexKeys('login_requests')).to.have.deep.members([
      [{ _id: 1 }, false],
      [{ codeHash: 1 }, true],
      [{ expiresAt: 1 }, false],
    ]);
    for (const collection of ['login_code_uses', 'session_issues', 'webhook_updates']) {
      expect(await indexKeys(collection)).to.have.deep.members([
        [{ _id: 1 }, false],
        [{ at: 1 }, false],
      ]);
    }
    expect(await indexKeys('sessions')).to.have.deep.members([
      [{ _id: 1 }, false],
      [{ accountId: 1 }, false],
      [{ expiresAt: 1 }, false],
      [{ endedAt: 1 }, false],
    ]);
  });

  it('hands out publisher ids as numbers and keeps one read model incarnation', async () => {
    const publishers = new PublisherRepository(connection);
    expect(await publishers.nextId()).to.equal(1);
    expect(await new PublisherRepository(connection).nextId()).to.equal(2);
    expect(await stored('counters')).to.deep.equal([{ _id: 'publishers', seq: 2 }]);
    const incarnation = await publishers.readModelIncarnation();
    expect(await new PublisherRepository(connection).readModelIncarnation()).to.equal(incarnation);
    const [meta] = await stored('key_read_model');
    expect(Object.keys(meta ?? {})).to.have.members(['_id', 'incarnation', 'at']);
    expect(meta?._id).to.equal('incarnation');
  });
});
