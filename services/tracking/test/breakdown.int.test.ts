import { expect } from 'chai';
import { activeCampaign, CountedFigures } from './support';

/**
 * The counts stay in Redis, are all folded, or are folded in two passes (the later days first, so the
 * earlier days' fold rewrites the month's through-day documents) with the last month left in Redis.
 */
for (const mode of ['in Redis', 'folded', 'folded in part'] as const) {
  describe(`tracking: GET /api/workspace/stats/breakdown with the counts ${mode}`, () => {
    const ADVERTISER = '7101';
    const PUBLISHER_OWNER = '7102';
    const STRANGER = '7103';
    const OTHER_ADVERTISER = '7104';
    const OTHER_PUBLISHER_OWNER = '7105';
    const ADMIN = '7109';
    const owners: Record<number, string> = { 31: ADVERTISER, 32: ADVERTISER, 33: ADVERTISER, 34: OTHER_ADVERTISER, 41: PUBLISHER_OWNER, 42: PUBLISHER_OWNER, 43: OTHER_PUBLISHER_OWNER };
    const figures = new CountedFigures(owners);

    before(async () => {
      await figures.start([31, 32, 33, 34].map((id) => activeCampaign(id, owners[id]!)));
      const fold = () => figures.tracking.folder.foldNow(true);

      await figures.adRequests('2026-03-15T09:00:00Z', 31, 43, 2);
      if (mode === 'folded in part') await fold();
      const first = await figures.adRequests('2026-03-01T12:00:00Z', 31, 41, 3);
      expect(await figures.countOnce(first, ['confirmedDeliveries', 'clickedLinks'])).to.deep.equal([true, true]);
      await figures.unfilled(41, 'unfilled-1');
      await figures.adRequests('2026-03-02T08:00:00Z', 32, 41, 2);
      await figures.adRequests('2026-03-02T09:00:00Z', 33, 43, 1);
      await figures.adRequests('2026-03-02T10:00:00Z', 34, 42, 4);
      // A minute after a fold, the next pass sweeps the folds applied: Redis no longer holds their counts,
      // and a narrowed breakdown has the store sum their days.
      const foldAndSweep = async () => {
        await fold();
        figures.clock.set(new Date(figures.clock.now().getTime() + 60_000).toISOString());
        await fold();
      };
      if (mode === 'folded in part') await foldAndSweep();
      await figures.adRequests('2026-04-02T10:00:00Z', 32, 42, 1);
      if (mode === 'folded') await foldAndSweep();
      figures.clock.set('2026-04-03T12:00:00Z');
    });

    after(() => figures.close());

    function breakdown(query: string, account?: { accountId: string; admin?: boolean }) {
      return figures.get(`/api/workspace/stats/breakdown${query}`, account);
    }
    const admin = { accountId: ADMIN, admin: true };

    /** [id, adRequests] of each item of one page (checked to be the last). */
    async function ads(query: string, account: { accountId: string; admin?: boolean }): Promise<Array<[number, number]>> {
      const body = (await breakdown(query, account).expect(200)).body as { items: Array<{ id: number; adRequests: number }>; nextCursor: string | null };
      expect(body.nextCursor, query).to.equal(null);
      return body.items.map((item) => [item.id, item.adRequests]);
    }

    it("shows an advertiser its campaigns and the platforms they ran on, highest first, every total included", async () => {
      const answer = await breakdown('?by=campaign', { accountId: ADVERTISER }).expect(200);
      expect(answer.body).to.deep.equal({
        items: [
          { id: 31, adRequests: 5, confirmedDeliveries: 1, clickedLinks: 1, unfilledAdRequests: 0 },
          { id: 32, adRequests: 3, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 },
          { id: 33, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 },
        ],
        nextCursor: null,
      });
      expect(await ads('?by=publisher', { accountId: ADVERTISER })).to.deep.equal([[41, 5], [43, 3], [42, 1]]);
    });

    it("shows a publisher owner the campaigns on its platforms (ties by id) and its platforms with their unfilled requests", async () => {
      expect(await ads('?by=campaign', { accountId: PUBLISHER_OWNER })).to.deep.equal([[34, 4], [31, 3], [32, 3]]);
      const platforms = (await breakdown('?by=publisher', { accountId: PUBLISHER_OWNER }).expect(200)).body;
      expect(platforms.items).to.deep.equal([
        { id: 41, adRequests: 5, confirmedDeliveries: 1, clickedLinks: 1, unfilledAdRequests: 1 },
        { id: 42, adRequests: 5, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 },
      ]);
      expect(await ads('?by=campaign', { accountId: OTHER_PUBLISHER_OWNER })).to.deep.equal([[31, 2], [33, 1]]);
    });

    it('shows an account with no records nothing and an administrator the whole network', async () => {
      expect(await ads('?by=campaign', { accountId: STRANGER })).to.deep.equal([]);
      expect(await ads('?by=campaign', admin)).to.deep.equal([[31, 5], [34, 4], [32, 3], [33, 1]]);
      expect(await ads('?by=publisher', admin)).to.deep.equal([[41, 5], [42, 5], [43, 3]]);
    });

    it('adds up the same totals as stats', async () => {
      for (const account of [{ accountId: ADVERTISER }, { accountId: PUBLISHER_OWNER }, admin]) {
        const stats = (await figures.get('/api/workspace/stats', account).expect(200)).body;
        for (const by of ['campaign', 'publisher']) {
          const items = (await breakdown(`?by=${by}`, account).expect(200)).body.items as Array<Record<string, number>>;
          for (const kind of ['adRequests', 'confirmedDeliveries', 'clickedLinks']) {
            expect(items.reduce((sum, item) => sum + item[kind]!, 0), `${account.accountId} by ${by}: ${kind}`).to.equal(stats[kind]);
          }
        }
      }
    });

    it('keeps to a UTC date range, within a month or across months', async () => {
      expect(await ads('?by=campaign&from=2026-03-02&to=2026-03-14', admin)).to.deep.equal([[34, 4], [32, 2], [33, 1]]);
      expect(await ads('?by=campaign&from=2026-03-02&to=2026-03-14', { accountId: ADVERTISER })).to.deep.equal([[32, 2], [33, 1]]);
      expect(await ads('?by=campaign&from=2026-03-02', admin)).to.deep.equal([[34, 4], [32, 3], [31, 2], [33, 1]]);
      expect(await ads('?by=campaign&to=2026-03-01', admin)).to.deep.equal([[31, 3]]);
      expect(await ads('?by=campaign&from=2026-03-15&to=2026-04-02', admin)).to.deep.equal([[31, 2], [32, 1]]);
      expect(await ads('?by=publisher&from=2026-04-01', { accountId: PUBLISHER_OWNER })).to.deep.equal([[42, 1]]);
      expect(await ads('?by=campaign&from=2026-03-03&to=2026-03-14', admin)).to.deep.equal([]);
    });

    it('filters by campaign and platform as stats does, for each account', async () => {
      expect(await ads('?by=campaign&publisherId=41', admin)).to.deep.equal([[31, 3], [32, 2]]);
      expect(await ads('?by=campaign&publisherId=43', { accountId: ADVERTISER })).to.deep.equal([[31, 2], [33, 1]]);
      expect(await ads('?by=campaign&publisherId=43', { accountId: PUBLISHER_OWNER })).to.deep.equal([]);
      expect(await ads('?by=publisher&campaignId=31', { accountId: ADVERTISER })).to.deep.equal([[41, 3], [43, 2]]);
      expect(await ads('?by=publisher&campaignId=31', { accountId: PUBLISHER_OWNER })).to.deep.equal([[41, 3]]);
      expect(await ads('?by=campaign&campaignId=32', { accountId: PUBLISHER_OWNER })).to.deep.equal([[32, 3]]);
      expect(await ads('?by=campaign&campaignId=34', { accountId: ADVERTISER })).to.deep.equal([]);
      expect(await ads('?by=campaign&campaignId=31&publisherId=43', { accountId: OTHER_PUBLISHER_OWNER })).to.deep.equal([[31, 2]]);
      expect(await ads('?by=publisher&campaignId=34&publisherId=42', admin)).to.deep.equal([[42, 4]]);
    });

    it('narrows to the ids asked, with the totals of the whole breakdown for them, for each account', async () => {
      const whole = (await breakdown('?by=campaign', admin).expect(200)).body.items as Array<{ id: number }>;
      const asked = (await breakdown('?by=campaign&ids=33,31,99', admin).expect(200)).body;
      expect(asked).to.deep.equal({ items: whole.filter((item) => item.id === 31 || item.id === 33), nextCursor: null });
      expect(await ads('?by=campaign&ids=32,34,31', { accountId: ADVERTISER })).to.deep.equal([[31, 5], [32, 3]]);
      expect(await ads('?by=campaign&ids=34,32&from=2026-03-02&to=2026-03-14', { accountId: PUBLISHER_OWNER })).to.deep.equal([[34, 4], [32, 2]]);
      expect(await ads('?by=publisher&ids=43,42', { accountId: ADVERTISER })).to.deep.equal([[43, 3], [42, 1]]);
      expect(await ads('?by=publisher&ids=41&campaignId=31', { accountId: PUBLISHER_OWNER })).to.deep.equal([[41, 3]]);
      expect(await ads('?by=campaign&ids=31,32&campaignId=32', admin)).to.deep.equal([[32, 3]]);
      expect(await ads('?by=campaign&ids=31&campaignId=32', admin)).to.deep.equal([]);
      expect(await ads('?by=campaign&ids=35,36', admin)).to.deep.equal([]);
      const paged = (await breakdown('?by=campaign&ids=31,32,33,34&limit=2', admin).expect(200)).body;
      expect(paged.items.map((item: { id: number }) => item.id)).to.deep.equal([31, 34]);
      expect(await ads(`?by=campaign&ids=31,32,33,34&limit=2&cursor=${paged.nextCursor}`, admin)).to.deep.equal([[32, 3], [33, 1]]);
    });

    it('sorts by the total asked for, highest first, ties by id', async () => {
      const clicked = (await breakdown('?by=campaign&sort=clickedLinks', admin).expect(200)).body.items as Array<{ id: number; clickedLinks: number }>;
      expect(clicked.map((item) => [item.id, item.clickedLinks])).to.deep.equal([[31, 1], [32, 0], [33, 0], [34, 0]]);
      const confirmed = (await breakdown('?by=publisher&sort=confirmedDeliveries', admin).expect(200)).body.items as Array<{ id: number }>;
      expect(confirmed.map((item) => item.id)).to.deep.equal([41, 42, 43]);
    });

    it('pages to the end with the cursors, each item once', async () => {
      const seen: number[] = [];
      let cursor: string | null = '';
      for (let page = 0; cursor !== null; page += 1) {
        expect(page, 'pages').to.be.below(5);
        const body: { items: Array<{ id: number }>; nextCursor: string | null } = (
          await breakdown(`?by=campaign&limit=1${cursor ? `&cursor=${cursor}` : ''}`, admin).expect(200)
        ).body;
        expect(body.items).to.have.length(1);
        seen.push(body.items[0]!.id);
        cursor = body.nextCursor;
      }
      expect(seen).to.deep.equal([31, 34, 32, 33]);
      const firstTwo = (await breakdown('?by=campaign&limit=2', admin).expect(200)).body;
      expect(firstTwo.items.map((item: { id: number }) => item.id)).to.deep.equal([31, 34]);
      const rest = (await breakdown(`?by=campaign&limit=2&cursor=${firstTwo.nextCursor}`, admin).expect(200)).body;
      expect(rest).to.deep.include({ nextCursor: null });
      expect(rest.items.map((item: { id: number }) => item.id)).to.deep.equal([32, 33]);
    });

    it('refuses a bad cursor and bad query values with 400 and a stable code', async () => {
      const page = (await breakdown('?by=campaign&limit=1', admin).expect(200)).body;
      const cases: Array<[string, string]> = [
        ['', 'invalid_breakdown'],
        ['?by=account', 'invalid_breakdown'],
        ['?by=campaign&by=publisher', 'invalid_breakdown'],
        ['?by=campaign&sort=name', 'invalid_sort'],
        ['?by=campaign&limit=0', 'invalid_limit'],
        ['?by=campaign&limit=101', 'invalid_limit'],
        ['?by=campaign&limit=ten', 'invalid_limit'],
        ['?by=campaign&cursor=not-a-cursor', 'invalid_cursor'],
        ['?by=campaign&cursor=%24%24', 'invalid_cursor'],
        [`?by=campaign&sort=clickedLinks&cursor=${page.nextCursor}`, 'invalid_cursor'],
        [`?by=publisher&cursor=${page.nextCursor}`, 'invalid_cursor'],
        ['?by=campaign&campaignId=abc', 'invalid_campaign_id'],
        ['?by=campaign&publisherId=0', 'invalid_publisher_id'],
        ['?by=campaign&from=2026-02-30', 'invalid_date'],
        ['?by=campaign&from=2026-03-02&to=2026-03-01', 'invalid_date_range'],
        ['?by=campaign&ids=31,x', 'invalid_ids'],
        ['?by=campaign&ids=0', 'invalid_ids'],
        [`?by=campaign&ids=${Array.from({ length: 101 }, (_, n) => n + 1).join(',')}`, 'invalid_ids'],
        ['?by=campaign&ids=31&ids=32', 'invalid_ids'],
      ];
      for (const [query, code] of cases) {
        const answer = await breakdown(query, { accountId: ADVERTISER });
        expect(answer.status, query).to.equal(400);
        expect(answer.headers['content-type'], query).to.match(/^application\/problem\+json/);
        expect(answer.body.code, query).to.equal(code);
      }
      expect((await breakdown('?by=campaign')).status).to.equal(401);
    });

    // Last: it counts more. A day both folded into its document and counted in Redis since.
    it('narrows to the figures of the whole breakdown when a day is both in its document and in Redis', async () => {
      await figures.adRequests('2026-03-02T11:00:00Z', 32, 41, 2);
      figures.clock.set('2026-04-03T12:00:00Z');
      const whole = new Map(await ads('?by=campaign', admin));
      expect(whole.get(32)).to.equal(5);
      expect(await ads('?by=campaign&ids=32,33', admin)).to.deep.equal([[32, 5], [33, whole.get(33)!]]);
      expect(await ads('?by=campaign&ids=32&from=2026-03-02&to=2026-03-02', { accountId: ADVERTISER })).to.deep.equal([[32, 4]]);
      expect(await ads('?by=publisher&ids=41', { accountId: PUBLISHER_OWNER })).to.deep.equal([[41, 7]]);
    });
  });
}
