import { BIDI_CONTROLS as SERVER_BIDI_CONTROLS, CAMPAIGN_LIMITS, UTF16_UNITS_PER_CHARACTER as SERVER_UNITS, lengthExcess, textProblem } from '@pilot/contracts';
import { expect } from 'chai';
import { BIDI_CONTROLS, LIMITS, UTF16_UNITS_PER_CHARACTER, counterOf, creativeTextHint, overLimit } from '../frontend/src/limits';

describe('the form counts a creative text as the server does', () => {
  it('uses the server\'s limits, encoded cap and text-direction controls', () => {
    expect(UTF16_UNITS_PER_CHARACTER).to.equal(SERVER_UNITS);
    expect(BIDI_CONTROLS.source).to.equal(SERVER_BIDI_CONTROLS.source);
    for (const field of ['name', 'title', 'text', 'buttonText'] as const) expect(LIMITS[field].max).to.equal(CAMPAIGN_LIMITS[field]);
  });

  it('says over the limit where the server would refuse: too many characters, or few characters made of many marks', () => {
    const marked = `a${'\u0301'.repeat(11)}`.repeat(80);
    expect(lengthExcess(marked, 100), 'the server refuses it').to.equal('too_long_encoded');
    expect(overLimit(marked, 100)).to.equal(true);
    expect(counterOf(marked, 100)).to.deep.equal({ text: '80 / 100, but too long once encoded', over: true });
    expect(creativeTextHint(marked, LIMITS.title)).to.match(/^Too long once encoded/);
    expect(counterOf('x'.repeat(101), 100)).to.deep.equal({ text: '101 / 100: 1 over the limit', over: true });
    expect(counterOf('héllo 👩‍👩‍👧', 100)).to.deep.equal({ text: '7 / 100', over: false });
    for (const text of ['x'.repeat(100), '👩‍👩‍👧'.repeat(100), marked, 'x'.repeat(101)]) {
      expect(overLimit(text, 100), text.slice(0, 10)).to.equal(lengthExcess(text, 100) !== null);
    }
  });

  it('refuses every bidirectional control in a creative text, in the form and on the server', () => {
    for (const control of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      const label = `Buy${control} now`;
      expect(creativeTextHint(label, LIMITS.buttonText), `U+${control.codePointAt(0)?.toString(16)}`).to.match(/text-direction/);
      expect(textProblem('buttonText', label, { max: 32, creative: true })?.code).to.equal('bidi_control_characters');
      expect(textProblem('reason', label, { max: 500, multiLine: true }), 'a reason is not a creative text').to.equal(null);
    }
    expect(creativeTextHint('שלום עולם', LIMITS.title), 'right-to-left letters themselves are fine').to.equal(null);
  });
});
