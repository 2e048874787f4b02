import { expect } from 'chai';
import { firstKeptHourlyDay, grainFieldsOf, hourFieldOf, parseHourField } from '../src/layout';
import { grainDaysOf } from '../src/unfolded';

/** An interval not claimed yet: Redis reports it under the least number its fold will have, above every fold applied. */
const OPEN_INTERVAL = 1_775_000_000_000;

describe('hourly figures', () => {
  it('names the hour field of a fact by the UTC hour of its instant, and reads it back', () => {
    expect(hourFieldOf(new Date('2026-03-08T23:59:59.999Z'), 'adRequests')).to.equal('2026-03-08T23|adRequests');
    expect(parseHourField('2026-03-08T23|adRequests')).to.deep.equal({ day: '2026-03-08', hour: '23', kind: 'adRequests' });
    expect(parseHourField('2026-03-08|adRequests')).to.equal(null);
  });

  it('keeps 35 days of hours: the first kept day is 34 days before today', () => {
    expect(firstKeptHourlyDay(new Date('2026-03-10T12:00:00Z'))).to.equal('2026-02-04');
  });

  it('stores each grain as real fields a query names: a level, the campaign, platform, account or placement', () => {
    const none = { campaignId: null, publisherId: null, accountId: null, placementId: null };
    expect(grainFieldsOf('all')).to.deep.equal({ ...none, level: 'network' });
    expect(grainFieldsOf('co:a1')).to.deep.equal({ ...none, level: 'campaignOwner', accountId: 'a1' });
    expect(grainFieldsOf('po:a2')).to.deep.equal({ ...none, level: 'publisherOwner', accountId: 'a2' });
    expect(grainFieldsOf('c:7')).to.deep.equal({ ...none, level: 'campaign', campaignId: 7 });
    expect(grainFieldsOf('p:8')).to.deep.equal({ ...none, level: 'publisher', publisherId: 8 });
    expect(grainFieldsOf('cp:7:8')).to.deep.equal({ ...none, level: 'campaignPublisher', campaignId: 7, publisherId: 8 });
    expect(grainFieldsOf('c:7|po:a2')).to.deep.equal({ ...none, level: 'campaignOnOwnersPublishers', campaignId: 7, accountId: 'a2' });
    expect(grainFieldsOf('p:8|co:a1')).to.deep.equal({ ...none, level: 'publisherOnOwnersCampaigns', publisherId: 8, accountId: 'a1' });
    expect(grainFieldsOf('pl:x-1')).to.deep.equal({ ...none, level: 'placement', placementId: 'x-1' });
  });

  it('adds what Redis holds that the documents lack, and the day reader skips hour fields', () => {
    const parts = [
      { fold: 4, fields: new Map([['2026-03-08T09|adRequests', 2]]) },
      { fold: OPEN_INTERVAL, fields: new Map([['2026-03-08T10|adRequests', 1], ['2026-03-08|adRequests', 1]]) },
    ];
    expect(grainDaysOf({ hours: { '2026-03-08T09': { adRequests: 2 } }, lastFolds: { '2026-03-08': 4 } }, parts, true)).to.deep.equal({
      '2026-03-08T09': { adRequests: 2 },
      '2026-03-08T10': { adRequests: 1 },
    });
    expect(grainDaysOf(undefined, parts, true)['2026-03-08T09']).to.deep.equal({ adRequests: 2 });
    expect(grainDaysOf(undefined, parts)).to.deep.equal({ '2026-03-08': { adRequests: 1 } });
  });
});
