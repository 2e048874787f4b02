import { expect } from 'chai';
import { recordIdOf } from '../src/validation/record-id';

describe('record ids as paths, queries and stored keys write them', () => {
  it('reads a positive decimal integer up to the largest safe one', () => {
    expect(recordIdOf('1')).to.equal(1);
    expect(recordIdOf('4096')).to.equal(4096);
    expect(recordIdOf(String(Number.MAX_SAFE_INTEGER))).to.equal(Number.MAX_SAFE_INTEGER);
  });

  it('refuses zero, signs, leading zeros, fractions, exponents, spaces, unsafe integers and non-strings', () => {
    for (const raw of ['0', '-1', '+1', '01', '1.5', '1e3', ' 1', '1 ', '', '9007199254740992', '12345678901234567', '0x10', 'abc']) {
      expect(recordIdOf(raw), raw).to.equal(null);
    }
    for (const value of [1, undefined, null, ['1'], { id: '1' }]) expect(recordIdOf(value)).to.equal(null);
  });
});
