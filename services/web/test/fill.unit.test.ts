import { expect } from 'chai';
import { fillRate } from '../frontend/src/fill';

describe('a platform\'s fill rate (its 200s among its 200s and 204s)', () => {
  it('is the share of ad calls answered with an ad, rounded to one decimal, and none before the first call', () => {
    expect(fillRate(0, 0)).to.equal(null);
    expect(fillRate(0, 3)).to.equal('0.0%');
    expect(fillRate(3, 0)).to.equal('100.0%');
    expect(fillRate(2, 1)).to.equal('66.7%');
    expect(fillRate(1, 2)).to.equal('33.3%');
    expect(fillRate(23_769, 6)).to.equal('99.9%');
  });
});
