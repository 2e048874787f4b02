import { expect } from 'chai';
import { addressWith, baseSearch, filtersOf } from '../frontend/src/hooks/address-params';

const DASHBOARD = { campaignId: 'campaignId', from: 'from', to: 'to' } as const;
const LIST = { search: 'q', status: 'status' } as const;

describe('filters kept in the address', () => {
  it('reads each filter from its parameter, empty when absent', () => {
    expect(filtersOf(new URLSearchParams('q=shoes&page=2'), LIST)).to.deep.equal({ search: 'shoes', status: '' });
  });

  it('applies a change on the address as it is: two changes in a row keep each other', () => {
    const afterFrom = addressWith(new URLSearchParams('campaignId=7'), DASHBOARD, { from: '2026-11-26' });
    const afterTo = addressWith(afterFrom, DASHBOARD, { to: '2026-11-28' });
    expect(filtersOf(afterTo, DASHBOARD)).to.deep.equal({ campaignId: '7', from: '2026-11-26', to: '2026-11-28' });
  });

  it('removes a filter set empty, leaves the ones not named and any other parameter alone', () => {
    const next = addressWith(new URLSearchParams('q=shoes&status=active&tab=2'), LIST, { search: '' });
    expect(next.toString()).to.equal('status=active&tab=2');
  });

  it('does not touch the address it is given', () => {
    const current = new URLSearchParams('from=2026-11-01');
    addressWith(current, DASHBOARD, { from: '2026-11-02', to: '2026-11-03' });
    expect(current.toString()).to.equal('from=2026-11-01');
  });

  it('builds a change on the one before while the router has not moved to it yet, and on the address once it has', () => {
    const waiting = { from: '?campaignId=7', to: '?campaignId=7&from=2026-11-26' };
    expect(baseSearch('?campaignId=7', waiting), 'the From date not yet in the address').to.equal(waiting.to);
    expect(baseSearch(waiting.to, waiting), 'the address moved').to.equal(waiting.to);
    expect(baseSearch('?campaignId=9', waiting), 'the reader went elsewhere (back, a link)').to.equal('?campaignId=9');
    expect(baseSearch('?q=x', null)).to.equal('?q=x');
  });
});
