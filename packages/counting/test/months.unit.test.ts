import { expect } from 'chai';
import { monthsBetween, monthsToRead } from '../src/months';

describe('months of the totals documents', () => {
  const now = new Date('2026-11-27T10:00:00Z');

  it('lists the months between two, across a year', () => {
    expect(monthsBetween('2025-11', '2026-02')).to.deep.equal(['2025-11', '2025-12', '2026-01', '2026-02']);
    expect(monthsBetween('2026-03', '2026-03')).to.deep.equal(['2026-03']);
    expect(monthsBetween('2026-04', '2026-03')).to.deep.equal([]);
  });

  it('reads all time from the first month counted to now, and nothing before the first fold', () => {
    expect(monthsToRead({}, '2026-09', now)).to.deep.equal(['2026-09', '2026-10', '2026-11']);
    expect(monthsToRead({}, null, now)).to.deep.equal([]);
  });

  it('reads a range within what was counted: never before the first month nor after tomorrow', () => {
    expect(monthsToRead({ from: '2026-10-30', to: '2026-11-02' }, '2026-01', now)).to.deep.equal(['2026-10', '2026-11']);
    expect(monthsToRead({ from: '2000-01-01', to: '2099-12-31' }, '2026-10', now)).to.deep.equal(['2026-10', '2026-11']);
    // The last day of a month: tomorrow's month too (a writer's clock a little ahead).
    expect(monthsToRead({}, '2026-11', new Date('2026-11-30T23:00:00Z'))).to.deep.equal(['2026-11', '2026-12']);
  });
});
