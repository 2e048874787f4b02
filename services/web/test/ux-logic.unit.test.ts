import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { CAMPAIGN_LANGUAGES } from '../../../packages/contracts/src/schemas/languages';
import { SERIES } from '../frontend/src/chart-series';
import { languageChoices } from '../frontend/src/languages';
import { actionWords, recordPath, statusWord } from '../frontend/src/status-words';
import { normalizedLink, otherClaims, sharedLinks } from '../frontend/src/publisher-link';
import { publicLanguageOf, publicWords } from '../frontend/src/public-words';
import { oldestFirst } from '../frontend/src/hooks/review-queue';
import { isKnownPage } from '../src/http/site-routes';
import type { Publisher } from '../frontend/src/types';

function platform(id: number, link: string, ownerAccountId: string): Publisher {
  return { id, type: 'bot', link, status: 'submitted', ownerAccountId, keyCreatedAt: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
}

describe('one vocabulary of statuses and audit actions', () => {
  it('says the same word for a status wherever it is shown, and the audit actions as words', () => {
    expect(statusWord('submitted')).to.equal('In review');
    expect(statusWord('approved')).to.equal('Approved');
    expect(statusWord('something-new')).to.equal('something-new');
    expect(actionWords('key_rotated')).to.equal('Server key rotated');
    expect(actionWords('submitted')).to.equal('Submitted for review');
    expect(actionWords('brand_new_action')).to.equal('brand new action');
  });

  it('links an audit row to its record where the record has a page', () => {
    expect(recordPath('campaign', 7)).to.equal('/workspace/campaigns/7');
    expect(recordPath('publisher', '3')).to.equal('/workspace/publishers/3');
    expect(recordPath('placement', 'tr-footer')).to.equal('/workspace/placements');
    expect(recordPath('account', '42')).to.equal(null);
  });
});

describe('platform links as people paste them', () => {
  it('turns t.me/x, http://t.me/x, telegram.me/x/ and @x into https://t.me/x', () => {
    for (const typed of ['t.me/news_bot', 'http://t.me/news_bot', 'https://telegram.me/news_bot/', ' @news_bot ', 'HTTPS://WWW.T.ME/news_bot', 'https://t.me/news_bot']) {
      expect(normalizedLink(typed), typed).to.equal('https://t.me/news_bot');
    }
  });

  it('leaves what is not a platform link alone', () => {
    for (const typed of ['https://example.com/news_bot', 't.me/', 'news_bot', 'https://t.me/ab', 'https://t.me/news_bot?start=1', '@abcd']) {
      expect(normalizedLink(typed), typed).to.equal(null);
    }
  });

  it('follows the server\'s rule for usernames: 5 to 32 letters, digits or underscores, a digit first included', () => {
    expect(normalizedLink('@1weather_bot')).to.equal('https://t.me/1weather_bot');
    expect(normalizedLink(`@${'a'.repeat(32)}`)).to.equal(`https://t.me/${'a'.repeat(32)}`);
    expect(normalizedLink(`@${'a'.repeat(33)}`)).to.equal(null);
  });

  it('finds a link registered by several accounts, ignoring case, but not an account registering its own link twice', () => {
    const list = [platform(1, 'https://t.me/Shared_bot', '10'), platform(2, 'https://t.me/shared_bot', '11'), platform(3, 'https://t.me/own_bot', '12'), platform(4, 'https://t.me/own_bot', '12')];
    expect([...sharedLinks(list).keys()]).to.deep.equal(['shared_bot']);
    expect(otherClaims(list[0]!, sharedLinks(list)).map((claim) => claim.id)).to.deep.equal([2]);
    expect(otherClaims(list[2]!, sharedLinks(list))).to.deep.equal([]);
  });
});

describe('the /tr journey stays Turkish', () => {
  it('reads the language from /tr and from the sign-in page it leads to', () => {
    expect(publicLanguageOf('/tr', '')).to.equal('tr');
    expect(publicLanguageOf('/signin', '?lang=tr')).to.equal('tr');
    expect(publicLanguageOf('/signin', '')).to.equal('en');
    expect(publicLanguageOf('/', '?lang=de')).to.equal('en');
    expect(publicWords('tr').signInPath).to.equal('/signin?lang=tr');
  });
});

describe('the review queue', () => {
  it('is a page of the site (200 with the app, not the not-found page)', () => {
    expect(isKnownPage('/workspace/review')).to.equal(true);
    expect(isKnownPage('/workspace/review/')).to.equal(true);
    expect(isKnownPage('/workspace/reviews')).to.equal(false);
  });

  it('puts what has waited longest first', () => {
    const items = [
      { id: 3, updatedAt: '2026-01-03T00:00:00Z' },
      { id: 1, updatedAt: '2026-01-01T00:00:00Z' },
      { id: 2, updatedAt: '2026-01-01T00:00:00Z' },
    ];
    expect(oldestFirst(items).map((item) => item.id)).to.deep.equal([1, 2, 3]);
  });

  it('orders platforms by when they entered their status, not by a key made since', () => {
    const items = [
      { id: 1, updatedAt: '2026-01-05T00:00:00Z', statusChangedAt: '2026-01-01T00:00:00Z' },
      { id: 2, updatedAt: '2026-01-02T00:00:00Z', statusChangedAt: '2026-01-02T00:00:00Z' },
    ];
    expect(oldestFirst(items).map((item) => item.id)).to.deep.equal([1, 2]);
  });
});

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, b2] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b2!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

describe('contrast of the chart legend and the small badges', () => {
  it('writes each legend name in its series colour at 4.5:1 or more on the white chart', () => {
    for (const series of SERIES) expect(contrast(series.color, '#ffffff'), series.name).to.be.at.least(4.5);
  });

  it('gives every badge and every text colour of styles.css 4.5:1 or more on its backgrounds, in the light and the dark scheme', () => {
    const css = fs.readFileSync(path.join(__dirname, '..', 'frontend', 'src', 'styles.css'), 'utf8');
    const paletteOf = (block: string) => new Map([...block.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-f]{6})/gi)].map((match) => [match[1]!, match[2]!]));
    const light = paletteOf(/^:root \{([^}]*)\}/m.exec(css)?.[1] ?? '');
    const darkOverrides = paletteOf(/@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}/.exec(css)?.[1] ?? '');
    expect(darkOverrides.size, 'a dark scheme').to.be.greaterThan(20);
    const dark = new Map([...light, ...darkOverrides]);
    const rules = [...css.matchAll(/^(\.badge[^{]*)\{([^}]*)\}/gm)];
    expect(rules.length).to.be.greaterThan(4);
    const pairs: Array<[string, string]> = [
      ['ink', 'bg'], ['ink', 'surface'], ['ink', 'notice-bg'], ['ink', 'warning-bg'], ['ink', 'danger-bg'], ['ink', 'code-bg'],
      ['muted', 'bg'], ['muted', 'surface'], ['accent', 'bg'], ['accent', 'surface'], ['accent', 'notice-bg'],
      ['danger', 'bg'], ['danger', 'surface'], ['danger', 'danger-bg'], ['on-accent', 'accent'], ['on-danger', 'danger'],
    ];
    for (const [scheme, palette] of [['light', light], ['dark', dark]] as const) {
      const colour = (value: string) => (value.startsWith('var(') ? palette.get(value.slice(6, -1)) : value.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3'));
      for (const [, selector, body] of rules) {
        const background = /background:\s*([^;]+);/.exec(body!)?.[1]?.trim() ?? 'var(--badge-bg)';
        const text = /(?:^|;)\s*color:\s*([^;]+);/.exec(body!)?.[1]?.trim() ?? 'var(--badge-ink)';
        expect(contrast(colour(text)!, colour(background)!), `${scheme}: ${selector!.trim()}`).to.be.at.least(4.5);
      }
      for (const [text, background] of pairs) {
        expect(contrast(palette.get(text)!, palette.get(background)!), `${scheme}: ${text} on ${background}`).to.be.at.least(4.5);
      }
    }
  });
});

describe('the language choice', () => {
  it('offers every code the campaign service accepts, "All languages" first, each with its name', () => {
    const choices = languageChoices();
    expect(choices[0]).to.deep.equal({ code: 'all', label: 'All languages' });
    expect(new Set(choices.map((choice) => choice.code))).to.deep.equal(new Set(CAMPAIGN_LANGUAGES));
    expect(choices.length).to.equal(CAMPAIGN_LANGUAGES.length);
    expect(choices.find((choice) => choice.code === 'tk')?.label).to.equal('Turkmen');
    const unnamed = choices.filter((choice) => choice.label === choice.code);
    expect(unnamed, 'codes the browser has no name for').to.deep.equal([]);
  });
});
