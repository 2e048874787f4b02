import { languagePattern, MAX_LANGUAGE_TAG_LENGTH } from '@pilot/contracts';
import { expect } from 'chai';
import { buildAd, clickUrlOf } from '../src/domain/ad';
import { parseLanguage } from '../src/domain/language';
import { rateLimitHeaders } from '../src/domain/rate-limit';

describe('ad request language', () => {
  it('defaults to en when absent', () => {
    expect(parseLanguage(undefined)).to.equal('en');
  });

  it('accepts lowercase ISO 639-1 codes and lowercases uppercase ones', () => {
    expect(parseLanguage('tr')).to.equal('tr');
    expect(parseLanguage('RU')).to.equal('ru');
    expect(parseLanguage('Zh')).to.equal('zh');
  });

  it('accepts a BCP 47 tag whose primary subtag is an ISO 639-1 code, selecting on that subtag (API.md)', () => {
    expect(parseLanguage('en-US')).to.equal('en');
    expect(parseLanguage('pt-br')).to.equal('pt');
    expect(parseLanguage('ZH-Hant-TW')).to.equal('zh');
    expect(parseLanguage('sr-Latn')).to.equal('sr');
  });

  it('refuses all, english, zz, unknown codes, other lengths, malformed tags, empty and repeated values', () => {
    for (const value of ['all', 'ALL', 'english', 'zz', 'xx', 'eng', 'e', '', 'e1', ' en', 'en_US', 'en-', 'en--US', 'zz-US', 'en-US-'.repeat(8), ['en', 'tr'], { a: 'b' }]) {
      expect(parseLanguage(value), JSON.stringify(value)).to.equal(null);
    }
  });
});

describe('the language pattern of the OpenAPI document', () => {
  // As a JSON Schema validator applies it: the pattern with the u flag, and the document's length bounds.
  const pattern = new RegExp(languagePattern(), 'u');
  const documented = (value: string) => value.length >= 2 && value.length <= MAX_LANGUAGE_TAG_LENGTH && pattern.test(value);

  it('matches exactly the two-letter values the server accepts, in any case (zz refused)', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    for (const first of letters) {
      for (const second of letters) {
        for (const value of [`${first}${second}`, `${first.toUpperCase()}${second}`, `${first}${second}`.toUpperCase()]) {
          expect(documented(value), value).to.equal(parseLanguage(value) !== null);
        }
      }
    }
    expect(documented('zz')).to.equal(false);
  });

  it('agrees with the server on tags, accepted and refused', () => {
    const accepted = ['en-US', 'pt-br', 'PT-BR', 'zh-Hant-TW', 'sr-Latn', 'es-419', 'de-CH-1996', 'sl-rozaj-biske', 'en-u-ca-gregory', 'en-x-private', 'ca-ES-valencia'];
    const refused = ['all', 'english', 'zz', 'zz-US', 'eng', 'e', '', ' en', 'en_US', 'en-', 'en--US', 'en-US-', 'xx-Latn', 'en-a', 'en-x', 'en-toolongsubtag', 'en-US-'.repeat(8)];
    for (const value of accepted) expect([value, documented(value)]).to.deep.equal([value, true]);
    for (const value of [...accepted, ...refused]) expect([value, documented(value)]).to.deep.equal([value, parseLanguage(value) !== null]);
  });
});

describe('ad object', () => {
  it('carries every field of SPEC.md with its constant', () => {
    const ad = buildAd(
      {
        campaignId: 12,
        ownerAccountId: '5',
        status: 'active',
        format: 'bot',
        language: 'en',
        title: 'T',
        text: 'Body',
        buttonText: 'Go',
        imageUrl: null,
        destinationUrl: 'https://example.org',
        version: 3,
      },
      { clickUrl: clickUrlOf('https://pilot.example/', 'abc.def'), deliveryToken: 'tok' },
    );
    expect(ad).to.deep.equal({
      campaign_id: 12,
      title: 'T',
      text: 'Body',
      button_text: 'Go',
      image_url: null,
      click_url: 'https://pilot.example/api/network/click/abc.def',
      delivery_token: 'tok',
      expires_in: 3600,
      sponsored: true,
      billing: 'pilot_non_billable',
    });
  });
});

describe('rate-limit headers', () => {
  it('publish the limit, what is left, the seconds to reset and the policy', () => {
    expect(rateLimitHeaders({ consumed: 1, msBeforeReset: 59_001 })).to.deep.equal({
      'RateLimit-Limit': '60',
      'RateLimit-Remaining': '59',
      'RateLimit-Reset': '60',
      'RateLimit-Policy': '60;w=60',
    });
    expect(rateLimitHeaders({ consumed: 60, msBeforeReset: 0 })['RateLimit-Reset']).to.equal('1');
  });
});
