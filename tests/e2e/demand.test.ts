/**
 * A platform's demand through the gateway (API.md): GET /api/workspace/publishers/{id}/demand answers the
 * active campaigns of the platform's format, other owners' only, per language (`all` under its own name),
 * and the no-fill reason a live ad request would get now, to its owner and to administrators; anyone else
 * 404, no session 401. The figures follow activations and pauses, as the ad endpoint does.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from './support/clients';
import { activeCampaign, approvedPublisher, draftCampaign } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

interface Demand {
  format: string;
  activeCampaigns: number;
  languages: Array<{ language: string; activeCampaigns: number }>;
  noFillReason: string;
}

describe('what the network could serve a platform (through the gateway)', function () {
  this.timeout(180_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '7601');
    owner = await signedIn(system, '7602');
  });

  after(async () => {
    await system?.stop();
  });

  const demandOf = async (who: Browser, id: number) => who.get<Demand>(`/api/workspace/publishers/${id}/demand`);
  const settles = async (who: Browser, id: number, expected: Demand): Promise<void> => {
    await waitFor(
      async () => {
        const last = (await demandOf(who, id)).body;
        if (JSON.stringify(last) !== JSON.stringify(expected)) throw new Error(`the demand is ${JSON.stringify(last)}`);
        return true;
      },
      { message: `the demand to be ${JSON.stringify(expected)}` },
    );
  };

  it('says why nothing is served before any campaign is active, and counts other owners\' active campaigns of the format by language', async () => {
    const bot = (await approvedPublisher(system, owner, admin, 'bot')).publisher;
    expect((await demandOf(owner, bot.id)).body).to.deep.equal({ format: 'bot', activeCampaigns: 0, languages: [], noFillReason: 'no_active_campaign' });

    await activeCampaign(advertiser, admin, { format: 'channel', language: 'en' });
    await settles(owner, bot.id, { format: 'bot', activeCampaigns: 0, languages: [], noFillReason: 'no_campaign_for_format' });

    await activeCampaign(owner, admin, { language: 'tr' }); // the owner's own: never served to its platform
    await settles(owner, bot.id, { format: 'bot', activeCampaigns: 0, languages: [], noFillReason: 'own_campaigns_only' });

    const english = await activeCampaign(advertiser, admin, { language: 'en' });
    await activeCampaign(advertiser, admin, { language: 'en' });
    await activeCampaign(advertiser, admin, { language: 'all' });
    await draftCampaign(advertiser, { language: 'de' }); // not active
    const expected = {
      format: 'bot',
      activeCampaigns: 3,
      languages: [
        { language: 'en', activeCampaigns: 2 },
        { language: 'all', activeCampaigns: 1 },
      ],
      noFillReason: 'no_campaign_for_language',
    };
    await settles(owner, bot.id, expected);
    expect((await demandOf(admin, bot.id)).body, 'an administrator sees it too').to.deep.equal(expected);

    // The ad endpoint agrees: a language listed gets an ad, another the reason given.
    const key = (await owner.post<{ key: string }>(`/api/workspace/publishers/${bot.id}/keys`)).body.key;
    const call = (language: string) => fetch(`${system.baseUrl}/api/network/ad?language=${language}`, { headers: { authorization: `Bearer ${key}` } });
    expect((await call('de')).status).to.equal(200); // `all` serves every language
    expect((await admin.post(`/api/workspace/campaigns/${english.id}/pause`)).status).to.equal(200);
    await settles(owner, bot.id, { ...expected, activeCampaigns: 2, languages: [{ language: 'all', activeCampaigns: 1 }, { language: 'en', activeCampaigns: 1 }] });
  });

  it('answers the owner and administrators only: 404 for anyone else or an unknown platform, 401 without a session', async () => {
    const bot = (await approvedPublisher(system, owner, admin, 'bot')).publisher;
    const stranger = await signedIn(system, '7699');
    const refused = await demandOf(stranger, bot.id);
    expect(refused.status).to.equal(404);
    expect(refused.body).to.include({ code: 'publisher_not_found' });
    expect((await demandOf(owner, 999_999)).status).to.equal(404);
    expect((await demandOf(owner, 0)).status).to.equal(404);
    const anonymous = await fetch(`${system.baseUrl}/api/workspace/publishers/${bot.id}/demand`);
    expect(anonymous.status).to.equal(401);
  });
});
