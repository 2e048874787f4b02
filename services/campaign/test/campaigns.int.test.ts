import type { CampaignEvent, KnownEvent } from '@pilot/contracts';
import type { Bus } from '@pilot/messaging';
import { testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningCampaignService } from '../src/start';
import { ADMIN, client, CREATIVE, listen, OTHER, OWNER, startCampaign, type Who } from './support';

describe('campaign service: workspace campaigns', () => {
  const infra = testInfra();
  let service: RunningCampaignService;
  let api: ReturnType<typeof client>;
  let events: KnownEvent[];
  let listener: Bus;

  before(async () => {
    ({ events, bus: listener } = await listen(infra));
    service = await startCampaign(infra);
    api = client(infra, service.url);
  });
  after(async () => {
    await service?.stop();
    await listener?.close();
  });

  async function create(who: Who = OWNER, overrides: Record<string, unknown> = {}) {
    const response = await api.post('/api/workspace/campaigns', who, { ...CREATIVE, ...overrides });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body as { id: number; status: string; createdAt: string };
  }

  async function move(id: number, action: string, who: Who, body?: unknown) {
    return api.post(`/api/workspace/campaigns/${id}/${action}`, who, body);
  }

  async function activeCampaign(who: Who = OWNER) {
    const { id } = await create(who);
    expect((await move(id, 'submit', who)).status).to.equal(200);
    expect((await move(id, 'approve', ADMIN)).status).to.equal(200);
    expect((await move(id, 'activate', ADMIN)).status).to.equal(200);
    return id;
  }

  describe('POST /api/workspace/campaigns', () => {
    it('creates a draft owned by the caller and answers 201 with the campaign object', async () => {
      const response = await api.post('/api/workspace/campaigns', OWNER, CREATIVE);
      expect(response.status).to.equal(201);
      expect(response.body).to.include({ ...CREATIVE, status: 'draft', replaces: null, rejectionReason: null, pauseReason: null, ownerAccountId: OWNER.accountId });
      expect(response.body.id).to.be.a('number').and.to.be.above(0);
      expect(Number.isInteger(response.body.id)).to.equal(true);
      expect(Date.parse(response.body.createdAt)).to.be.a('number').and.not.NaN;
      expect(response.body.updatedAt).to.equal(response.body.createdAt);
    });

    it('stores a creative without image with imageUrl null', async () => {
      const { imageUrl: _image, ...withoutImage } = CREATIVE;
      const response = await api.post('/api/workspace/campaigns', OWNER, withoutImage);
      expect(response.status).to.equal(201);
      expect(response.body.imageUrl).to.equal(null);
    });

    it('refuses invalid input with 422 listing every failing field', async () => {
      const response = await api.post('/api/workspace/campaigns', OWNER, {
        ...CREATIVE,
        name: '',
        title: 'x'.repeat(101),
        text: 'x'.repeat(701),
        buttonText: '😀'.repeat(33),
        format: 'video',
        language: 'xx',
        destinationUrl: 'javascript:alert(1)',
        imageUrl: 'https://user:secret@cdn.example.com/a.png',
      });
      expect(response.status).to.equal(422);
      expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(response.body.code).to.equal('validation_failed');
      const failing = (response.body.errors as Array<{ field: string; code: string; message: string }>).map((error) => `${error.field}:${error.code}`);
      expect(failing).to.have.members([
        'name:too_short',
        'title:too_long',
        'text:too_long',
        'buttonText:too_long',
        'format:unsupported_format',
        'language:invalid_language',
        'destinationUrl:https_required',
        'imageUrl:credentials_not_allowed',
      ]);
    });

    it('refuses one character of 20,000 combining marks and URLs naming private addresses with 422', async () => {
      const response = await api.post('/api/workspace/campaigns', OWNER, {
        ...CREATIVE,
        title: `a${'\u0301'.repeat(20_000)}`,
        destinationUrl: 'https://2130706433/',
        imageUrl: 'https://169.254.169.254/latest/meta-data/',
      });
      expect(response.status).to.equal(422);
      expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
      const failing = (response.body.errors as Array<{ field: string; code: string }>).map((error) => `${error.field}:${error.code}`);
      expect(failing).to.have.members(['title:too_long_encoded', 'destinationUrl:ip_address_not_allowed', 'imageUrl:ip_address_not_allowed']);
    });

    it('accepts every text at its limit counted in graphemes (100, 700, 32 emoji)', async () => {
      const family = '👨‍👩‍👧';
      const body = await create(OWNER, { name: family.repeat(100), title: family.repeat(100), text: family.repeat(700), buttonText: family.repeat(32) });
      expect(body.status).to.equal('draft');
    });

    it('refuses a body that is not JSON with 422 and malformed JSON with 400', async () => {
      const notObject = await api.post('/api/workspace/campaigns', OWNER, [1, 2]);
      expect(notObject.status).to.equal(422);
      const path = '/api/workspace/campaigns';
      const malformed = await client(infra, service.url).post(path, OWNER).set('content-type', 'application/json').send('{"name":');
      expect(malformed.status).to.equal(400);
      expect(malformed.body.code).to.equal('invalid_json');
    });

    it('accepts a replacement draft naming an own campaign and refuses one naming another account’s', async () => {
      const original = await create(OWNER);
      const replacement = await create(OWNER, { replaces: original.id, title: 'Corrected title' });
      expect(replacement).to.include({ replaces: original.id, status: 'draft' });
      const foreign = await api.post('/api/workspace/campaigns', OTHER, { ...CREATIVE, replaces: original.id });
      expect(foreign.status).to.equal(422);
      expect(foreign.body.errors).to.deep.equal([{ field: 'replaces', code: 'unknown_campaign', message: 'replaces must be the id of one of your campaigns' }]);
      const missing = await api.post('/api/workspace/campaigns', OWNER, { ...CREATIVE, replaces: 999_999 });
      expect(missing.status).to.equal(422);
    });

    it('refuses an anonymous call with 401 and an unsigned call with 401 internal_signature_invalid', async () => {
      const anonymous = await api.post('/api/workspace/campaigns', null, CREATIVE);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body.code).to.equal('not_signed_in');
      const unsigned = await request(service.url).post('/api/workspace/campaigns').set('x-pilot-account', OWNER.accountId).send(CREATIVE);
      expect(unsigned.status).to.equal(401);
      expect(unsigned.body.code).to.equal('internal_signature_invalid');
    });
  });

  describe('GET /api/workspace/campaigns and /{id}', () => {
    const lister: Who = { accountId: '3001' };
    const otherLister: Who = { accountId: '3002' };

    it('lists own records newest first, and everything for an administrator', async () => {
      const first = await create(lister);
      const second = await create(lister);
      const foreign = await create(otherLister);
      const own = await api.get('/api/workspace/campaigns', lister);
      expect(own.status).to.equal(200);
      expect(own.body.items.map((item: { id: number }) => item.id)).to.deep.equal([second.id, first.id]);
      const all = await api.get('/api/workspace/campaigns', ADMIN);
      const ids = all.body.items.map((item: { id: number }) => item.id);
      expect(ids).to.include.members([first.id, second.id, foreign.id]);
      const times = all.body.items.map((item: { createdAt: string }) => item.createdAt);
      expect(times).to.deep.equal([...times].sort().reverse());
    });

    it('filters by status, which is how administrators read the review queue', async () => {
      const submitted = await create(lister);
      await move(submitted.id, 'submit', lister);
      const queue = await api.get('/api/workspace/campaigns?status=submitted', ADMIN);
      expect(queue.status).to.equal(200);
      expect(queue.body.items.every((item: { status: string }) => item.status === 'submitted')).to.equal(true);
      expect(queue.body.items.map((item: { id: number }) => item.id)).to.include(submitted.id);
      const drafts = await api.get('/api/workspace/campaigns?status=draft', lister);
      expect(drafts.body.items.map((item: { id: number }) => item.id)).to.not.include(submitted.id);
    });

    it('refuses an unknown status filter with 400 invalid_status and treats an empty one as no filter', async () => {
      const response = await api.get('/api/workspace/campaigns?status=archived', lister);
      expect(response.status).to.equal(400);
      expect(response.body.code).to.equal('invalid_status');
      const repeated = await api.get('/api/workspace/campaigns?status=draft&status=active', lister);
      expect(repeated.status).to.equal(400);
      const empty = await api.get('/api/workspace/campaigns?status=', lister);
      expect(empty.status).to.equal(200);
      expect(empty.body.items.length).to.equal((await api.get('/api/workspace/campaigns', lister)).body.items.length);
    });

    it('shows a campaign to its owner and an administrator, and 404 to anyone else', async () => {
      const { id } = await create(lister);
      expect((await api.get(`/api/workspace/campaigns/${id}`, lister)).body).to.include({ id, ownerAccountId: lister.accountId });
      expect((await api.get(`/api/workspace/campaigns/${id}`, ADMIN)).status).to.equal(200);
      const foreign = await api.get(`/api/workspace/campaigns/${id}`, otherLister);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.code).to.equal('campaign_not_found');
      expect((await api.get('/api/workspace/campaigns/999999', lister)).status).to.equal(404);
      expect((await api.get('/api/workspace/campaigns/abc', lister)).status).to.equal(404);
    });

    it('refuses a listing without a signed-in account with 401', async () => {
      expect((await api.get('/api/workspace/campaigns', null)).status).to.equal(401);
    });
  });

  describe('review lifecycle', () => {
    it('moves draft → submitted → approved → active → paused → active, returning the updated campaign each time', async () => {
      const { id } = await create();
      const steps: Array<[string, Who, string]> = [
        ['submit', OWNER, 'submitted'],
        ['approve', ADMIN, 'approved'],
        ['activate', ADMIN, 'active'],
        ['pause', OWNER, 'paused'],
        ['activate', ADMIN, 'active'],
        ['pause', ADMIN, 'paused'],
      ];
      for (const [action, who, status] of steps) {
        const response = await move(id, action, who);
        expect(response.status, `${action}: ${JSON.stringify(response.body)}`).to.equal(200);
        expect(response.body).to.include({ id, status, ...CREATIVE });
      }
      expect((await api.get(`/api/workspace/campaigns/${id}`, OWNER)).body.status).to.equal('paused');
    });

    it('rejects with a reason, keeps it on the campaign, and lets the owner resubmit', async () => {
      const { id } = await create();
      await move(id, 'submit', OWNER);
      const rejected = await move(id, 'reject', ADMIN, { reason: 'The image is blurry' });
      expect(rejected.status).to.equal(200);
      expect(rejected.body).to.include({ status: 'rejected', rejectionReason: 'The image is blurry' });
      const resubmitted = await move(id, 'submit', OWNER);
      expect(resubmitted.body).to.include({ status: 'submitted', rejectionReason: null });
    });

    it('refuses a rejection without a reason of 1 to 500 characters with 422', async () => {
      const { id } = await create();
      await move(id, 'submit', OWNER);
      for (const body of [undefined, {}, { reason: '' }, { reason: 'x'.repeat(501) }]) {
        const response = await move(id, 'reject', ADMIN, body);
        expect(response.status, JSON.stringify(body)).to.equal(422);
        expect(response.body.errors[0].field).to.match(/reason|\(body\)/);
      }
      expect((await move(id, 'reject', ADMIN, { reason: 'x'.repeat(500) })).status).to.equal(200);
    });

    it('takes an optional reason on pause (1 to 500 characters), records it in the audit and answers it as pauseReason while paused', async () => {
      const id = await activeCampaign();
      for (const body of [{ reason: '' }, { reason: 'x'.repeat(501) }, { reason: 7 }, { reason: 'ok', extra: 1 }, ['reason']]) {
        const refused = await move(id, 'pause', OWNER, body);
        expect(refused.status, JSON.stringify(body)).to.equal(422);
      }
      expect((await api.get(`/api/workspace/campaigns/${id}`, OWNER)).body.status, 'a refused pause changes nothing').to.equal('active');
      const paused = await move(id, 'pause', OWNER, { reason: 'Our offer ended early.' });
      expect(paused.status, JSON.stringify(paused.body)).to.equal(200);
      expect(paused.body).to.include({ status: 'paused', pauseReason: 'Our offer ended early.' });
      expect((await api.get(`/api/workspace/campaigns/${id}`, ADMIN)).body.pauseReason).to.equal('Our offer ended early.');
      const listed = (await api.get('/api/workspace/campaigns', OWNER)).body.items as Array<{ id: number; pauseReason: string | null }>;
      expect(listed.find((item) => item.id === id)?.pauseReason).to.equal('Our offer ended early.');
      const activated = await move(id, 'activate', ADMIN);
      expect(activated.status).to.equal(200);
      expect(activated.body.pauseReason, 'gone with the pause').to.equal(null);
      const again = await move(id, 'pause', ADMIN, {});
      expect(again.status, 'no reason is fine too').to.equal(200);
      expect(again.body.pauseReason).to.equal(null);
      const audit = (await api.get(`/internal/audit?entity=campaign&entityId=${id}`, OWNER)).body.items as Array<{ action: string; reason: string | null }>;
      const pauses = audit.filter((item) => item.action === 'paused').map((item) => item.reason);
      expect(pauses).to.deep.equal([null, 'Our offer ended early.']);
    });

    it('refuses a move from any other state with 409 invalid_transition', async () => {
      const { id } = await create();
      for (const [action, who] of [['approve', ADMIN], ['activate', ADMIN], ['pause', OWNER], ['reject', ADMIN]] as const) {
        const response = await move(id, action, who, action === 'reject' ? { reason: 'no' } : undefined);
        expect(response.status, action).to.equal(409);
        expect(response.body.code).to.equal('invalid_transition');
      }
      await move(id, 'submit', OWNER);
      expect((await move(id, 'submit', OWNER)).body.code).to.equal('invalid_transition');
      expect((await move(id, 'activate', ADMIN)).body.code).to.equal('invalid_transition');
      await move(id, 'approve', ADMIN);
      expect((await move(id, 'approve', ADMIN)).status).to.equal(409);
      expect((await move(id, 'pause', ADMIN)).status).to.equal(409);
      expect((await move(id, 'submit', OWNER)).status).to.equal(409);
      expect((await api.get(`/api/workspace/campaigns/${id}`, OWNER)).body.status).to.equal('approved');
    });

    it('refuses an owner who approves or activates with 403, and an administrator who submits another account’s draft', async () => {
      const { id } = await create();
      const submitAsAdmin = await move(id, 'submit', ADMIN);
      expect(submitAsAdmin.status).to.equal(403);
      expect(submitAsAdmin.body.code).to.equal('not_owner');
      await move(id, 'submit', OWNER);
      const approveAsOwner = await move(id, 'approve', OWNER);
      expect(approveAsOwner.status).to.equal(403);
      expect(approveAsOwner.body.code).to.equal('admin_only');
      await move(id, 'approve', ADMIN);
      expect((await move(id, 'activate', OWNER)).status).to.equal(403);
      expect((await api.get(`/api/workspace/campaigns/${id}`, OWNER)).body.status).to.equal('approved');
    });

    it('refuses an administrator who reviews or activates a campaign of its own with 403', async () => {
      const { id } = await create(ADMIN);
      await move(id, 'submit', ADMIN);
      const response = await move(id, 'approve', ADMIN);
      expect(response.status).to.equal(403);
      expect(response.body.code).to.equal('own_campaign_review');
    });

    it('answers 404 to another account moving a campaign it cannot see', async () => {
      const { id } = await create();
      const response = await move(id, 'submit', OTHER);
      expect(response.status).to.equal(404);
    });
  });

  describe('events', () => {
    it('publishes the matching campaign.* event exactly once per transition, with the full state and the new version', async () => {
      const { id } = await create();
      const moves: Array<[string, Who, string, object?]> = [
        ['submit', OWNER, 'campaign.submitted'],
        ['reject', ADMIN, 'campaign.rejected', { reason: 'Wrong language' }],
        ['submit', OWNER, 'campaign.submitted'],
        ['approve', ADMIN, 'campaign.approved'],
        ['activate', ADMIN, 'campaign.activated'],
        ['pause', OWNER, 'campaign.paused'],
      ];
      for (const [action, who, , body] of moves) expect((await move(id, action, who, body)).status).to.equal(200);
      const ofCampaign = () => events.filter((event) => event.aggregateId === String(id)) as CampaignEvent[];
      await waitFor(() => ofCampaign().length >= moves.length, { message: 'events of every transition' });

      // A later event on the same queue arrives after any duplicate of the earlier ones would have.
      await service.relay.flush();
      const marker = await activeCampaign(OTHER);
      await waitFor(() => events.some((event) => event.aggregateId === String(marker) && event.type === 'campaign.activated'));

      const received = ofCampaign();
      expect(received.map((event) => event.type)).to.deep.equal(moves.map(([, , type]) => type));
      expect(received.map((event) => event.aggregateVersion)).to.deep.equal([2, 3, 4, 5, 6, 7]);
      expect(new Set(received.map((event) => event.id)).size).to.equal(moves.length);
      // Who moved it and why travel with it (the notification service tells the owner what someone else did).
      expect(received[1]!.data).to.include({ status: 'rejected', actorAccountId: ADMIN.accountId, reason: 'Wrong language', name: CREATIVE.name });
      expect(received[0]!.data).to.include({ actorAccountId: OWNER.accountId, reason: null });
      expect(received[5]!.data).to.deep.equal({
        campaignId: id,
        ownerAccountId: OWNER.accountId,
        status: 'paused',
        format: CREATIVE.format,
        language: CREATIVE.language,
        title: CREATIVE.title,
        text: CREATIVE.text,
        buttonText: CREATIVE.buttonText,
        imageUrl: CREATIVE.imageUrl,
        destinationUrl: CREATIVE.destinationUrl,
        name: CREATIVE.name,
        actorAccountId: OWNER.accountId,
        reason: null,
      });
    });

    it('publishes nothing for a refused move', async () => {
      const { id } = await create();
      expect((await move(id, 'approve', ADMIN)).status).to.equal(409);
      await service.relay.flush();
      const marker = await activeCampaign(OTHER);
      await waitFor(() => events.some((event) => event.aggregateId === String(marker) && event.type === 'campaign.activated'));
      expect(events.filter((event) => event.aggregateId === String(id))).to.deep.equal([]);
    });
  });

  describe('GET /internal/audit', () => {
    const auditor: Who = { accountId: '4001' };

    it('lists the entries of own records newest first with actor, from, to and reason', async () => {
      const { id } = await create(auditor);
      await move(id, 'submit', auditor);
      await move(id, 'reject', ADMIN, { reason: 'Too loud' });
      const response = await api.get(`/internal/audit?entity=campaign&entityId=${id}`, auditor);
      expect(response.status).to.equal(200);
      const items = response.body.items as Array<Record<string, unknown>>;
      expect(items.map((item) => item.action)).to.deep.equal(['rejected', 'submitted', 'created']);
      expect(items[0]).to.deep.include({ actorAccountId: ADMIN.accountId, entity: 'campaign', entityId: String(id), from: 'submitted', to: 'rejected', reason: 'Too loud' });
      expect(items[1]).to.deep.include({ actorAccountId: auditor.accountId, from: 'draft', to: 'submitted', reason: null });
      expect(items[2]).to.deep.include({ actorAccountId: auditor.accountId, from: null, to: 'draft' });
      expect(Date.parse(items[0]!.at as string)).to.be.at.least(Date.parse(items[2]!.at as string));
    });

    it('shows another account nothing of records it does not own, and an administrator everything', async () => {
      const { id } = await create(auditor);
      const stranger = await api.get(`/internal/audit?entity=campaign&entityId=${id}`, OTHER);
      expect(stranger.status).to.equal(200);
      expect(stranger.body.items).to.deep.equal([]);
      const strangerAll = await api.get('/internal/audit', OTHER);
      expect(strangerAll.body.items.every((item: { entityId: string }) => item.entityId !== String(id))).to.equal(true);
      const admin = await api.get(`/internal/audit?entityId=${id}`, ADMIN);
      expect(admin.body.items).to.have.length(1);
      const own = await api.get('/internal/audit?entity=campaign', auditor);
      expect(own.body.items.length).to.be.at.least(4);
    });

    it('answers an empty list for another entity and 401 without an account', async () => {
      expect((await api.get('/internal/audit?entity=publisher', ADMIN)).body).to.deep.equal({ items: [] });
      expect((await api.get('/internal/audit', null)).status).to.equal(401);
    });
  });

  describe('GET /internal/campaigns/active', () => {
    it('answers every active campaign with its state and version, every paused one for its version floor, and nothing else', async () => {
      const active = await activeCampaign({ accountId: '5001' });
      const paused = await activeCampaign({ accountId: '5001' });
      await move(paused, 'pause', ADMIN);
      const { id: draft } = await create({ accountId: '5001' });
      const response = await api.get('/internal/campaigns/active', null);
      expect(response.status).to.equal(200);
      const items = response.body.items as Array<{ campaignId: number; status: string; version: number }>;
      expect(items.every((item) => item.status === 'active' || item.status === 'paused')).to.equal(true);
      const ids = items.map((item) => item.campaignId);
      expect(ids).to.include.members([active, paused]);
      expect(ids).to.not.include(draft);
      // A cache that never saw the pause learns its version here, so a republished activation (4) is stale.
      expect(items.find((item) => item.campaignId === paused)).to.include({ status: 'paused', version: 5 });
      expect(items.find((item) => item.campaignId === active)).to.deep.equal({
        campaignId: active,
        ownerAccountId: '5001',
        status: 'active',
        format: CREATIVE.format,
        language: CREATIVE.language,
        title: CREATIVE.title,
        text: CREATIVE.text,
        buttonText: CREATIVE.buttonText,
        imageUrl: CREATIVE.imageUrl,
        destinationUrl: CREATIVE.destinationUrl,
        version: 4,
      });
    });

    it('refuses an unsigned call', async () => {
      expect((await request(service.url).get('/internal/campaigns/active')).status).to.equal(401);
    });
  });

  describe('GET /internal/campaigns/traits', () => {
    it('answers the language and format of the stored campaigns among the ids, whatever their status', async () => {
      const paused = await activeCampaign({ accountId: '5002' });
      await move(paused, 'pause', ADMIN);
      const { id: draft } = await create({ accountId: '5003' });
      const response = await api.get(`/internal/campaigns/traits?ids=${paused},${draft},99999999`, null);
      expect(response.status).to.equal(200);
      const items = (response.body.items as Array<{ campaignId: number }>).sort((a, b) => a.campaignId - b.campaignId);
      expect(items).to.deep.equal([
        { campaignId: paused, language: CREATIVE.language, format: CREATIVE.format },
        { campaignId: draft, language: CREATIVE.language, format: CREATIVE.format },
      ]);
    });

    it('refuses ids that are not 1 to 500 positive integers, and an unsigned call', async () => {
      for (const ids of ['', 'abc', '1,,2', Array.from({ length: 501 }, (_, index) => index + 1).join(',')]) {
        const response = await api.get(`/internal/campaigns/traits?ids=${ids}`, null);
        expect(response.status, ids.slice(0, 20)).to.equal(400);
        expect(response.body.code).to.equal('invalid_ids');
      }
      expect((await request(service.url).get('/internal/campaigns/traits?ids=1')).status).to.equal(401);
    });
  });

  describe('probes', () => {
    it('reports ready when MongoDB and RabbitMQ answer', async () => {
      const response = await request(service.url).get('/readyz');
      expect(response.status).to.equal(200);
      expect(response.body.checks).to.deep.equal({ mongodb: 'ok', rabbitmq: 'ok' });
    });
  });
});
