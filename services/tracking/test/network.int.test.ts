import { infraEnv, ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { signedHeaders } from '@pilot/platform';
import { expect } from 'chai';
import request from 'supertest';
import { dayOf, grainDaysOf } from '@pilot/counting';
import { TotalsStore } from '@pilot/counting/totals';
import { connectMongo } from '@pilot/storage';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, signedPost, startTracking, TestWorld, type Allocation, type CampaignSnapshot } from './support';

describe('tracking: delivery confirmations and click links', () => {
  const infra = testInfra();
  const clock = new ManualClock();
  const world = new TestWorld(infra);
  let snapshot: CampaignSnapshot;
  let tracking: RunningTracking;
  let nextId = 100;

  const CAMPAIGN_OWNER = '5001';
  const PUBLISHER_OWNER = '6001';

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot([]);
    tracking = await startTracking(infra, snapshot.url, { clock });
  });

  after(async () => {
    await tracking?.stop();
    await snapshot?.close();
    await world.close();
  });

  /** A fresh active campaign and approved publisher, so tests never share records. */
  async function scenario() {
    nextId += 1;
    const campaign = activeCampaign(nextId, CAMPAIGN_OWNER);
    snapshot.items.push(campaign);
    await world.publishCampaignActivated(campaign);
    const publisherId = nextId;
    const key = await world.approvedPublisher(publisherId, PUBLISHER_OWNER);
    const ids = { campaignId: campaign.campaignId, publisherId, campaignOwner: CAMPAIGN_OWNER, publisherOwner: PUBLISHER_OWNER };
    // The activation reaches the cache through the broadcast queue; a HEAD (never counted) tells when.
    const probe = allocate(infra, clock, ids);
    await waitFor(async () => (await click(probe.clickPath, 'HEAD')).status === 302, { message: 'campaign activation not applied' });
    return { campaign, publisherId, key, ids, allocation: () => allocate(infra, clock, ids) };
  }

  function deliver(key: string | null, body: string) {
    const call = signedPost(infra, tracking.url, '/api/network/delivery')
      .set('content-type', 'application/json');
    if (key !== null) call.set('authorization', `Bearer ${key}`);
    return call.send(body);
  }

  function click(path: string, method: 'GET' | 'HEAD' = 'GET', userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0') {
    const call = method === 'GET' ? request(tracking.url).get(path) : request(tracking.url).head(path);
    return call.set(gatewaySigned(infra, method, path)).set('user-agent', userAgent).redirects(0);
  }

  describe('POST /api/network/delivery', () => {
    it('confirms a delivery with 200 and first_confirmation true, then false when confirmed again', async () => {
      const s = await scenario();
      const { deliveryToken } = s.allocation();
      const first = await deliver(s.key, JSON.stringify({ token: deliveryToken }));
      expect(first.status).to.equal(200);
      expect(first.body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
      const second = await deliver(s.key, JSON.stringify({ token: deliveryToken }));
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal({ status: 'confirmed', first_confirmation: false });
    });

    it('gives first_confirmation true to exactly one of 20 concurrent identical confirmations', async () => {
      const s = await scenario();
      const { deliveryToken } = s.allocation();
      const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(s.key, JSON.stringify({ token: deliveryToken }))));
      expect(answers.map((answer) => answer.status)).to.deep.equal(Array(20).fill(200));
      expect(answers.filter((answer) => answer.body.first_confirmation === true)).to.have.length(1);
    });

    it('confirms a delivery on the token alone, whether or not its ad request was counted yet', async () => {
      const s = await scenario();
      const { deliveryToken } = s.allocation(); // its ad request never counted
      const answer = await deliver(s.key, JSON.stringify({ token: deliveryToken }));
      expect(answer.status).to.equal(200);
      expect(answer.body.first_confirmation).to.equal(true);
    });

    it('accepts a body of exactly 200 characters and refuses 201 characters with 413 before parsing', async () => {
      const s = await scenario();
      const { deliveryToken } = s.allocation();
      const base = JSON.stringify({ token: deliveryToken });
      const exactly200 = base + ' '.repeat(200 - base.length);
      expect(exactly200).to.have.length(200);
      const accepted = await deliver(s.key, exactly200);
      expect(accepted.status).to.equal(200);
      const refused = await deliver(s.key, `${exactly200} `);
      expect(refused.status).to.equal(413);
      expect(refused.body.code).to.equal('payload_too_large');
      const notJsonButLong = await deliver(s.key, '{'.repeat(201));
      expect(notJsonButLong.status).to.equal(413);
    });

    it('counts characters, not bytes: 200 two-byte characters are not too large', async () => {
      const s = await scenario();
      const answer = await deliver(s.key, 'é'.repeat(200));
      expect(answer.status).to.equal(400);
      expect(answer.body.code).to.equal('invalid_json');
    });

    it('refuses a missing, malformed, unknown or not approved key with 401, the code and the bearer challenge the ad endpoint gives', async () => {
      const s = await scenario();
      const body = JSON.stringify({ token: s.allocation().deliveryToken });
      for (const [key, code] of [
        [null, 'missing_key'],
        ['not-a-key', 'invalid_key'],
        ['pilot_pk_000000000000000000000000000000000000000', 'invalid_key'],
      ] as const) {
        const answer = await deliver(key, body);
        expect(answer.status).to.equal(401);
        expect(answer.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(answer.headers['www-authenticate']).to.equal(
          code === 'missing_key' ? 'Bearer realm="pilot-network"' : `Bearer realm="pilot-network", error="invalid_token", error_description="${code}"`,
        );
        expect(answer.body.code, String(key)).to.equal(code);
      }
      await world.approvedPublisher(9999, PUBLISHER_OWNER); // another, valid key: not this one
      const paused = await world.approvedPublisher(s.publisherId, PUBLISHER_OWNER);
      await world.pausePublisher(s.publisherId, PUBLISHER_OWNER, paused);
      const refused = await deliver(paused, body);
      expect(refused.status).to.equal(401);
      expect(refused.body.code).to.equal('publisher_not_approved');
      expect(refused.headers['www-authenticate']).to.equal('Bearer realm="pilot-network", error="invalid_token", error_description="publisher_not_approved"');
    });

    it('refuses with 401 a body that is not the one the gateway signed, and counts nothing', async () => {
      const s = await scenario();
      const { deliveryToken } = s.allocation();
      const signedFor = JSON.stringify({ token: 'another-token-the-gateway-saw' });
      const swapped = await request(tracking.url)
        .post('/api/network/delivery')
        .set(signedHeaders(infra.internalSecret, { method: 'POST', url: '/api/network/delivery', accountId: null, admin: false, body: signedFor }))
        .set('authorization', `Bearer ${s.key}`)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ token: deliveryToken }));
      expect(swapped.status).to.equal(401);
      expect(swapped.body.code).to.equal('internal_signature_invalid');
      const honest = await deliver(s.key, JSON.stringify({ token: deliveryToken }));
      expect(honest.body, 'the swapped call confirmed nothing').to.deep.equal({ status: 'confirmed', first_confirmation: true });
    });

    it('refuses invalid JSON and a missing, non-string or malformed token with 400', async () => {
      const s = await scenario();
      const cases: Array<[string, string]> = [
        ['{"token":', 'invalid_json'],
        ['', 'invalid_json'],
        ['{}', 'invalid_token'],
        ['{"token": 12}', 'invalid_token'],
        ['"just a string"', 'invalid_token'],
        ['{"token": "abc"}', 'invalid_token'],
      ];
      for (const [body, code] of cases) {
        const answer = await deliver(s.key, body);
        expect(answer.status, body).to.equal(400);
        expect(answer.body.code, body).to.equal(code);
      }
    });

    it('answers 404 for an unknown or tampered token, and for a click token sent as a delivery token', async () => {
      const s = await scenario();
      const a = s.allocation();
      const tampered = tamper(a.deliveryToken);
      for (const token of [tampered, a.clickToken]) {
        const answer = await deliver(s.key, JSON.stringify({ token }));
        expect(answer.status).to.equal(404);
        expect(answer.body.code).to.equal('token_not_found');
      }
    });

    it("answers 404 for another publisher's token", async () => {
      const mine = await scenario();
      const theirs = await scenario();
      const answer = await deliver(mine.key, JSON.stringify({ token: theirs.allocation().deliveryToken }));
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal('token_not_found');
    });

    it('confirms at 3599 s after allocation and answers 404 at 3601 s', async () => {
      const s = await scenario();
      const early = s.allocation();
      const late = s.allocation();
      clock.advance(3599_000);
      expect((await deliver(s.key, JSON.stringify({ token: early.deliveryToken }))).status).to.equal(200);
      clock.advance(2_000);
      const answer = await deliver(s.key, JSON.stringify({ token: late.deliveryToken }));
      expect(answer.status).to.equal(404);
      expect(answer.body.code).to.equal('token_expired');
    });
  });

  describe('GET and HEAD /api/network/click/{token}', () => {
    it('keeps links of the previous TOKEN_SECRET working after a rotation while TOKEN_SECRET_PREVIOUS names it, and new ones of the new secret', async () => {
      const s = await scenario();
      const issuedBefore = s.allocation();
      const NEW_SECRET = 'rotated-token-secret-0123456789abcdef';
      const rotated = await startTracking(infra, snapshot.url, { clock }, { TOKEN_SECRET: NEW_SECRET, TOKEN_SECRET_PREVIOUS: infra.tokenSecret });
      const dropped = await startTracking(infra, snapshot.url, { clock }, { TOKEN_SECRET: NEW_SECRET });
      try {
        const at = (service: RunningTracking, path: string) => request(service.url).head(path).set(gatewaySigned(infra, 'HEAD', path)).redirects(0);
        await waitFor(async () => (await at(rotated, issuedBefore.clickPath)).status === 302, { message: 'a link of the previous secret refused during the rotation' });
        const issuedAfter = allocate({ ...infra, tokenSecret: NEW_SECRET }, clock, s.ids);
        expect((await at(rotated, issuedAfter.clickPath)).status).to.equal(302);
        // Once the previous secret is dropped (after the tokens' hour), its links are unknown.
        await waitFor(async () => (await at(dropped, issuedAfter.clickPath)).status === 302, { message: 'a link of the new secret refused' });
        expect((await at(dropped, issuedBefore.clickPath)).status).to.equal(404);
      } finally {
        await rotated.stop();
        await dropped.stop();
      }
    });

    it('redirects with 302 to the campaign destination', async () => {
      const s = await scenario();
      const answer = await click(s.allocation().clickPath);
      expect(answer.status).to.equal(302);
      expect(answer.headers.location).to.equal(s.campaign.destinationUrl);
    });

    it('counts repeated and concurrent clicks of one link once', async () => {
      const s = await scenario();
      const a = s.allocation();
      const answers = await Promise.all(Array.from({ length: 20 }, () => click(a.clickPath)));
      expect(answers.map((answer) => answer.status)).to.deep.equal(Array(20).fill(302));
      await click(a.clickPath).expect(302);
      const stats = await statsOf(s.campaign.campaignId);
      expect(stats.clickedLinks).to.equal(1);
    });

    it('answers HEAD like GET without counting it', async () => {
      const s = await scenario();
      const a = s.allocation();
      const before = await filteredVisits(a, 'head');
      const answer = await click(a.clickPath, 'HEAD');
      expect(answer.status).to.equal(302);
      expect(answer.headers.location).to.equal(s.campaign.destinationUrl);
      expect((await statsOf(s.campaign.campaignId)).clickedLinks).to.equal(0);
      expect(await filteredVisits(a, 'head')).to.equal(before + 1);
    });

    it('redirects link-preview bots without counting them', async () => {
      const s = await scenario();
      const a = s.allocation();
      const before = await filteredVisits(a, 'preview_agent');
      for (const agent of ['TelegramBot (like TwitterBot)', 'facebookexternalhit/1.1', 'Slackbot-LinkExpanding 1.0', 'Mozilla/5.0 (compatible; Discordbot/2.0)', 'WhatsApp/2.23', 'Twitterbot/1.0']) {
        const answer = await click(a.clickPath, 'GET', agent);
        expect(answer.status, agent).to.equal(302);
        expect(answer.headers.location).to.equal(s.campaign.destinationUrl);
      }
      expect((await statsOf(s.campaign.campaignId)).clickedLinks).to.equal(0);
      expect(await filteredVisits(a, 'preview_agent')).to.equal(before + 6);
      await click(a.clickPath).expect(302);
      expect((await statsOf(s.campaign.campaignId)).clickedLinks).to.equal(1);
    });

    it('answers 404 for a malformed, tampered or delivery token', async () => {
      const s = await scenario();
      const a = s.allocation();
      for (const path of ['/api/network/click/nonsense', `/api/network/click/${tamper(a.clickToken)}`, `/api/network/click/${a.deliveryToken}`]) {
        const answer = await click(path);
        expect(answer.status, path).to.equal(404);
        expect(answer.body.code).to.equal('token_not_found');
      }
    });

    it('redirects at 3599 s and answers 410 at 3601 s after allocation, without counting', async () => {
      const s = await scenario();
      const early = s.allocation();
      const late = s.allocation();
      clock.advance(3599_000);
      await click(early.clickPath).expect(302);
      clock.advance(2_000);
      const answer = await click(late.clickPath);
      expect(answer.status).to.equal(410);
      expect(answer.body.code).to.equal('link_expired');
      expect((await statsOf(s.campaign.campaignId)).clickedLinks).to.equal(1);
    });

    it("answers 410 for a paused campaign's link", async () => {
      const s = await scenario();
      const a = s.allocation();
      await click(a.clickPath).expect(302);
      await world.publishCampaignPaused(s.campaign);
      const answer = await waitFor(async () => {
        const response = await click(a.clickPath);
        return response.status === 410 ? response : null;
      });
      expect(answer.body.code).to.equal('campaign_inactive');
      await click(a.clickPath, 'HEAD').expect(410);
    });

    it("answers 410 for a paused publisher's link at once", async () => {
      const s = await scenario();
      const a = s.allocation();
      await click(a.clickPath).expect(302);
      await world.pausePublisher(s.publisherId, PUBLISHER_OWNER, s.key);
      const answer = await click(a.clickPath);
      expect(answer.status).to.equal(410);
      expect(answer.body.code).to.equal('publisher_inactive');
    });
  });

  /** The network's count of redirects that were not counted as clicks, on the allocation's day (MongoDB and Redis). */
  async function filteredVisits(allocation: Allocation, visit: 'head' | 'preview_agent'): Promise<number> {
    const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'tracking').MONGO_DB! });
    try {
      const stored = (await new TotalsStore(mongo, 2000).readRange(['all'], {})).get('all');
      const { parts } = await world.unfolded.read(['all']);
      const days = grainDaysOf(stored, parts);
      return days[dayOf(allocation.claims.issuedAt)]?.[`filtered_${visit}`] ?? 0;
    } finally {
      await mongo.close();
    }
  }

  /** Changes one payload character (six whole bits, unlike the last character's padding bits). */
  function tamper(token: string): string {
    return `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`;
  }

  async function statsOf(campaignId: number): Promise<{ adRequests: number; confirmedDeliveries: number; clickedLinks: number }> {
    const path = `/api/workspace/stats?campaignId=${campaignId}`;
    const answer = await request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path, { accountId: CAMPAIGN_OWNER })).expect(200);
    return answer.body;
  }
});
