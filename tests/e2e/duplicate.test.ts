/**
 * Through the gateway: a campaign duplicated into a new draft (API.md "Workspace: campaigns", duplicate),
 * who may, its name cut to fit, the account's limit and the audit; and a platform's `statusChangedAt`,
 * which a key made later leaves where the status change put it (the review queue's order).
 */
import { ManualClock } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from './support/clients';
import { draftCampaign, type Campaign, type Publisher } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

interface AuditPage {
  items: Array<{ entity: string; entityId: string; action: string; from: string | null; to: string | null; actorAccountId: string }>;
}

describe('a campaign duplicated into a new draft, and when a platform entered its status (through the gateway)', function () {
  this.timeout(180_000);
  const clock = new ManualClock(Date.parse('2026-10-01T08:00:00Z'));
  let system: System;
  let admin: Browser;
  let ann: Browser;
  let bob: Browser;

  before(async () => {
    const absent = ['http://127.0.0.1:1'];
    system = await startSystem({
      clock,
      replicas: { allocation: 0, tracking: 0, notification: 0, web: 0 },
      external: { allocation: absent, tracking: absent, notification: absent, web: absent },
    });
    admin = await signedIn(system, ADMIN_ID);
    ann = await signedIn(system, '7601');
    bob = await signedIn(system, '7602');
  });

  after(async () => {
    await system?.stop();
  });

  it('makes the owner a draft with the same creative inputs, named as a copy, replacing nothing, with its audit entry', async () => {
    const source = await draftCampaign(ann, { name: 'Spring sale', title: 'Spring title', imageUrl: 'https://img.example/spring.png', language: 'de' });
    const replacement = await draftCampaign(ann, { name: 'Spring sale v2', replaces: source.id });
    expect((await ann.post(`/api/workspace/campaigns/${source.id}/submit`)).status).to.equal(200);
    clock.advance(60_000);

    for (const original of [source, replacement]) {
      const copy = await ann.post<Campaign & Record<string, unknown>>(`/api/workspace/campaigns/${original.id}/duplicate`);
      expect(copy.status, copy.text).to.equal(201);
      expect(copy.body.id).to.not.equal(original.id);
      expect(copy.body.status).to.equal('draft');
      expect(copy.body.name).to.equal(`${original.name} (copy)`);
      expect(copy.body.replaces, 'a duplicate replaces nothing').to.equal(null);
      for (const field of ['format', 'title', 'text', 'destinationUrl', 'buttonText', 'imageUrl', 'language'] as const) {
        expect(copy.body[field], field).to.deep.equal((original as unknown as Record<string, unknown>)[field]);
      }
      const read = await ann.get<Campaign>(`/api/workspace/campaigns/${copy.body.id}`);
      expect(read.status).to.equal(200);
      expect(read.body.name).to.equal(copy.body.name);
      const audit = await ann.get<AuditPage>(`/api/workspace/audit?entity=campaign&entityId=${copy.body.id}`);
      expect(audit.status, audit.text).to.equal(200);
      expect(audit.body.items.map((item) => [item.action, item.from, item.to, item.actorAccountId])).to.deep.equal([['duplicated', null, 'draft', '7601']]);
    }
  });

  it('cuts a long name so that the copy keeps to 100 characters', async () => {
    const long = `${'é'.repeat(95)}👍🏽xyz`;
    const source = await draftCampaign(ann, { name: long });
    const copy = await ann.post<Campaign>(`/api/workspace/campaigns/${source.id}/duplicate`);
    expect(copy.status, copy.text).to.equal(201);
    expect(copy.body.name).to.equal(`${'é'.repeat(93)} (copy)`);
    const short = await draftCampaign(ann, { name: `${'a'.repeat(92)}👍🏽` });
    const shortCopy = await ann.post<Campaign>(`/api/workspace/campaigns/${short.id}/duplicate`);
    expect(shortCopy.body.name, 'an emoji with its modifier is one character, kept whole').to.equal(`${'a'.repeat(92)}👍🏽 (copy)`);
  });

  it('answers 404 to anyone but the owner, administrators included, and for a campaign that is not there', async () => {
    const source = await draftCampaign(ann, { name: 'Ann only' });
    for (const who of [bob, admin]) {
      const refused = await who.post<{ code: string }>(`/api/workspace/campaigns/${source.id}/duplicate`);
      expect(refused.status, refused.text).to.equal(404);
      expect(refused.body.code).to.equal('campaign_not_found');
    }
    const missing = await ann.post<{ code: string }>('/api/workspace/campaigns/99999999/duplicate');
    expect(missing.status).to.equal(404);
    const bad = await ann.post<{ code: string }>('/api/workspace/campaigns/abc/duplicate');
    expect(bad.status, bad.text).to.be.oneOf([400, 404]);
  });

  it('counts a duplicate toward the account\'s 100 records: the 101st is 409 campaign_limit', async () => {
    const carol = await signedIn(system, '7603');
    const first = await draftCampaign(carol, { name: 'Carol 0' });
    for (let index = 1; index < 100; index += 1) {
      const copy = await carol.post(`/api/workspace/campaigns/${first.id}/duplicate`);
      expect(copy.status, `copy ${index}: ${copy.text}`).to.equal(201);
    }
    const over = await carol.post<{ code: string }>(`/api/workspace/campaigns/${first.id}/duplicate`);
    expect(over.status, over.text).to.equal(409);
    expect(over.body.code).to.equal('campaign_limit');
  });

  it('keeps when a platform entered its status apart from a test key made since', async () => {
    const created = await bob.post<Publisher & { statusChangedAt?: string; updatedAt: string }>('/api/workspace/publishers', { type: 'channel', link: 'https://t.me/duplicate_status_channel' });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.statusChangedAt).to.equal(created.body.createdAt);
    clock.advance(60_000);
    const submitted = await bob.post<{ statusChangedAt?: string }>(`/api/workspace/publishers/${created.body.id}/submit`);
    expect(submitted.status).to.equal(200);
    const submittedAt = submitted.body.statusChangedAt;
    expect(submittedAt).to.equal(clock.now().toISOString());
    clock.advance(60_000);
    expect((await bob.post(`/api/workspace/publishers/${created.body.id}/test-key`)).status).to.equal(201);
    const read = await admin.get<{ statusChangedAt?: string; updatedAt: string }>(`/api/workspace/publishers/${created.body.id}`);
    expect(read.body.statusChangedAt, 'the test key does not move it').to.equal(submittedAt);
    expect(read.body.updatedAt).to.not.equal(submittedAt);
    const listed = await admin.get<{ items: Array<{ id: number; statusChangedAt?: string }> }>('/api/workspace/publishers?status=submitted');
    expect(listed.body.items.find((item) => item.id === created.body.id)?.statusChangedAt).to.equal(submittedAt);
  });
});
