import { expect } from 'chai';
import { copyName, duplicateInput } from '../src/domain/campaign';

describe('a campaign\'s duplicate', () => {
  it('is named as a copy, cut in characters to keep within the name\'s 100', () => {
    expect(copyName('Spring sale')).to.equal('Spring sale (copy)');
    expect(copyName('x'.repeat(93))).to.equal(`${'x'.repeat(93)} (copy)`);
    expect(copyName('x'.repeat(100))).to.equal(`${'x'.repeat(93)} (copy)`);
    // An emoji with its modifier is one character: kept whole, or left out whole.
    expect(copyName(`${'a'.repeat(92)}👍🏽tail`)).to.equal(`${'a'.repeat(92)}👍🏽 (copy)`);
    expect(copyName(`${'a'.repeat(93)} and more`)).to.equal(`${'a'.repeat(93)} (copy)`);
  });

  it('keeps within the encoded cap when few characters are built of many code units', () => {
    const family = '👨‍👩‍👧';
    const name = family.repeat(100);
    const copy = copyName(name);
    expect(copy.endsWith(' (copy)')).to.equal(true);
    expect(copy.length).to.be.at.most(800);
  });

  it('has the same creative inputs and replaces nothing', () => {
    const input = { name: 'N', format: 'bot' as const, title: 'T', text: 'X', destinationUrl: 'https://a.example', buttonText: 'B', imageUrl: null, language: 'en', replaces: 7 };
    expect(duplicateInput(input)).to.deep.equal({ ...input, name: 'N (copy)', replaces: null });
  });
});
