import { expect } from 'chai';
import { actionWords, recordPath, statusWord } from '../frontend/src/status-words';
import { normalizedLink, otherClaims, sharedLinks } from '../frontend/src/publisher-link';
import { publicLanguageOf, publicWords } from '../frontend/src/public-words';
import { oldestFirst } from '../frontend/src/hooks/review-queue';
import type { Publisher } from '../frontend/src/types';

function platform(id: number, link: string, ownerAccountId: string): Publisher {
  return { id, type: 'bot', link, status: 'submitted', ownerAccountId, keyCreatedAt: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
}

describe('one vocabulary of statuses and audit actions (issue 20, UX)', () => {
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

describe('platform links as people paste them (issue 20, UX)', () => {
  it('turns t.me/x, http://t.me/x, telegram.me/x/ and @x into https://t.me/x', () => {
    for (const typed of ['t.me/news_bot', 'http://t.me/news_bot', 'https://telegram.me/news_bot/', ' @news_bot ', 'HTTPS://WWW.T.ME/news_bot', 'https://t.me/news_bot']) {
      expect(normalizedLink(typed), typed).to.equal('https://t.me/news_bot');
    }
  });

  it('leaves what is not a platform link alone', () => {
    for (const typed of ['https://example.com/news_bot', 't.me/', 'news_bot', 'https://t.me/ab', 'https://t.me/news_bot?start=1']) {
      expect(normalizedLink(typed), typed).to.equal(null);
    }
  });

  it('finds a link registered by several accounts, ignoring case, but not an account registering its own link twice', () => {
    const list = [platform(1, 'https://t.me/Shared_bot', '10'), platform(2, 'https://t.me/shared_bot', '11'), platform(3, 'https://t.me/own_bot', '12'), platform(4, 'https://t.me/own_bot', '12')];
    expect([...sharedLinks(list).keys()]).to.deep.equal(['shared_bot']);
    expect(otherClaims(list[0]!, list).map((claim) => claim.id)).to.deep.equal([2]);
    expect(otherClaims(list[2]!, list)).to.deep.equal([]);
  });
});

describe('the /tr journey stays Turkish (issue 20, UX)', () => {
  it('reads the language from /tr and from the sign-in page it leads to', () => {
    expect(publicLanguageOf('/tr', '')).to.equal('tr');
    expect(publicLanguageOf('/signin', '?lang=tr')).to.equal('tr');
    expect(publicLanguageOf('/signin', '')).to.equal('en');
    expect(publicLanguageOf('/', '?lang=de')).to.equal('en');
    expect(publicWords('tr').signInPath).to.equal('/signin?lang=tr');
  });
});

describe('the review queue (issue 20, UX)', () => {
  it('puts what has waited longest first', () => {
    const items = [
      { id: 3, updatedAt: '2026-01-03T00:00:00Z' },
      { id: 1, updatedAt: '2026-01-01T00:00:00Z' },
      { id: 2, updatedAt: '2026-01-01T00:00:00Z' },
    ];
    expect(oldestFirst(items).map((item) => item.id)).to.deep.equal([1, 2, 3]);
  });
});
