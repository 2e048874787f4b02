import { expect } from 'chai';
import { breakdownCountsOf, parseBreakdownField, parseBreakdownGrain, unfilledBreakdownCountsOf } from '../src/breakdown-layout';
import { cutsOf, throughDayIdsToRead, daysBetween, lastDayOf, sidesOf, sumBreakdown, type StoredBreakdown } from '../src/breakdown-periods';
import { markOf, marksOf } from '../src/breakdown-marks';
import { coveredBy, foldedDocumentsOf, monthPartsOf, type BreakdownDocument, type StoredScope } from '../src/breakdown-store';

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

  it('reads its grains and fields back, and nothing else', () => {
    expect(parseBreakdownGrain('by-publisher@c:5|po:60')).to.deep.equal({ dimension: 'publisher', scope: 'c:5|po:60' });
    expect(parseBreakdownGrain('c:5|po:60')).to.equal(null);
    expect(parseBreakdownGrain('by-account@all')).to.equal(null);
    expect(parseBreakdownField('2026-03-04|adRequests|5')).to.deep.equal({ day: '2026-03-04', kind: 'adRequests', itemId: '5' });
    expect(parseBreakdownField('2026-03-04|adRequests')).to.equal(null);
  });

  it('knows the days of a month and where a range cuts it', () => {
    expect(lastDayOf('2026-02')).to.equal('2026-02-28');
    expect(lastDayOf('2028-02')).to.equal('2028-02-29');
    expect(lastDayOf('2026-12')).to.equal('2026-12-31');
    expect(daysBetween('2026-02-27', '2026-03-02')).to.deep.equal(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(cutsOf('2026-03', {})).to.deep.equal({ end: null, before: null });
    expect(cutsOf('2026-03', { from: '2026-03-01', to: '2026-03-31' })).to.deep.equal({ end: null, before: null });
    expect(cutsOf('2026-03', { from: '2026-03-10', to: '2026-04-02' })).to.deep.equal({ end: null, before: '2026-03-09' });
    expect(cutsOf('2026-04', { from: '2026-03-10', to: '2026-04-02' })).to.deep.equal({ end: '2026-04-02', before: null });
    const range = { from: '2026-03-10', to: '2026-03-20' };
    expect(throughDayIdsToRead('campaign', 'all', '2026-03', range, { lastDay: '2026-03-25', lastFold: 1, items: {} })).to.deep.equal(['campaign|all|2026-03-20', 'campaign|all|2026-03-09']);
    // From the last day folded on, the month document holds the same; nothing folded, nothing to read.
    expect(throughDayIdsToRead('campaign', 'all', '2026-03', range, { lastDay: '2026-03-20', lastFold: 1, items: {} })).to.deep.equal(['campaign|all|2026-03-09']);
    expect(throughDayIdsToRead('campaign', 'all', '2026-03', range, undefined)).to.deep.equal([]);
  });

  const stored = (entries: Record<string, StoredBreakdown>) => new Map(Object.entries(entries));

  it('answers a cut month as the totals through its last day less those through the day before its first', () => {
    const found = stored({
      'campaign|all|2026-03': { lastDay: '2026-03-20', lastFold: 9, items: { 1: { adRequests: 10 }, 2: { adRequests: 4 } } },
      'campaign|all|2026-03-05': { lastFold: 7, items: { 1: { adRequests: 3 } } },
      'campaign|all|2026-03-12': { lastFold: 9, items: { 1: { adRequests: 8 }, 2: { adRequests: 1 } } },
    });
    const range = { from: '2026-03-06', to: '2026-03-12' };
    const sides = sidesOf('campaign', 'all', '2026-03', range, found);
    expect(sumBreakdown(sides, [], range)).to.deep.equal({ 1: { adRequests: 5 }, 2: { adRequests: 1 } });
    // Before the first day folded: nothing; after the last: the month document.
    const early = sidesOf('campaign', 'all', '2026-03', { from: '2026-03-02', to: '2026-03-25' }, found);
    expect(sumBreakdown(early, [], {})).to.deep.equal({ 1: { adRequests: 10 }, 2: { adRequests: 4 } });
  });

  it('adds what Redis holds to each side its document has not folded, and days of months without documents', () => {
    const found = stored({
      'campaign|all|2026-03': { lastDay: '2026-03-12', lastFold: 9, items: { 1: { adRequests: 8 } } },
      'campaign|all|2026-03-05': { lastFold: 7, items: { 1: { adRequests: 3 } } },
    });
    const range = { from: '2026-03-06' };
    const sides = sidesOf('campaign', 'all', '2026-03', range, found);
    const parts = [
      // Fold 8: applied to the month document but not to the through-day one of 03-05.
      { fold: 8, fields: new Map([['2026-03-04|adRequests|1', 2], ['2026-03-07|adRequests|1', 1]]) },
      { fold: OPEN_INTERVAL, fields: new Map([['2026-03-13|adRequests|2', 5], ['2026-04-01|adRequests|1', 1]]) },
    ];
    expect(sumBreakdown(sides, parts, range)).to.deep.equal({ 1: { adRequests: 8 - 3 - 2 + 1 }, 2: { adRequests: 5 } });
  });

  it('folds a batch into the through-day documents from its first day to the last folded, then the month, once', () => {
    const folds = [
      { seq: 11, counts: new Map([['by-campaign@all', new Map([['2026-03-03|adRequests|1', 2]])]]) },
      { seq: 12, counts: new Map([['by-campaign@all', new Map([['2026-03-05|adRequests|2', 1]])], ['all', new Map([['2026-03-05|adRequests', 1]])]]) },
    ];
    const [entry] = [...monthPartsOf(folds).values()];
    const monthStored: BreakdownDocument = { _id: 'campaign|all|2026-03', dimension: 'campaign', scope: 'all', month: '2026-03', day: null, lastDay: '2026-03-04', lastFold: 10, items: { 1: { adRequests: 7 } } };
    const day3: BreakdownDocument = { _id: 'campaign|all|2026-03-03', dimension: 'campaign', scope: 'all', month: '2026-03', day: '2026-03-03', lastFold: 10, items: { 1: { adRequests: 4 } } };
    const day4: BreakdownDocument = { ...day3, _id: 'campaign|all|2026-03-04', day: '2026-03-04', items: { 1: { adRequests: 7 } } };
    const documents = new Map([monthStored, day3, day4].map((document) => [document._id, document]));
    const folded = foldedDocumentsOf(entry!, documents, new Map());
    expect(folded.throughDays.map((document) => [document.day, document.lastFold, document.items])).to.deep.equal([
      ['2026-03-03', 12, { 1: { adRequests: 6 } }],
      ['2026-03-04', 12, { 1: { adRequests: 9 } }],
      ['2026-03-05', 12, { 1: { adRequests: 9 }, 2: { adRequests: 1 } }],
    ]);
    expect(folded.month).to.deep.include({ lastDay: '2026-03-05', lastFold: 12, items: { 1: { adRequests: 9 }, 2: { adRequests: 1 } } });
    // Applied again (a pass that died after its writes): nothing left to write.
    const again = new Map([...folded.throughDays, folded.month!].map((document) => [document._id, document]));
    expect(foldedDocumentsOf(entry!, again, new Map())).to.deep.equal({ throughDays: [], month: null });
  });

  it("keeps a filter's scope in its month document, days included, which answers any range of the month", () => {
    const folds = [{ seq: 3, counts: new Map([['by-publisher@c:5', new Map([['2026-03-03|adRequests|6', 2], ['2026-03-09|adRequests|7', 1]])]]) }];
    const [entry] = [...monthPartsOf(folds).values()];
    const folded = foldedDocumentsOf(entry!, new Map(), new Map([['c:5', '50']]));
    expect(folded.throughDays).to.deep.equal([]);
    expect(folded.month).to.deep.include({
      _id: 'publisher|c:5|2026-03',
      campaignOwnerAccountId: '50',
      items: { 6: { adRequests: 2 }, 7: { adRequests: 1 } },
      days: { '2026-03-03': { 6: { adRequests: 2 } }, '2026-03-09': { 7: { adRequests: 1 } } },
    });
    const range = { from: '2026-03-04', to: '2026-03-10' };
    expect(throughDayIdsToRead('publisher', 'c:5', '2026-03', range, folded.month!)).to.deep.equal([]);
    const sides = sidesOf('publisher', 'c:5', '2026-03', range, new Map([[folded.month!._id, folded.month!]]));
    expect(sumBreakdown(sides, [{ fold: OPEN_INTERVAL, fields: new Map([['2026-03-10|adRequests|6', 4]]) }], range)).to.deep.equal({ 6: { adRequests: 4 }, 7: { adRequests: 1 } });
  });

  it('lets a kept document\'s side rely on Redis only while Redis holds every fold above it, up to the last numbered', () => {
    const scope = (reliesOnFoldsAbove: number | null): StoredScope => ({ sides: [], documentsRead: 1, documentsKept: 1, reliesOnFoldsAbove });
    const stored = (...relies: Array<number | null>) => new Map(relies.map((from, index) => [`s${index}`, scope(from)]));
    expect(coveredBy(stored(null, null), { above: 90, through: 100 }), 'no side relies on Redis').to.equal(true);
    expect(coveredBy(stored(null, 90, 95), { above: 90, through: 100 })).to.equal(true);
    expect(coveredBy(stored(89, 95), { above: 90, through: 100 }), 'fold 90 is gone').to.equal(false);
    expect(coveredBy(stored(95), { above: 0, through: 0 }), 'a Redis that lost its state').to.equal(false);
    expect(coveredBy(stored(95), { above: 80, through: 94 }), 'a Redis that went back').to.equal(false);
  });

  it('marks a scope-month\'s documents as they stand after a pass, keeping the days it did not touch and never going down', () => {
    const key = { _id: 'campaign|all|2026-03', dimension: 'campaign' as const, scope: 'all', month: '2026-03' };
    const before = { ...key, lastFold: 7, days: { '2026-03-01': 3, '2026-03-02': 7 } };
    const marks = marksOf(key, before, { lastFold: 9, items: {} }, [
      { day: '2026-03-02', document: { lastFold: 9, items: {} } },
      { day: '2026-03-03', document: { lastFold: 9, items: {} } },
    ]);
    expect(marks).to.deep.equal({ ...key, lastFold: 9, days: { '2026-03-01': 3, '2026-03-02': 9, '2026-03-03': 9 } });
    expect(marksOf(key, marks, { lastFold: 8, items: {} }, []).lastFold, 'a mark never goes down').to.equal(9);
    expect(markOf(marks, null)).to.equal(9);
    expect(markOf(marks, '2026-03-01')).to.equal(3);
    expect(markOf(marks, '2026-03-04')).to.equal(undefined);
    expect(markOf(undefined, null)).to.equal(undefined);
  });
});

