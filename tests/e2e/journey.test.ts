/**
 * The product end to end through the gateway: sign-in through the bot, a campaign reviewed and activated,
 * a publisher approved with a key, an ad served, its delivery confirmed, its link clicked, the totals and
 * the audit as each account sees them.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { openLink, signedIn, type Ad, type Answer, type Browser, PublisherServer } from './support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  days: { date: string }[];
}

async function adFrom(server: PublisherServer, language = 'en'): Promise<Answer<Ad>> {
  return waitFor(async () => {
    const answer = await server.ad(language);
    return answer.status === 200 ? (answer as unknown as Answer<Ad>) : null;
  }, { timeoutMs: 10_000, message: 'an ad to be served' });
}

describe('end to end through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let publisherOwner: Browser;
  let stranger: Browser;
  let campaign: Campaign;
  let server: PublisherServer;
  let publisherId: number;

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '5001');
    publisherOwner = await signedIn(system, '5002');
    stranger = await signedIn(system, '5003');
    campaign = await activeCampaign(advertiser, admin);
    const approved = await approvedPublisher(system, publisherOwner, admin);
    server = approved.server;
    publisherId = approved.publisher.id;
  });

  after(async () => {
    await system?.stop();
  });

  it('serves an active campaign as the Ad object of SPEC.md, then confirms it once and counts one click', async () => {
    const ad = await adFrom(server);
    expect(ad.headers.get('cache-control')).to.contain('no-store');
    expect(ad.body).to.include({
      campaign_id: campaign.id,
      title: campaign.title,
      text: campaign.text,
      button_text: campaign.buttonText,
      image_url: null,
      expires_in: 3600,
      sponsored: true,
      billing: 'pilot_non_billable',
    });
    expect(ad.body.click_url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);
    expect(JSON.stringify({ token: ad.body.delivery_token }).length).to.be.at.most(200);

    const first = await server.confirm(ad.body.delivery_token);
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    const again = await server.confirm(ad.body.delivery_token);
    expect(again.body).to.deep.equal({ status: 'confirmed', first_confirmation: false });

    const head = await openLink(ad.body.click_url, 'HEAD');
    expect(head.status).to.equal(302);
    const click = await openLink(ad.body.click_url);
    expect(click.status).to.equal(302);
    expect(click.headers.get('location')).to.equal(campaign.destinationUrl);
    await openLink(ad.body.click_url);

    const expected = { adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1 };
    for (const who of [advertiser, publisherOwner, admin]) {
      const totals = await waitFor(async () => {
        const answer = await who.get<Totals>('/api/workspace/stats');
        return answer.body.adRequests === 1 ? answer.body : null;
      }, { message: 'the allocation to be counted' });
      expect(totals).to.include(expected);
      expect(totals.days).to.have.length(1);
    }
    const strangers = await stranger.get<Totals>('/api/workspace/stats');
    expect(strangers.body).to.include({ adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 });
  });

  it('answers 204 when only campaigns of the publisher’s own account match', async () => {
    const ownAccount = await approvedPublisher(system, advertiser, admin);
    const answer = await ownAccount.server.ad('en');
    expect(answer.status).to.equal(204);
    expect(answer.text).to.equal('');
  });

  it('answers 400 invalid_language and 401 for a key that does not exist', async () => {
    const bad = await server.ad('english');
    expect(bad.status).to.equal(400);
    expect(bad.headers.get('content-type')).to.contain('application/problem+json');
    expect(bad.body).to.include({ code: 'invalid_language' });
    const unknown = await fetch(`${system.baseUrl}/api/network/ad`, { headers: { authorization: 'Bearer pilot_pk_nope' } });
    expect(unknown.status).to.equal(401);
  });

  it('refuses the old key on the very next request after rotation, and serves the new one', async () => {
    const rotated = await publisherOwner.post<{ key: string }>(`/api/workspace/publishers/${publisherId}/keys`);
    expect(rotated.status).to.equal(201);
    expect((await server.ad()).status).to.equal(401);
    server.key = rotated.body.key;
    expect((await server.ad()).status).to.equal(200);
  });

  it('stops selecting a paused campaign and answers 410 for its click links', async () => {
    const second = await activeCampaign(advertiser, admin, { language: 'tr' });
    const ad = await adFrom(server, 'tr');
    expect(ad.body.campaign_id).to.equal(second.id);
    const paused = await advertiser.post<Campaign>(`/api/workspace/campaigns/${second.id}/pause`);
    expect(paused.status).to.equal(200);
    expect(paused.body.status).to.equal('paused');
    await waitFor(async () => (await server.ad('tr')).status === 204, { message: 'the paused campaign to leave selection' });
    await waitFor(async () => (await openLink(ad.body.click_url)).status === 410, { message: 'the click link to stop working' });
  });

  it('refuses a paused publisher’s next ad request with 401 and stops its click links', async () => {
    const other = await approvedPublisher(system, publisherOwner, admin);
    const ad = await adFrom(other.server);
    const paused = await admin.post(`/api/workspace/publishers/${other.publisher.id}/pause`);
    expect(paused.status).to.equal(200);
    expect((await other.server.ad()).status).to.equal(401);
    expect((await other.server.confirm(ad.body.delivery_token)).status).to.equal(401);
    await waitFor(async () => (await openLink(ad.body.click_url)).status === 410, { message: 'the click link to stop working' });
  });

  it('revokes the key of a rejected platform for good: approved again, it needs a new key', async () => {
    const other = await approvedPublisher(system, publisherOwner, admin);
    expect((await other.server.ad()).status).to.equal(200);
    const rejected = await admin.post<{ status: string }>(`/api/workspace/publishers/${other.publisher.id}/reject`, { reason: 'Not a bot we can verify' });
    expect(rejected.status, rejected.text).to.equal(200);
    const refused = await other.server.ad();
    expect(refused.status).to.equal(401);
    expect((refused.body as { code?: string }).code).to.equal('invalid_key');
    expect((await publisherOwner.post(`/api/workspace/publishers/${other.publisher.id}/submit`)).status).to.equal(200);
    expect((await admin.post(`/api/workspace/publishers/${other.publisher.id}/approve`)).status).to.equal(200);
    const again = await other.server.ad();
    expect(again.status, 'the old key after a new approval').to.equal(401);
    expect((again.body as { code?: string }).code).to.equal('invalid_key');
    const view = await publisherOwner.get<{ status: string; keyCreatedAt: string | null }>(`/api/workspace/publishers/${other.publisher.id}`);
    expect(view.body).to.include({ status: 'approved', keyCreatedAt: null });
    const generated = await publisherOwner.post<{ key: string }>(`/api/workspace/publishers/${other.publisher.id}/keys`);
    expect(generated.status, generated.text).to.equal(201);
    expect((await new PublisherServer(system, generated.body.key).ad()).status).to.equal(200);
    expect((await other.server.ad()).status, 'the old key stays refused').to.equal(401);
  });

  it('shows each account the audit of its own records and the administrator all of them', async () => {
    const own = await advertiser.get<{ items: { entity: string; entityId: string; action: string }[] }>(
      `/api/workspace/audit?entity=campaign&entityId=${campaign.id}`,
    );
    expect(own.status, own.text).to.equal(200);
    expect(own.body.items.map((item) => item.action)).to.include.members(['created', 'submitted', 'approved', 'activated']);
    const others = await stranger.get<{ items: unknown[] }>(`/api/workspace/audit?entity=campaign&entityId=${campaign.id}`);
    expect(others.body.items).to.have.length(0);
    const all = await admin.get<{ items: { entity: string }[] }>('/api/workspace/audit');
    expect([...new Set(all.body.items.map((item) => item.entity))]).to.include.members(['campaign', 'publisher', 'account']);
  });

  it('refuses workspace writes from another origin with 403 origin_refused', async () => {
    for (const path of ['/api/workspace/campaigns', '/api/workspace/publishers', '/api/workspace/placements/home-feature', '/api/auth/logout']) {
      const answer = await advertiser.call('POST', path, {}, { origin: 'https://evil.example' });
      expect(answer.status, path).to.equal(403);
      expect(answer.body).to.include({ code: 'origin_refused' });
    }
  });

  it('publishes an administrator’s website placement on the site and counts its impressions apart', async () => {
    const set = await admin.put<{ placementId?: string }>('/api/workspace/placements/home-feature', {
      title: 'Meet the pilot',
      buttonText: 'Read more',
      destinationUrl: 'https://pilot.example/about',
      status: 'active',
    });
    expect(set.status, set.text).to.be.oneOf([200, 201]);
    const shown = await stranger.get<{ placementId: string; title: string }>('/api/site/placements/home-feature');
    expect(shown.status).to.equal(200);
    expect(shown.body.title).to.equal('Meet the pilot');
    const impression = await stranger.post(`/api/site/placements/home-feature/impressions`, { placementId: shown.body.placementId });
    expect(impression.status, impression.text).to.equal(204);
    const slots = await admin.get<{ items: { slot: string; impressions: number }[] }>('/api/workspace/placements');
    expect(slots.body.items.find((item) => item.slot === 'home-feature')?.impressions).to.equal(1);
    const totals = await admin.get<Totals>('/api/workspace/stats');
    expect(totals.body.adRequests).to.be.greaterThan(0);
    expect(totals.body).to.not.have.property('impressions');
  });

  it('ends the session on logout', async () => {
    const leaving = await signedIn(system, '5009');
    expect((await leaving.post('/api/auth/logout')).status).to.equal(204);
    expect((await leaving.get('/api/workspace/campaigns')).status).to.equal(401);
  });
});
