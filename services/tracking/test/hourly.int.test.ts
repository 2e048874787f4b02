import { expect } from 'chai';
import { activeCampaign, CountedFigures } from './support';

for (const mode of ['in Redis', 'folded', 'folded in part'] as const) {
  describe(`tracking: GET /api/workspace/stats?granularity=hour with the counts ${mode}`, () => {
    const ADVERTISER = '7201';
    const PUBLISHER_OWNER = '7202';
    const OTHER_ADVERTISER = '7204';
    const OTHER_PUBLISHER_OWNER = '7205';
    const ADMIN = '7209';
    const figures = new CountedFigures({ 51: ADVERTISER, 61: PUBLISHER_OWNER, 52: OTHER_ADVERTISER, 62: OTHER_PUBLISHER_OWNER });

    before(async () => {
      await figures.start([activeCampaign(51, ADVERTISER), activeCampaign(52, OTHER_ADVERTISER)]);
      const morning = await figures.adRequests('2026-03-08T09:15:00Z', 51, 61, 2);
      await figures.adRequests('2026-03-08T09:30:00Z', 52, 62, 3);
      // Confirmed at 09:40 and 10:05: counted in the hour of the allocation, 09:00.
      figures.clock.set('2026-03-08T10:05:00Z');
      expect(await figures.countOnce(morning, ['confirmedDeliveries'])).to.deep.equal([true]);
      await figures.adRequests('2026-03-08T23:59:30Z', 51, 61, 1);
      if (mode === 'folded in part') await figures.tracking.folder.foldNow(true);
      await figures.adRequests('2026-03-09T00:00:10Z', 51, 61, 1);
      await figures.unfilled(61, `unfilled-${mode}`);
      if (mode === 'folded') await figures.tracking.folder.foldNow(true);
      figures.clock.set('2026-03-10T12:00:00Z');
    });

    after(() => figures.close());

    function stats(query: string, account: { accountId: string; admin?: boolean }) {
      return figures.get(`/api/workspace/stats${query}`, account);
    }
    const admin = { accountId: ADMIN, admin: true };
    const zero = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 };

    it('answers every hour of the range, on the hour in UTC, zeros included, each fact in the hour of its allocation', async () => {
      const answer = (await stats('?granularity=hour&from=2026-03-08&to=2026-03-09', { accountId: ADVERTISER }).expect(200)).body;
      expect(answer).to.not.have.property('days');
      expect(answer).to.include({ adRequests: 4, confirmedDeliveries: 1, clickedLinks: 0 });
      expect(answer.hours).to.have.length(48);
      expect(answer.hours[0]).to.deep.equal({ hour: '2026-03-08T00:00:00.000Z', ...zero });
      expect(answer.hours[47].hour).to.equal('2026-03-09T23:00:00.000Z');
      const nonZero = (answer.hours as Array<{ hour: string; adRequests: number; confirmedDeliveries: number; unfilledAdRequests: number }>).filter(
        (hour) => hour.adRequests + hour.confirmedDeliveries + hour.unfilledAdRequests > 0,
      );
      expect(nonZero).to.deep.equal([
        { hour: '2026-03-08T09:00:00.000Z', ...zero, adRequests: 2, confirmedDeliveries: 1 },
        { hour: '2026-03-08T23:00:00.000Z', ...zero, adRequests: 1 },
        { hour: '2026-03-09T00:00:00.000Z', ...zero, adRequests: 1 },
      ]);
    });

    it('keeps to the records the account sees and the filters, as the days do', async () => {
      const hourOf = async (query: string, account: { accountId: string; admin?: boolean }, hour: string) =>
        ((await stats(query, account).expect(200)).body.hours as Array<{ hour: string; adRequests: number; unfilledAdRequests: number }>).find((entry) => entry.hour === hour);
      expect((await hourOf('?granularity=hour&from=2026-03-08&to=2026-03-08', admin, '2026-03-08T09:00:00.000Z'))!.adRequests).to.equal(5);
      expect((await hourOf('?granularity=hour&from=2026-03-08&to=2026-03-08&campaignId=52', admin, '2026-03-08T09:00:00.000Z'))!.adRequests).to.equal(3);
      expect((await hourOf('?granularity=hour&from=2026-03-08&to=2026-03-08', { accountId: OTHER_PUBLISHER_OWNER }, '2026-03-08T09:00:00.000Z'))!.adRequests).to.equal(3);
      expect((await hourOf('?granularity=hour&from=2026-03-08&to=2026-03-08&campaignId=52', { accountId: ADVERTISER }, '2026-03-08T09:00:00.000Z'))!.adRequests).to.equal(0);
      expect((await hourOf('?granularity=hour&from=2026-03-09&to=2026-03-09&publisherId=61', { accountId: PUBLISHER_OWNER }, '2026-03-09T00:00:00.000Z'))!.unfilledAdRequests).to.equal(1);
      const days = (await stats('?from=2026-03-08&to=2026-03-09', { accountId: ADVERTISER }).expect(200)).body;
      const hours = (await stats('?granularity=hour&from=2026-03-08&to=2026-03-09', { accountId: ADVERTISER }).expect(200)).body;
      expect([hours.adRequests, hours.confirmedDeliveries, hours.clickedLinks]).to.deep.equal([days.adRequests, days.confirmedDeliveries, days.clickedLinks]);
    });

    it('answers a range of up to 7 days apart, and refuses longer, open, or unknown granularities with 400 and a code', async () => {
      expect((await stats('?granularity=hour&from=2026-03-02&to=2026-03-09', admin).expect(200)).body.hours).to.have.length(8 * 24);
      expect((await stats('?granularity=day&from=2026-03-08', admin).expect(200)).body).to.have.property('days');
      const cases: Array<[string, string]> = [
        ['?granularity=hour', 'invalid_hour_range'],
        ['?granularity=hour&from=2026-03-08', 'invalid_hour_range'],
        ['?granularity=hour&from=2026-03-01&to=2026-03-09', 'invalid_hour_range'],
        ['?granularity=minute&from=2026-03-08&to=2026-03-08', 'invalid_granularity'],
        ['?granularity=hour&granularity=hour&from=2026-03-08&to=2026-03-08', 'invalid_granularity'],
        ['?granularity=hour&from=2026-02-03&to=2026-02-05', 'hours_not_kept'],
        ['?granularity=hour&from=2026-03-09&to=2026-03-08', 'invalid_date_range'],
      ];
      for (const [query, code] of cases) {
        const answer = await stats(query, admin);
        expect(answer.status, query).to.equal(400);
        expect(answer.body.code, query).to.equal(code);
      }
    });

    if (mode === 'folded') {
      it('deletes the hourly figures after their retention; the days stay', async () => {
        figures.clock.set('2026-04-20T12:00:00Z');
        const swept = await figures.tracking.retention.sweep();
        expect(swept['counts_days.hours']).to.be.above(0);
        expect((await stats('?granularity=hour&from=2026-03-08&to=2026-03-09', admin)).body.code).to.equal('hours_not_kept');
        expect((await stats('?from=2026-03-08&to=2026-03-09', admin).expect(200)).body.adRequests).to.equal(7);
      });
    }
  });
}
