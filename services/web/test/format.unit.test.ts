import { expect } from 'chai';
import { formatChange, formatCount, formatDate, formatDateTime, formatHour, formatShare } from '../frontend/src/format';

describe('the workspace\'s one number format and time rule', () => {
  it('writes counts with thousands separators', () => {
    expect(formatCount(0)).to.equal('0');
    expect(formatCount(23775)).to.equal('23,775');
    expect(formatCount(1234567)).to.equal('1,234,567');
  });

  it('writes shares rounded to one decimal, never as a whole not reached nor as nothing when there is some', () => {
    expect(formatShare(15, 27)).to.equal('55.6%');
    expect(formatShare(6, 9)).to.equal('66.7%');
    expect(formatShare(19, 60)).to.equal('31.7%');
    expect(formatShare(23769, 23775)).to.equal('99.9%');
    expect(formatShare(1, 5000)).to.equal('0.1%');
    expect(formatShare(0, 5000)).to.equal('0.0%');
    expect(formatShare(3, 3)).to.equal('100.0%');
    expect(formatShare(1, 3)).to.equal('33.3%');
    expect(formatShare(1, 40)).to.equal('2.5%');
    expect(formatShare(1, 0)).to.equal(null);
  });

  it('writes no share of a part larger than its whole (3 clicks on 1 confirmed delivery is not a rate)', () => {
    expect(formatShare(3, 1)).to.equal(null);
    expect(formatShare(-1, 3)).to.equal(null);
  });

  it('writes changes against a previous period with their sign', () => {
    expect(formatChange(125, 100)).to.equal('+25.0%');
    expect(formatChange(97, 100)).to.equal('−3.0%');
    expect(formatChange(100, 100)).to.equal('±0.0%');
    expect(formatChange(5, 0)).to.equal(null);
  });

  it('writes every time in UTC and says so', () => {
    expect(formatDateTime('2026-11-27T23:42:10.000Z')).to.equal('27 Nov 2026, 23:42 UTC');
    expect(formatDate('2026-03-01')).to.equal('1 Mar 2026');
    expect(formatDate(new Date('2026-03-01T23:59:59Z'))).to.equal('1 Mar 2026');
    expect(formatHour('2026-03-01T07:00:00.000Z')).to.equal('07:00');
  });
});
