import type { CachedCampaign } from '@pilot/campaign-cache';
import { seededRandom } from '@pilot/testkit';
import { expect } from 'chai';
import { CampaignIndex } from '../src/domain/selection';

function campaign(campaignId: number, overrides: Partial<CachedCampaign> = {}): CachedCampaign {
  return {
    campaignId,
    ownerAccountId: '1000',
    status: 'active',
    format: 'bot',
    language: 'en',
    title: `title ${campaignId}`,
    text: 'text',
    buttonText: 'Open',
    imageUrl: null,
    destinationUrl: 'https://example.org/',
    version: 4,
    ...overrides,
  };
}

const botEn = { format: 'bot' as const, language: 'en', excludedOwnerAccountId: '1' };

/** Chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(counts: Map<number, number>, categories: number, draws: number): number {
  const expected = draws / categories;
  let statistic = 0;
  for (const count of counts.values()) statistic += (count - expected) ** 2 / expected;
  // Categories never drawn contribute `expected` each.
  statistic += (categories - counts.size) * expected;
  return statistic;
}

function tally(index: CampaignIndex, query: typeof botEn, draws: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 0; i < draws; i += 1) {
    const picked = index.pick(query);
    if (!picked) throw new Error('nothing picked');
    counts.set(picked.campaignId, (counts.get(picked.campaignId) ?? 0) + 1);
  }
  return counts;
}

// Critical values of the chi-square distribution at p = 0.001.
const CHI2_999 = { 9: 27.88, 11: 31.26, 4: 18.47, 2: 13.82 } as const;

describe('campaign selection index', () => {
  it('selects only campaigns whose format equals the publisher type', () => {
    const index = new CampaignIndex(seededRandom(1));
    index.reset([campaign(1, { format: 'channel' })]);
    expect(index.pick(botEn)).to.equal(null);
    index.upsert(campaign(2, { format: 'bot' }));
    expect(index.pick(botEn)?.campaignId).to.equal(2);
  });

  it('selects campaigns whose language equals the requested one or is all, and no other', () => {
    const index = new CampaignIndex(seededRandom(2));
    index.reset([campaign(1, { language: 'tr' }), campaign(2, { language: 'all' }), campaign(3, { language: 'en' })]);
    const picked = new Set([...tally(index, botEn, 200).keys()]);
    expect([...picked].sort()).to.deep.equal([2, 3]);
    const turkish = new Set([...tally(index, { ...botEn, language: 'tr' }, 200).keys()]);
    expect([...turkish].sort()).to.deep.equal([1, 2]);
    expect(index.pick({ ...botEn, language: 'ru' })?.campaignId).to.equal(2);
  });

  it("excludes the publisher's own account and answers null when only own campaigns qualify", () => {
    const index = new CampaignIndex(seededRandom(3));
    index.reset([campaign(1, { ownerAccountId: '7' }), campaign(2, { ownerAccountId: '7', language: 'all' })]);
    expect(index.pick({ ...botEn, excludedOwnerAccountId: '7' })).to.equal(null);
    expect(index.pick({ ...botEn, excludedOwnerAccountId: '8' })).to.not.equal(null);
    index.upsert(campaign(3, { ownerAccountId: '9' }));
    const picked = tally(index, { ...botEn, excludedOwnerAccountId: '7' }, 100);
    expect([...picked.keys()]).to.deep.equal([3]);
  });

  it('stops selecting a removed campaign and forgets everything on reset', () => {
    const index = new CampaignIndex(seededRandom(4));
    index.reset([campaign(1), campaign(2), campaign(3)]);
    index.remove(2);
    expect(index.has(2)).to.equal(false);
    expect([...tally(index, botEn, 200).keys()].sort()).to.deep.equal([1, 3]);
    index.remove(2); // removing twice is harmless
    index.reset([campaign(9)]);
    expect(index.size()).to.equal(1);
    expect(index.pick(botEn)?.campaignId).to.equal(9);
  });

  it('moves a campaign whose attributes changed instead of keeping two copies', () => {
    const index = new CampaignIndex(seededRandom(5));
    index.upsert(campaign(1, { language: 'en' }));
    index.upsert(campaign(1, { language: 'tr', version: 5 }));
    expect(index.size()).to.equal(1);
    expect(index.pick(botEn)).to.equal(null);
    expect(index.pick({ ...botEn, language: 'tr' })?.version).to.equal(5);
  });

  it('is uniform over the qualifying campaigns of both buckets (chi-square, 10 campaigns, 20000 draws)', () => {
    const index = new CampaignIndex(seededRandom(6));
    const campaigns = Array.from({ length: 10 }, (_, i) =>
      campaign(i + 1, { ownerAccountId: String(100 + (i % 4)), language: i % 3 === 0 ? 'all' : 'en' }),
    );
    index.reset(campaigns);
    const draws = 20_000;
    const counts = tally(index, botEn, draws);
    expect(counts.size).to.equal(10);
    expect(chiSquare(counts, 10, draws)).to.be.below(CHI2_999[9]);
  });

  it('stays uniform when a few candidates are excluded (rejection sampling path)', () => {
    const index = new CampaignIndex(seededRandom(7));
    // 15 candidates, 3 of them the publisher's own: 12 eligible.
    const campaigns = Array.from({ length: 15 }, (_, i) => campaign(i + 1, { ownerAccountId: i < 3 ? '1' : String(200 + i) }));
    index.reset(campaigns);
    const draws = 24_000;
    const counts = tally(index, botEn, draws);
    for (const own of [1, 2, 3]) expect(counts.has(own)).to.equal(false);
    expect(counts.size).to.equal(12);
    expect(chiSquare(counts, 12, draws)).to.be.below(CHI2_999[11]);
  });

  it('stays uniform when the own account holds most candidates (enumeration path)', () => {
    const index = new CampaignIndex(seededRandom(8));
    // 20 candidates across both buckets, 17 own: 3 eligible.
    const campaigns = Array.from({ length: 20 }, (_, i) =>
      campaign(i + 1, { ownerAccountId: i < 17 ? '1' : String(300 + i), language: i % 2 === 0 ? 'all' : 'en' }),
    );
    index.reset(campaigns);
    const draws = 9_000;
    const counts = tally(index, botEn, draws);
    expect([...counts.keys()].sort((a, b) => a - b)).to.deep.equal([18, 19, 20]);
    expect(chiSquare(counts, 3, draws)).to.be.below(CHI2_999[2]);
  });

  it('costs about the same number of random draws with 10 or 100000 campaigns', () => {
    const drawsPerPick = (size: number): number => {
      let calls = 0;
      const random = seededRandom(9);
      const index = new CampaignIndex(() => {
        calls += 1;
        return random();
      });
      // A tenth of every bucket belongs to the publisher's own account.
      index.reset(Array.from({ length: size }, (_, i) => campaign(i + 1, { ownerAccountId: i % 10 === 0 ? '1' : '2' })));
      for (let i = 0; i < 2000; i += 1) index.pick(botEn);
      return calls / 2000;
    };
    const small = drawsPerPick(10);
    const large = drawsPerPick(100_000);
    expect(small).to.be.below(1.5);
    expect(large).to.be.below(1.5);
  });
});

describe('CampaignIndex: why nothing qualified (Pilot-No-Fill-Reason)', () => {
  it('says no_active_campaign when nothing is active, also after the last campaign is paused', () => {
    const index = new CampaignIndex();
    expect(index.noFillReason(botEn)).to.equal('no_active_campaign');
    index.upsert(campaign(1, { format: 'channel' }));
    index.remove(1);
    expect(index.noFillReason(botEn)).to.equal('no_active_campaign');
  });

  it('says no_campaign_for_format when only the other format has campaigns', () => {
    const index = new CampaignIndex();
    index.upsert(campaign(1, { format: 'channel', language: 'all' }));
    expect(index.pick(botEn)).to.equal(null);
    expect(index.noFillReason(botEn)).to.equal('no_campaign_for_format');
  });

  it('says no_campaign_for_language when the format has campaigns, none in this language or in all', () => {
    const index = new CampaignIndex();
    index.upsert(campaign(1, { language: 'tr' }));
    expect(index.pick(botEn)).to.equal(null);
    expect(index.noFillReason(botEn)).to.equal('no_campaign_for_language');
    index.upsert(campaign(2, { language: 'all', ownerAccountId: '1' }));
    expect(index.noFillReason(botEn), 'an own campaign in all').to.equal('own_campaigns_only');
  });

  it('says own_campaigns_only when every qualifying campaign is the publisher owner\'s own', () => {
    const index = new CampaignIndex();
    index.upsert(campaign(1, { ownerAccountId: '1' }));
    index.upsert(campaign(2, { ownerAccountId: '1', language: 'all' }));
    expect(index.pick(botEn)).to.equal(null);
    expect(index.noFillReason(botEn)).to.equal('own_campaigns_only');
  });

  it('keeps its per-format count through moves and a reset', () => {
    const index = new CampaignIndex();
    index.upsert(campaign(1, { format: 'bot', language: 'tr' }));
    index.upsert(campaign(1, { format: 'channel', language: 'tr' })); // the same campaign, changed
    expect(index.noFillReason(botEn)).to.equal('no_campaign_for_format');
    index.reset([campaign(2, { language: 'de' })]);
    expect(index.noFillReason(botEn)).to.equal('no_campaign_for_language');
    index.reset([]);
    expect(index.noFillReason(botEn)).to.equal('no_active_campaign');
  });
});

describe('CampaignIndex.demand: what a platform could be served now', () => {
  it('counts other owners\' campaigns of the format per language, all under its own name, and says why a missing language gets nothing', () => {
    const index = new CampaignIndex(seededRandom(9));
    expect(index.demand('bot', '1')).to.deep.equal({ format: 'bot', activeCampaigns: 0, languages: [], noFillReason: 'no_active_campaign' });
    index.upsert(campaign(1, { format: 'channel', language: 'en', ownerAccountId: '2' }));
    expect(index.demand('bot', '1').noFillReason).to.equal('no_campaign_for_format');
    index.upsert(campaign(2, { format: 'bot', language: 'tr', ownerAccountId: '1' }));
    expect(index.demand('bot', '1')).to.deep.equal({ format: 'bot', activeCampaigns: 0, languages: [], noFillReason: 'own_campaigns_only' });
    index.upsert(campaign(3, { format: 'bot', language: 'en', ownerAccountId: '2' }));
    index.upsert(campaign(4, { format: 'bot', language: 'all', ownerAccountId: '3' }));
    index.upsert(campaign(5, { format: 'bot', language: 'en', ownerAccountId: '3' }));
    expect(index.demand('bot', '1')).to.deep.equal({
      format: 'bot',
      activeCampaigns: 3,
      languages: [
        { language: 'en', activeCampaigns: 2 },
        { language: 'all', activeCampaigns: 1 },
      ],
      noFillReason: 'no_campaign_for_language',
    });
    index.remove(5);
    expect(index.demand('bot', '2').languages).to.deep.equal([
      { language: 'all', activeCampaigns: 1 },
      { language: 'tr', activeCampaigns: 1 },
    ]);
  });
});
