/**
 * The workspace's lists and the audit through the gateway, paged by cursor (API.md "Workspace: campaigns",
 * "publisher platforms", "totals and audit"): every page to the end with no duplicate and no gap while
 * records are created between pages, ties at one instant by id, the filters combined, the search
 * case-insensitive and literal, who sees what, and the refusals of a bad limit, cursor, status, search or
 * owner. One clock for every service, moved by the test, so records share instants on purpose.
 */
import { ManualClock } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Answer, type Browser } from './support/clients';
import { campaignInput, draftCampaign, type Campaign, type Publisher } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface AuditEntry {
  at: string;
  entity: string;
  entityId: string;
  action: string;
  actorAccountId: string;
}

/** Every page of `path` (which has its own `?`), `limit` at a time, running `between` after each page. */
async function allPages<T>(who: Browser, path: string, limit: number, between: () => Promise<void> = async () => undefined): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const answer: Answer<Page<T>> = await who.get<Page<T>>(`${path}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.items.length).to.be.at.most(limit);
    items.push(...answer.body.items);
    pages += 1;
    cursor = answer.body.nextCursor;
    if (cursor !== null) expect(answer.body.items, 'a page with a next one is full').to.have.length(limit);
    await between();
  } while (cursor !== null && pages < 100);
  return { items, pages };
}

const idsOf = (items: Array<{ id: number }>) => items.map((item) => item.id);

describe('lists and audit paged through the gateway', function () {
  this.timeout(180_000);
  const clock = new ManualClock(Date.parse('2026-09-01T08:00:00Z'));
  let system: System;
  let admin: Browser;
  let ann: Browser;
  let bob: Browser;
  const annCampaigns: Campaign[] = [];
  const bobCampaigns: Campaign[] = [];

  before(async () => {
    // The services of the lists and the audit; the others are not needed (the gateway gets a closed port).
    const absent = ['http://127.0.0.1:1'];
    system = await startSystem({
      clock,
      replicas: { allocation: 0, tracking: 0, notification: 0, web: 0 },
      external: { allocation: absent, tracking: absent, notification: absent, web: absent },
    });
    admin = await signedIn(system, ADMIN_ID);
    ann = await signedIn(system, '7101');
    bob = await signedIn(system, '7102');
    // Ann's seven campaigns: three at one instant, the others a minute apart; Bob's two, between them.
    for (let index = 0; index < 7; index += 1) {
      if (index !== 1 && index !== 2) clock.advance(60_000);
      annCampaigns.push(await draftCampaign(ann, { name: `Ann spring ${index}`, title: index === 4 ? 'Promo (50%) a.b* [x]' : `Lessons ${index}` }));
      if (index === 3) bobCampaigns.push(await draftCampaign(bob, { name: 'Bob SPRING sale' }), await draftCampaign(bob, { name: 'Bob autumn' }));
    }
  });

  after(async () => {
    await system?.stop();
  });

  describe('campaigns', () => {
    it('pages an owner\'s campaigns newest first, ties by id, to the end with no duplicate or gap while campaigns are created between pages', async () => {
      const createdAt = (campaign: Campaign) => String(campaign.createdAt);
      const expected = [...annCampaigns].sort((a, b) => (createdAt(a) === createdAt(b) ? b.id - a.id : createdAt(a) < createdAt(b) ? 1 : -1));
      const created: Campaign[] = [];
      const paged = await allPages<Campaign>(ann, '/api/workspace/campaigns?', 2, async () => {
        clock.advance(1_000);
        created.push(await draftCampaign(ann, { name: `Ann created while paging ${created.length}` }));
      });
      expect(paged.pages).to.equal(4);
      expect(idsOf(paged.items), 'the records as they were at the first page, in order').to.deep.equal(idsOf(expected));
      // The first page again starts with what was created meanwhile.
      const first = await ann.get<Page<Campaign>>('/api/workspace/campaigns?limit=2');
      expect(idsOf(first.body.items)).to.deep.equal(idsOf(created.slice(-2).reverse()));
      annCampaigns.push(...created);
    });

    it('gives 50 by default and at most 100, and an administrator the whole network', async () => {
      const own = await ann.get<Page<Campaign>>('/api/workspace/campaigns');
      expect(own.body.items.every((item) => item.ownerAccountId === '7101')).to.equal(true);
      expect(own.body.items).to.have.length(annCampaigns.length);
      expect(own.body.nextCursor).to.equal(null);
      const network = await allPages<Campaign>(admin, '/api/workspace/campaigns?', 100);
      expect(idsOf(network.items)).to.include.members([...idsOf(annCampaigns), ...idsOf(bobCampaigns)]);
    });

    it('combines the status, owner and search filters, the search case-insensitive, on name or title, its characters literal', async () => {
      const submitted = annCampaigns[0] as Campaign;
      expect((await ann.post(`/api/workspace/campaigns/${submitted.id}/submit`)).status).to.equal(200);
      const search = async (who: Browser, query: string) => idsOf((await who.get<Page<Campaign>>(`/api/workspace/campaigns?${query}`)).body.items);

      expect(await search(ann, 'status=submitted')).to.deep.equal([submitted.id]);
      expect(await search(ann, 'status=draft&q=SPRING%200')).to.deep.equal([]);
      expect(await search(admin, `ownerAccountId=7101&status=submitted&q=spring`)).to.deep.equal([submitted.id]);
      expect(await search(admin, 'ownerAccountId=7102&q=spring')).to.deep.equal([bobCampaigns[0]?.id]);
      expect(await search(admin, 'q=bob%20spring')).to.deep.equal([bobCampaigns[0]?.id]);
      // Title, with regular-expression characters taken literally.
      expect(await search(ann, `q=${encodeURIComponent('(50%) A.B* [X]')}`)).to.deep.equal([annCampaigns[4]?.id]);
      expect(await search(ann, `q=${encodeURIComponent('a.b')}`)).to.deep.equal([annCampaigns[4]?.id]);
      expect(await search(ann, `q=${encodeURIComponent('a?b')}`)).to.deep.equal([]);
      expect(await search(ann, `q=${encodeURIComponent('.*')}`)).to.deep.equal([]);
      // Searching pages too.
      const paged = await allPages<Campaign>(ann, '/api/workspace/campaigns?q=ann%20SPRING', 3);
      expect(idsOf(paged.items)).to.have.members(idsOf(annCampaigns.filter((campaign) => String(campaign.name).startsWith('Ann spring'))));
    });

    it('keeps an owner to its own records: its own id changes nothing, another account\'s is refused', async () => {
      const own = await ann.get<Page<Campaign>>('/api/workspace/campaigns?ownerAccountId=7101&limit=100');
      expect(own.status).to.equal(200);
      expect(idsOf(own.body.items)).to.have.members(idsOf(annCampaigns));
      const other = await ann.get('/api/workspace/campaigns?ownerAccountId=7102');
      expect([other.status, other.body.code]).to.deep.equal([403, 'admin_only']);
      expect(JSON.stringify((await bob.get('/api/workspace/campaigns?limit=100')).body)).to.not.contain('Ann spring');
    });

    it('refuses a bad limit, cursor, status, search or owner with 400 problem+json and a stable code', async () => {
      const auditCursor = (await admin.get<Page<AuditEntry>>('/api/workspace/audit?limit=1')).body.nextCursor;
      const refusals: Array<[string, string]> = [
        ['limit=0', 'invalid_limit'],
        ['limit=101', 'invalid_limit'],
        ['limit=ten', 'invalid_limit'],
        ['limit=1&limit=2', 'invalid_limit'],
        ['cursor=nonsense', 'invalid_cursor'],
        ['cursor=%7B%7D', 'invalid_cursor'],
        [`cursor=${encodeURIComponent(String(auditCursor))}`, 'invalid_cursor'],
        ['status=archived', 'invalid_status'],
        [`q=${'x'.repeat(101)}`, 'invalid_search'],
        ['ownerAccountId=someone', 'invalid_owner_account_id'],
      ];
      for (const [query, code] of refusals) {
        const answer = await admin.get(`/api/workspace/campaigns?${query}`);
        expect([answer.status, answer.body.code], query).to.deep.equal([400, code]);
        expect(answer.headers.get('content-type'), query).to.contain('application/problem+json');
      }
    });

    it('pages oldest first as well, counts what the filters match, and narrows to named ids (one call for the records of a page)', async () => {
      const all = (await allPages<Campaign>(ann, '/api/workspace/campaigns?', 100)).items;
      const newest = idsOf(all);
      const springs = all.filter((campaign) => /spring/i.test(String(campaign.name)) || /spring/i.test(String(campaign.title))).length;
      const oldest = await allPages<Campaign>(ann, '/api/workspace/campaigns?sort=oldest', 2);
      expect(idsOf(oldest.items), 'the same records, the other way round, ties by id ascending').to.deep.equal([...newest].reverse());
      const counted = await ann.get<Page<Campaign> & { total: number; totalCapped: boolean }>('/api/workspace/campaigns?count=true&limit=2&q=spring');
      expect([counted.body.items.length, counted.body.total, counted.body.totalCapped]).to.deep.equal([2, springs, false]);
      const uncounted = await ann.get<Record<string, unknown>>('/api/workspace/campaigns?limit=1');
      expect(uncounted.body, 'no count unless asked').to.not.have.property('total');
      const asked = [annCampaigns[0]!.id, annCampaigns[5]!.id, bobCampaigns[0]!.id];
      const named = await ann.get<Page<Campaign> & { total: number }>(`/api/workspace/campaigns?ids=${asked.join(',')}&count=true`);
      expect([idsOf(named.body.items), named.body.total], 'another owner\'s id is not answered').to.deep.equal([[annCampaigns[5]!.id, annCampaigns[0]!.id], 2]);
      const byAdmin = await admin.get<Page<Campaign>>(`/api/workspace/campaigns?ids=${asked.join(',')}&q=spring`);
      expect(idsOf(byAdmin.body.items).sort((a, b) => a - b)).to.deep.equal([...asked].sort((a, b) => a - b));
      const tooMany = Array.from({ length: 101 }, (_, index) => index + 1).join(',');
      for (const [query, code] of [['sort=name', 'invalid_sort'], ['ids=1,x', 'invalid_ids'], [`ids=${tooMany}`, 'invalid_ids'], ['count=yes', 'invalid_count']] as const) {
        const answer = await ann.get(`/api/workspace/campaigns?${query}`);
        expect([answer.status, answer.body.code], query).to.deep.equal([400, code]);
        const platforms = await ann.get(`/api/workspace/publishers?${query}`);
        expect([platforms.status, platforms.body.code], query).to.deep.equal([400, code]);
      }
    });
  });

  describe('publisher platforms', () => {
    const annPlatforms: Publisher[] = [];

    before(async () => {
      for (const link of ['@Ann_News_bot', '@ann_weather_bot', 'https://t.me/ann_channel', '@ann_a_b_bot']) {
        clock.advance(30_000);
        const created = await ann.post<Publisher>('/api/workspace/publishers', { type: link.startsWith('@') ? 'bot' : 'channel', link });
        expect(created.status, created.text).to.equal(201);
        annPlatforms.push(created.body);
      }
      expect((await bob.post('/api/workspace/publishers', { type: 'bot', link: '@bob_news_bot' })).status).to.equal(201);
    });

    it('pages, filters and searches the links like the campaigns', async () => {
      const created: Publisher[] = [];
      const paged = await allPages<Publisher>(ann, '/api/workspace/publishers?', 3, async () => {
        clock.advance(1_000);
        const made = await ann.post<Publisher>('/api/workspace/publishers', { type: 'bot', link: `@ann_late_${created.length}_bot` });
        created.push(made.body);
      });
      expect(idsOf(paged.items)).to.deep.equal(idsOf([...annPlatforms].reverse()));
      const search = async (who: Browser, query: string) => idsOf((await who.get<Page<Publisher>>(`/api/workspace/publishers?${query}`)).body.items);
      expect(await search(ann, 'q=NEWS')).to.deep.equal([annPlatforms[0]?.id]);
      expect(await search(admin, 'q=news&limit=100')).to.have.length.at.least(2);
      expect(await search(admin, 'q=news&ownerAccountId=7101')).to.deep.equal([annPlatforms[0]?.id]);
      expect(await search(ann, `q=${encodeURIComponent('a_b')}`)).to.deep.equal([annPlatforms[3]?.id]);
      expect(await search(ann, `q=${encodeURIComponent('a.b')}`)).to.deep.equal([]);
      expect(await search(ann, 'status=draft&q=channel')).to.deep.equal([annPlatforms[2]?.id]);
      expect(await search(ann, 'status=submitted')).to.deep.equal([]);
      const other = await ann.get('/api/workspace/publishers?ownerAccountId=7102');
      expect([other.status, other.body.code]).to.deep.equal([403, 'admin_only']);
      for (const [query, code] of [['limit=0', 'invalid_limit'], ['cursor=abc', 'invalid_cursor'], ['status=active', 'invalid_status']] as const) {
        const answer = await ann.get(`/api/workspace/publishers?${query}`);
        expect([answer.status, answer.body.code], query).to.deep.equal([400, code]);
      }
    });
  });

  describe('audit', () => {
    it('pages the whole audit down to the oldest entry, across services, with no duplicate or gap while entries are written between pages', async () => {
      // Entries of three services at one instant: a campaign's, a platform's and a sign-in.
      clock.advance(60_000);
      await draftCampaign(bob, campaignInput({ name: 'Bob same instant' }));
      expect((await bob.post('/api/workspace/publishers', { type: 'bot', link: '@bob_same_instant_bot' })).status).to.equal(201);
      await signedIn(system, '7102');

      const whole = await allPages<AuditEntry>(admin, '/api/workspace/audit?', 100);
      const keyOf = (entry: AuditEntry) => JSON.stringify(entry);
      expect(new Set(whole.items.map(keyOf)).size, 'no entry twice').to.equal(whole.items.length);
      const times = whole.items.map((entry) => entry.at);
      expect([...times].sort().reverse()).to.deep.equal(times);
      expect([...new Set(whole.items.map((entry) => entry.entity))]).to.include.members(['campaign', 'publisher', 'account']);
      expect(whole.items.length).to.be.greaterThan(20);

      let written = 0;
      const small = await allPages<AuditEntry>(admin, '/api/workspace/audit?', 4, async () => {
        clock.advance(1_000);
        written += 1;
        annCampaigns.push(await draftCampaign(ann, { name: `Ann while the audit pages ${written}` }));
      });
      expect(small.items.map(keyOf), 'page by page: the audit as it was at the first page').to.deep.equal(whole.items.map(keyOf));
      const newest = await admin.get<Page<AuditEntry>>('/api/workspace/audit?limit=1');
      expect(newest.body.items[0]).to.include({ entity: 'campaign', action: 'created' });
    });

    it('shows an account the entries of its own records only, paged as well, and narrows to one record', async () => {
      const annAudit = await allPages<AuditEntry>(ann, '/api/workspace/audit?', 5);
      const bobAudit = await allPages<AuditEntry>(bob, '/api/workspace/audit?', 5);
      const annCampaignIds = new Set(annCampaigns.map((campaign) => String(campaign.id)));
      expect(annAudit.items.filter((entry) => entry.entity === 'campaign').every((entry) => annCampaignIds.has(entry.entityId))).to.equal(true);
      expect(annAudit.items.filter((entry) => entry.entity === 'account').every((entry) => entry.entityId === '7101')).to.equal(true);
      expect(bobAudit.items.some((entry) => annCampaignIds.has(entry.entityId) && entry.entity === 'campaign')).to.equal(false);
      const one = annCampaigns[0] as Campaign;
      const record = await ann.get<Page<AuditEntry>>(`/api/workspace/audit?entity=campaign&entityId=${one.id}`);
      expect(record.body.items.map((entry) => entry.action)).to.deep.equal(['submitted', 'created']);
      expect(record.body.nextCursor).to.equal(null);
      expect((await bob.get<Page<AuditEntry>>(`/api/workspace/audit?entity=campaign&entityId=${one.id}`)).body.items).to.deep.equal([]);
    });

    it('narrows the audit to an action and a period of UTC days, across services, paged as well', async () => {
      const whole = (await allPages<AuditEntry>(admin, '/api/workspace/audit?', 100)).items;
      const submitted = await allPages<AuditEntry>(admin, '/api/workspace/audit?action=submitted', 2);
      expect(submitted.items, 'the submissions, in the audit\'s order').to.deep.equal(whole.filter((entry) => entry.action === 'submitted'));
      expect(submitted.items.length).to.be.greaterThan(0);
      const byAnn = whole.find((entry) => entry.actorAccountId === '7101') as AuditEntry & { actorName?: string };
      expect(byAnn.actorName, 'who acted, by the name the account signed in with').to.be.a('string').and.not.equal('');
      const day = whole[0]!.at.slice(0, 10);
      const today = await allPages<AuditEntry>(admin, `/api/workspace/audit?from=${day}&to=${day}`, 7);
      expect(today.items).to.deep.equal(whole.filter((entry) => entry.at.slice(0, 10) === day));
      const before = (await admin.get<Page<AuditEntry>>('/api/workspace/audit?to=2026-08-31')).body.items;
      expect(before, 'nothing before the first change').to.deep.equal([]);
      const signIns = (await ann.get<Page<AuditEntry>>(`/api/workspace/audit?entity=account&action=${whole.find((entry) => entry.entity === 'account')!.action}`)).body.items;
      expect(signIns.length).to.be.greaterThan(0);
      expect(signIns.every((entry) => entry.entity === 'account' && entry.entityId === '7101')).to.equal(true);
      for (const [query, code] of [['action=Not%20one', 'invalid_action'], ['from=2026-13-01', 'invalid_date'], ['to=yesterday', 'invalid_date'], ['from=2026-09-02&to=2026-09-01', 'invalid_date_range']] as const) {
        const answer = await ann.get(`/api/workspace/audit?${query}`);
        expect([answer.status, answer.body.code], query).to.deep.equal([400, code]);
      }
    });

    it('names to an owner its own account only, an administrator as no one (the pages say "an administrator")', async () => {
      const rejected = await admin.post(`/api/workspace/campaigns/${annCampaigns[0]!.id}/reject`, { reason: 'Names in the audit' });
      expect(rejected.status, rejected.text).to.be.oneOf([200, 202]);
      const annWhole = (await allPages<AuditEntry>(ann, '/api/workspace/audit?', 100)).items as Array<AuditEntry & { actorName?: string }>;
      const byAdmin = annWhole.filter((entry) => entry.actorAccountId === ADMIN_ID);
      expect(byAdmin.map((entry) => entry.action), 'the rejection is in Ann\'s audit').to.include('rejected');
      expect(byAdmin.every((entry) => entry.actorName === undefined), 'no administrator named to an owner').to.equal(true);
      expect(annWhole.filter((entry) => entry.actorAccountId === '7101').every((entry) => typeof entry.actorName === 'string')).to.equal(true);
      const adminWhole = (await allPages<AuditEntry>(admin, '/api/workspace/audit?action=rejected', 100)).items as Array<AuditEntry & { actorName?: string }>;
      expect(adminWhole.find((entry) => entry.actorAccountId === ADMIN_ID)?.actorName, 'an administrator reads every name').to.be.a('string');
    });

    it('refuses a bad limit or cursor with 400 problem+json', async () => {
      const listCursor = (await ann.get<Page<Campaign>>('/api/workspace/campaigns?limit=1')).body.nextCursor;
      for (const [query, code] of [
        ['limit=0', 'invalid_limit'],
        ['limit=500', 'invalid_limit'],
        ['cursor=%25%25', 'invalid_cursor'],
        [`cursor=${encodeURIComponent(String(listCursor))}`, 'invalid_cursor'],
        ['entity=nothing', 'invalid_entity'],
      ] as const) {
        const answer = await admin.get(`/api/workspace/audit?${query}`);
        expect([answer.status, answer.body.code], query).to.deep.equal([400, code]);
        expect(answer.headers.get('content-type'), query).to.contain('application/problem+json');
      }
    });
  });
});
