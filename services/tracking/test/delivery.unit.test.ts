import { expect } from 'chai';
import { bodyMediaRefusal, utf8Text } from '../src/domain/delivery';

describe('the delivery body: plain UTF-8 JSON only (415 otherwise)', () => {
  it('reads no Content-Type, JSON types with no charset or utf-8, and identity', () => {
    for (const [type, encoding] of [
      [undefined, undefined],
      ['application/json', undefined],
      ['Application/JSON; charset="UTF-8"', 'identity'],
      ['application/problem+json', ''],
    ] as const) {
      expect(bodyMediaRefusal(type, encoding), `${type} ${encoding}`).to.equal(null);
    }
  });

  it('refuses another media type, another charset, any content coding', () => {
    for (const [type, encoding] of [
      ['application/xml', undefined],
      ['text/plain; charset=utf-8', undefined],
      ['application/json; charset=foo', undefined],
      ['application/json; charset=utf-16', undefined],
      ['application/json', 'gzip'],
      ['application/json', 'identity, gzip'],
    ] as const) {
      expect(bodyMediaRefusal(type, encoding), `${type} ${encoding}`).to.be.a('string');
    }
  });

  it('takes as text only UTF-8 bytes without NUL characters', () => {
    expect(utf8Text(Buffer.from('{"token":"é"}'))).to.equal('{"token":"é"}');
    expect(utf8Text(Buffer.from('{"token":"x"}', 'utf16le'))).to.equal(null);
    expect(utf8Text(Buffer.from([0x7b, 0xff, 0x7d]))).to.equal(null);
  });
});
