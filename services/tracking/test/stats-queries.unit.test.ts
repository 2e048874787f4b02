import { expect } from 'chai';
import { encodeCursor, keptItemsOf, orderedItems, pageOf, parseBreakdownQuery, planBreakdown } from '../src/domain/breakdown';
import { parseGranularity, sumHours } from '../src/domain/stats';

describe('tracking: the breakdown of the totals (pure)', () => {
  it('reads a query with its defaults, and refuses bad values with stable codes', () => {
    expect(parseBreakdownQuery({ by: 'campaign' })).to.deep.equal({ ok: true, query: { by: 'campaign', filter: {}, ids: null, sort: 'adRequests', limit: 50, after: null } });
    const cursor = encodeCursor('publisher', 'clickedLinks', { value: 3, id: 9 });
    expect(parseBreakdownQuery({ by: 'publisher', sort: 'clickedLinks', limit: '100', cursor, from: '2026-03-01' })).to.deep.equal({
      ok: true,
      query: { by: 'publisher', filter: { from: '2026-03-01' }, ids: null, sort: 'clickedLinks', limit: 100, after: { value: 3, id: 9 } },
    });
    const code = (query: Record<string, unknown>) => {
      const result = parseBreakdownQuery(query);
      return result.ok ? 'ok' : result.code;
    };
    expect(code({})).to.equal('invalid_breakdown');
    expect(code({ by: ['campaign', 'campaign'] })).to.equal('invalid_breakdown');
    expect(code({ by: 'campaign', sort: 'id' })).to.equal('invalid_sort');
    expect(code({ by: 'campaign', limit: '1000' })).to.equal('invalid_limit');
    expect(code({ by: 'campaign', limit: '-1' })).to.equal('invalid_limit');
    expect(code({ by: 'campaign', cursor })).to.equal('invalid_cursor');
    expect(code({ by: 'publisher', cursor })).to.equal('invalid_cursor');
    expect(code({ by: 'campaign', cursor: Buffer.from('["campaign","adRequests",-1,2]').toString('base64url') })).to.equal('invalid_cursor');
    expect(code({ by: 'campaign', campaignId: 'x' })).to.equal('invalid_campaign_id');
    expect(code({ by: 'campaign', ids: '3,x' })).to.equal('invalid_ids');
    expect(code({ by: 'campaign', ids: ['3', '4'] })).to.equal('invalid_ids');
    const narrowed = parseBreakdownQuery({ by: 'campaign', ids: '4,3,4' });
    expect(narrowed.ok && narrowed.query.ids).to.deep.equal([4, 3]);
  });

  it("reads the scopes stats reads without the breakdown's own id, and keeps the items to it", () => {
    expect(planBreakdown('campaign', { campaignId: 3, visibleTo: '7' }).candidates).to.deep.equal(['co:7', 'po:7']);
    expect(planBreakdown('publisher', { campaignId: 3, visibleTo: '7' }).candidates).to.deep.equal(['c:3', 'c:3|po:7']);
    expect(planBreakdown('campaign', { publisherId: 4 }).candidates).to.deep.equal(['p:4']);
    expect(keptItemsOf({ by: 'campaign', ids: null }, { campaignId: 3, publisherId: 4 })).to.deep.equal([3]);
    expect(keptItemsOf({ by: 'publisher', ids: null }, { campaignId: 3 })).to.equal(undefined);
    expect(keptItemsOf({ by: 'publisher', ids: [4, 5] }, { campaignId: 3 })).to.deep.equal([4, 5]);
    expect(keptItemsOf({ by: 'campaign', ids: [3, 5] }, { campaignId: 3 })).to.deep.equal([3]);
    expect(keptItemsOf({ by: 'campaign', ids: [5] }, { campaignId: 3 })).to.deep.equal([]);
  });

  it('orders by the total asked for, highest first, ties by id, and pages with a cursor after the last item', () => {
    const items = orderedItems({ 9: { adRequests: 2 }, 3: { adRequests: 5, clickedLinks: 1 }, 4: { adRequests: 2 }, 8: { unfilledAdRequests: 1 }, 7: {} }, 'adRequests');
    expect(items.map((item) => item.id)).to.deep.equal([3, 4, 9, 8]);
    expect(orderedItems({ 9: { adRequests: 2 }, 3: { adRequests: 5 } }, 'adRequests', [9]).map((item) => item.id)).to.deep.equal([9]);
    const first = pageOf(items, { by: 'campaign', sort: 'adRequests', limit: 2, after: null });
    expect(first.items.map((item) => item.id)).to.deep.equal([3, 4]);
    const next = parseBreakdownQuery({ by: 'campaign', limit: '2', cursor: first.nextCursor });
    if (!next.ok) throw new Error(next.code);
    const second = pageOf(items, next.query);
    expect(second.items.map((item) => item.id)).to.deep.equal([9, 8]);
    expect(second.nextCursor).to.equal(null);
    // A cursor whose item has gone: the page starts at the next in the order.
    expect(pageOf(items, { by: 'campaign', sort: 'adRequests', limit: 5, after: { value: 3, id: 1 } }).items.map((item) => item.id)).to.deep.equal([4, 9, 8]);
    expect(pageOf(items, { by: 'campaign', sort: 'adRequests', limit: 5, after: { value: 0, id: 99 } })).to.deep.equal({ items: [], nextCursor: null });
  });
});

describe('tracking: stats by the hour (pure)', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const granularity = (query: Record<string, unknown>) => {
    const result = parseGranularity(query, { from: query.from as string | undefined, to: query.to as string | undefined }, now);
    return result.ok ? result.granularity : result.code;
  };

  it('reads the granularity: days by default, hours over at most 7 days apart still kept', () => {
    expect(granularity({})).to.equal('day');
    expect(granularity({ granularity: 'day' })).to.equal('day');
    expect(granularity({ granularity: 'hour', from: '2026-03-03', to: '2026-03-10' })).to.equal('hour');
    expect(granularity({ granularity: 'hour', from: '2026-03-02', to: '2026-03-10' })).to.equal('invalid_hour_range');
    expect(granularity({ granularity: 'hour', to: '2026-03-10' })).to.equal('invalid_hour_range');
    expect(granularity({ granularity: 'hour', from: '2026-02-03', to: '2026-02-04' })).to.equal('hours_not_kept');
    expect(granularity({ granularity: 'week' })).to.equal('invalid_granularity');
  });

  it('sums the grains hour by hour over every hour of the range', () => {
    const answer = sumHours([{ '2026-03-08T09': { adRequests: 2, clickedLinks: 1 } }, { '2026-03-08T09': { adRequests: 1 }, '2026-03-07T09': { adRequests: 9 } }], { from: '2026-03-08', to: '2026-03-08' });
    expect(answer).to.include({ adRequests: 3, clickedLinks: 1, confirmedDeliveries: 0 });
    expect(answer.hours).to.have.length(24);
    expect(answer.hours[9]).to.deep.equal({ hour: '2026-03-08T09:00:00.000Z', adRequests: 3, confirmedDeliveries: 0, clickedLinks: 1, unfilledAdRequests: 0 });
  });
});
