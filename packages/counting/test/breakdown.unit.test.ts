import { expect } from 'chai';
import { breakdownCountsOf, parseBreakdownField, scopeQueryOf, sumBreakdown, unfilledBreakdownCountsOf } from '../src/breakdown-layout';
import type { StoredDay } from '../src/layout';

/** An interval not claimed yet: Redis reports it under the least number its fold will have, above every fold applied. */
const OPEN_INTERVAL = 1_775_000_000_000;

describe('breakdowns of the totals', () => {
  const allocation = { campaignId: 5, publisherId: 6, campaignOwnerAccountId: '50', publisherOwnerAccountId: '60', allocatedAt: new Date('2026-03-04T10:00:00Z') };

  it('counts a fact per campaign and per platform in every scope that does not fix the dimension', () => {
    expect(breakdownCountsOf(allocation, 'adRequests', '2026-03-04')).to.deep.equal([
      ['by-campaign@all', '2026-03-04|adRequests|5'],
      ['by-campaign@co:50', '2026-03-04|adRequests|5'],
      ['by-campaign@po:60', '2026-03-04|adRequests|5'],
      ['by-campaign@p:6', '2026-03-04|adRequests|5'],
      ['by-campaign@p:6|co:50', '2026-03-04|adRequests|5'],
      ['by-publisher@all', '2026-03-04|adRequests|6'],
      ['by-publisher@co:50', '2026-03-04|adRequests|6'],
      ['by-publisher@po:60', '2026-03-04|adRequests|6'],
      ['by-publisher@c:5', '2026-03-04|adRequests|6'],
      ['by-publisher@c:5|po:60', '2026-03-04|adRequests|6'],
    ]);
    expect(breakdownCountsOf({ ...allocation, publisherOwnerAccountId: '50' }, 'adRequests', '2026-03-04').map(([grain]) => grain)).to.not.include('by-campaign@po:50');
    expect(breakdownCountsOf(allocation, 'filtered_head', '2026-03-04')).to.deep.equal([]);
    expect(unfilledBreakdownCountsOf({ publisherId: 6, publisherOwnerAccountId: '60', requestedAt: allocation.allocatedAt }, '2026-03-04').map(([grain]) => grain)).to.deep.equal([
      'by-publisher@all',
      'by-publisher@po:60',
    ]);
  });

  it('reads its fields back, and nothing else', () => {
    expect(parseBreakdownField('2026-03-04|adRequests|5')).to.deep.equal({ day: '2026-03-04', kind: 'adRequests', item: 5 });
    expect(parseBreakdownField('2026-03-04|adRequests')).to.equal(null);
  });

  it('answers each scope from the day documents of one grain per item, an account\'s own records once', () => {
    const query = (dimension: 'campaign' | 'publisher', scope: string) => ({ filter: scopeQueryOf(dimension, scope) });
    expect(query('campaign', 'all')).to.deep.equal({ filter: { level: 'campaign' } });
    expect(query('campaign', 'co:50')).to.deep.equal({ filter: { level: 'campaign', campaignOwnerAccountId: '50' } });
    expect(query('campaign', 'po:60')).to.deep.equal({ filter: { level: 'campaignOnOwnersPublishers', accountId: '60', campaignOwnerAccountId: { $ne: '60' } } });
    expect(query('campaign', 'p:6|co:50')).to.deep.equal({ filter: { level: 'campaignPublisher', publisherId: 6, campaignOwnerAccountId: '50' } });
    expect(query('publisher', 'po:60')).to.deep.equal({ filter: { level: 'publisher', publisherOwnerAccountId: '60' } });
    expect(query('publisher', 'co:50')).to.deep.equal({ filter: { level: 'publisherOnOwnersCampaigns', accountId: '50', publisherOwnerAccountId: { $ne: '50' } } });
    expect(query('publisher', 'c:5')).to.deep.equal({ filter: { level: 'campaignPublisher', campaignId: 5 } });
  });

  it('adds what Redis holds that an item\'s day document has not applied, within the range', () => {
    const day = (date: string, counts: Record<string, number>, lastFold: number): StoredDay => ({ campaignId: 1, publisherId: null, day: date, lastFold, counts });
    const stored = [day('2026-03-05', { adRequests: 3 }, 7), day('2026-03-06', { adRequests: 5, clickedLinks: 1 }, 9)];
    const parts = [
      { fold: 7, fields: new Map([['2026-03-05|adRequests|1', 3]]) }, // applied already
      { fold: 9, fields: new Map([['2026-03-05|adRequests|1', 2], ['2026-03-06|adRequests|1', 5]]) }, // the 5th's document is at 7
      { fold: OPEN_INTERVAL, fields: new Map([['2026-03-06|adRequests|2', 1], ['2026-03-09|adRequests|1', 4]]) },
    ];
    expect(sumBreakdown('campaign', stored, parts, { to: '2026-03-08' })).to.deep.equal({ 1: { adRequests: 10, clickedLinks: 1 }, 2: { adRequests: 1 } });
    expect(sumBreakdown('campaign', [], parts, {})).to.deep.equal({ 1: { adRequests: 14 }, 2: { adRequests: 1 } });
  });
});
