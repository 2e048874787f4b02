/**
 * Keys that roll, through the gateway (API.md "Workspace: publisher platforms"): a new live key with
 * `previousKeyGraceSeconds` leaves the replaced key working that long, by the services' clock, so a deploy of
 * the new key fails no request; at most one previous key (generating again ends the older at once); the owner
 * ends it now with DELETE .../keys/previous; a pause or a rejection stops both keys at once; without a grace
 * period the replaced key stops before the answer, as SPEC.md says. Each step is in the audit.
 */
import { ManualClock } from '@pilot/testkit';
import { expect } from 'chai';
import { PublisherServer, signedIn, type Browser } from './support/clients';
import { activeCampaign, approvedPublisher } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

interface IssuedLiveKey {
  key: string;
  keyCreatedAt: string;
  previousKeyExpiresAt: string | null;
}

describe('keys that roll without downtime (through the gateway)', function () {
  this.timeout(180_000);
  const clock = new ManualClock(Date.parse('2026-10-01T08:00:00Z'));
  let system: System;
  let admin: Browser;
  let owner: Browser;

  before(async () => {
    system = await startSystem({ clock });
    admin = await signedIn(system, ADMIN_ID);
    owner = await signedIn(system, '7501');
    await activeCampaign(await signedIn(system, '7502'), admin, { language: 'en' });
  });

  after(async () => {
    await system?.stop();
  });

  const works = async (key: string): Promise<boolean> => {
    const answer = await new PublisherServer(system, key).ad('en');
    expect([200, 401], JSON.stringify(answer.body)).to.include(answer.status);
    return answer.status === 200;
  };
  const codeOf = async (key: string): Promise<string | undefined> => ((await new PublisherServer(system, key).ad('en')).body as { code?: string } | null)?.code;
  const generate = async (id: number, body?: unknown): Promise<IssuedLiveKey> => {
    const answer = await owner.post<IssuedLiveKey>(`/api/workspace/publishers/${id}/keys`, body);
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  };
  const auditActions = async (id: number): Promise<string[]> =>
    (await owner.get<{ items: Array<{ action: string }> }>(`/api/workspace/audit?entity=publisher&entityId=${id}`)).body.items.map((item) => item.action);

  it('keeps the replaced key working for its grace period, then refuses it by the clock; the new key works at once', async () => {
    const { publisher, server } = await approvedPublisher(system, owner, admin);
    const first = server.key;
    const rolled = await generate(publisher.id, { previousKeyGraceSeconds: 600 });
    expect(rolled.previousKeyExpiresAt).to.equal(new Date(clock.now().getTime() + 600_000).toISOString());
    expect(rolled.keyCreatedAt).to.equal(clock.now().toISOString());
    expect(await works(rolled.key), 'the new key').to.equal(true);
    expect(await works(first), 'the replaced key, within its grace period').to.equal(true);
    expect((await owner.get(`/api/workspace/publishers/${publisher.id}`)).body).to.include({ previousKeyExpiresAt: rolled.previousKeyExpiresAt });
    expect((await auditActions(publisher.id))[0]).to.equal('key_rolled');

    clock.advance(599_000);
    expect(await works(first), 'a second before its expiry').to.equal(true);
    clock.advance(1_000);
    expect(await codeOf(first), 'at its expiry').to.equal('invalid_key');
    expect(await works(rolled.key)).to.equal(true);
    expect((await owner.get(`/api/workspace/publishers/${publisher.id}`)).body).to.include({ previousKeyExpiresAt: null });
  });

  it('holds at most one previous key: generating again ends the older one at once', async () => {
    const { publisher, server } = await approvedPublisher(system, owner, admin);
    const second = await generate(publisher.id, { previousKeyGraceSeconds: 3600 });
    const third = await generate(publisher.id, { previousKeyGraceSeconds: 3600 });
    expect(await codeOf(server.key), 'the older previous key').to.equal('invalid_key');
    expect(await works(second.key), 'the previous key').to.equal(true);
    expect(await works(third.key), 'the current key').to.equal(true);
    const plain = await generate(publisher.id);
    expect(plain.previousKeyExpiresAt, 'no grace: nothing keeps working').to.equal(null);
    expect(await codeOf(second.key)).to.equal('invalid_key');
    expect(await codeOf(third.key), 'the replaced key stops before the answer').to.equal('invalid_key');
    expect(await works(plain.key)).to.equal(true);
    expect((await auditActions(publisher.id)).slice(0, 3)).to.deep.equal(['key_rotated', 'key_rolled', 'key_rolled']);
  });

  it('ends the previous key now on DELETE .../keys/previous (owner only), before the answer', async () => {
    const { publisher, server } = await approvedPublisher(system, owner, admin);
    const next = await generate(publisher.id, { previousKeyGraceSeconds: 86_400 });
    expect(await works(server.key)).to.equal(true);
    expect((await admin.call('DELETE', `/api/workspace/publishers/${publisher.id}/keys/previous`)).status, 'an administrator').to.equal(403);
    expect(await works(server.key)).to.equal(true);
    const ended = await owner.call('DELETE', `/api/workspace/publishers/${publisher.id}/keys/previous`);
    expect(ended.status).to.equal(204);
    expect(await codeOf(server.key)).to.equal('invalid_key');
    expect(await works(next.key)).to.equal(true);
    expect((await owner.call('DELETE', `/api/workspace/publishers/${publisher.id}/keys/previous`)).status, 'none left').to.equal(204);
    expect((await owner.get(`/api/workspace/publishers/${publisher.id}`)).body).to.include({ previousKeyExpiresAt: null });
    expect((await auditActions(publisher.id))[0]).to.equal('previous_key_revoked');
    const stranger = await signedIn(system, '7599');
    expect((await stranger.call('DELETE', `/api/workspace/publishers/${publisher.id}/keys/previous`)).status).to.equal(404);
  });

  it('stops the current and the previous key at once on a pause or a rejection, and a rejection revokes both for good', async () => {
    const { publisher, server } = await approvedPublisher(system, owner, admin);
    const next = await generate(publisher.id, { previousKeyGraceSeconds: 3600 });
    expect((await admin.post(`/api/workspace/publishers/${publisher.id}/pause`)).status).to.equal(200);
    expect(await codeOf(server.key), 'the previous key, paused').to.equal('publisher_not_approved');
    expect(await codeOf(next.key), 'the current key, paused').to.equal('publisher_not_approved');
    expect((await admin.post(`/api/workspace/publishers/${publisher.id}/approve`)).status).to.equal(200);
    expect(await works(server.key), 'approved again, within the grace period').to.equal(true);
    expect((await admin.post(`/api/workspace/publishers/${publisher.id}/reject`, { reason: 'ownership not shown' })).status).to.equal(200);
    expect(await works(server.key)).to.equal(false);
    expect(await works(next.key)).to.equal(false);
    // A rejection revokes both for good: approved again, within the grace period, neither works.
    expect((await owner.post(`/api/workspace/publishers/${publisher.id}/submit`)).status).to.equal(200);
    expect((await admin.post(`/api/workspace/publishers/${publisher.id}/approve`)).status).to.equal(200);
    expect(await codeOf(server.key), 'the previous key after a rejection').to.equal('invalid_key');
    expect(await codeOf(next.key), 'the current key after a rejection').to.equal('invalid_key');
    expect((await owner.get(`/api/workspace/publishers/${publisher.id}`)).body).to.include({ previousKeyExpiresAt: null, keyCreatedAt: null });
  });

  it('refuses a grace period that is not a whole number of seconds from 0 to 86400 with 422', async () => {
    const { publisher, server } = await approvedPublisher(system, owner, admin);
    for (const previousKeyGraceSeconds of [-1, 86_401, 1.5, '60', true]) {
      const answer = await owner.post<{ code: string; errors: Array<{ field: string }> }>(`/api/workspace/publishers/${publisher.id}/keys`, { previousKeyGraceSeconds });
      expect(answer.status, String(previousKeyGraceSeconds)).to.equal(422);
      expect(answer.body.code).to.equal('validation_failed');
      expect(answer.body.errors.map((error) => error.field)).to.deep.equal(['previousKeyGraceSeconds']);
    }
    expect(await works(server.key), 'nothing changed').to.equal(true);
  });
});
