import { expect } from 'chai';
import { graphemeLength, lengthExcess, lengthExcessMessage, UTF16_UNITS_PER_CHARACTER } from '../src/validation/text-length';

describe('text length limits', () => {
  it('counts user-perceived characters', () => {
    expect(graphemeLength('👨‍👩‍👧')).to.equal(1);
    expect(graphemeLength('🇹🇷a')).to.equal(2);
    expect(graphemeLength(`a${'\u0301'.repeat(20_000)}`)).to.equal(1);
  });

  it('refuses more characters than the limit with too_long', () => {
    expect(lengthExcess('a'.repeat(101), 100)).to.equal('too_long');
    expect(lengthExcess('a'.repeat(100), 100)).to.equal(null);
  });

  it('refuses few characters made of too many UTF-16 code units with too_long_encoded', () => {
    expect(UTF16_UNITS_PER_CHARACTER).to.equal(8);
    expect(lengthExcess(`a${'\u0301'.repeat(20_000)}`, 100)).to.equal('too_long_encoded');
    expect(lengthExcess(`a${'\u0301'.repeat(799)}`, 100)).to.equal(null);
    expect(lengthExcess(`a${'\u0301'.repeat(800)}`, 100)).to.equal('too_long_encoded');
    expect(lengthExcess('👨‍👩‍👧'.repeat(100), 100)).to.equal(null);
  });

  it('names the field and the limit in the message', () => {
    expect(lengthExcessMessage('title', 'too_long', 100)).to.equal('title must have at most 100 characters');
    expect(lengthExcessMessage('title', 'too_long_encoded', 100)).to.contain('at most 800 UTF-16 code units');
  });
});
