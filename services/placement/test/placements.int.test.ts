import type { PlacementChanged } from '@pilot/contracts';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { ADMIN, MEMBER, startHarness, startReplica, type Harness } from './support';

const HOUR = 3_600_000;

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Meet the pilot',
    buttonText: 'Open',
    destinationUrl: 'https://example.com/pilot',
    imageUrl: 'https://cdn.example.com/pilot.png',
    status: 'active',
    ...overrides,
  };
}

describe('placement service', function () {
  this.timeout(30_000);
  let h: Harness;
  let ipCounter = 0;
  const freshIp = () => `198.51.100.${(ipCounter += 1)}`;

  before(async () => {
    h = await startHarness({ IMPRESSION_LIMIT_POINTS: '5', IMPRESSION_LIMIT_WINDOW_SECONDS: '60' });
  });
  after(async () => {
    await h?.stop();
  });

  async function put(slot: string, payload: Record<string, unknown>) {
    const response = await h.call('put', `/api/workspace/placements/${slot}`, ADMIN).send(payload);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body as { slot: string; placement: { placementId: string; status: string }; impressions: number };
  }

  async function impressionsOf(slot: string): Promise<number> {
    const response = await h.call('get', '/api/workspace/placements', ADMIN).expect(200);
    const item = (response.body.items as Array<{ slot: string; impressions: number }>).find((candidate) => candidate.slot === slot);
    return item!.impressions;
  }

  function report(slot: string, placementId: unknown, clientIp = freshIp()) {
    return h.call('post', `/api/site/placements/${slot}/impressions`, null, clientIp).send({ placementId });
  }

  describe('GET /api/workspace/placements', () => {
    it('lists the three slots, each without a placement and with zero impressions, to an administrator', async () => {
      const response = await h.call('get', '/api/workspace/placements', ADMIN).expect(200);
      expect(response.body).to.deep.equal({
        items: [
          { slot: 'home-feature', placement: null, impressions: 0 },
          { slot: 'workspace-top', placement: null, impressions: 0 },
          { slot: 'tr-footer', placement: null, impressions: 0 },
        ],
      });
    });

    it('refuses a signed-in account that is not an administrator with 403', async () => {
      const response = await h.call('get', '/api/workspace/placements', MEMBER).expect(403);
      expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(response.body).to.include({ status: 403, code: 'admin_only' });
    });

    it('refuses a caller without a session with 401', async () => {
      const response = await h.call('get', '/api/workspace/placements', null).expect(401);
      expect(response.body).to.include({ code: 'not_signed_in' });
    });

    it('refuses a call that did not come through the gateway with 401', async () => {
      const response = await request(h.service.url).get('/api/workspace/placements').set('x-pilot-account', ADMIN.accountId).set('x-pilot-admin', '1');
      expect(response.status).to.equal(401);
      expect(response.body).to.include({ code: 'internal_signature_invalid' });
    });
  });

  describe('PUT /api/workspace/placements/{slot}', () => {
    it('sets the slot placement and answers it with a new placementId; the list shows it', async () => {
      const answer = await put('workspace-top', body({ startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-07-01T00:00:00Z' }));
      expect(answer.slot).to.equal('workspace-top');
      expect(answer.impressions).to.equal(0);
      expect(answer.placement).to.deep.include({
        slot: 'workspace-top',
        title: 'Meet the pilot',
        buttonText: 'Open',
        destinationUrl: 'https://example.com/pilot',
        imageUrl: 'https://cdn.example.com/pilot.png',
        status: 'active',
        startsAt: '2026-06-01T00:00:00.000Z',
        endsAt: '2026-07-01T00:00:00.000Z',
        createdBy: ADMIN.accountId,
      });
      expect(answer.placement.placementId).to.match(/^[0-9a-f-]{36}$/);
      const list = await h.call('get', '/api/workspace/placements', ADMIN).expect(200);
      const item = list.body.items.find((candidate: { slot: string }) => candidate.slot === 'workspace-top');
      expect(item).to.deep.equal(answer);
    });

    it('makes a new placement with a new placementId on every PUT, whose impressions start at zero', async () => {
      const first = await put('tr-footer', body());
      await report('tr-footer', first.placement.placementId).expect(204);
      expect(await impressionsOf('tr-footer')).to.equal(1);
      const second = await put('tr-footer', body({ title: 'Second' }));
      expect(second.placement.placementId).to.not.equal(first.placement.placementId);
      expect(second.impressions).to.equal(0);
      expect(await impressionsOf('tr-footer')).to.equal(0);
    });

    it('keeps the placement and its impressions when the same content is saved again, with no audit entry', async () => {
      const same = body({ title: 'Saved twice', startsAt: '2020-01-01T00:00:00.000Z' });
      const first = await put('tr-footer', same);
      await report('tr-footer', first.placement.placementId).expect(204);
      await report('tr-footer', first.placement.placementId).expect(204);
      const auditBefore = await h.call('get', '/internal/audit?entity=placement&entityId=tr-footer', ADMIN).expect(200);
      const again = await put('tr-footer', { ...same, startsAt: '2020-01-01T00:00:00Z' });
      expect(again.placement.placementId).to.equal(first.placement.placementId);
      expect(again.impressions).to.equal(2);
      expect(await impressionsOf('tr-footer')).to.equal(2);
      const auditAfter = await h.call('get', '/internal/audit?entity=placement&entityId=tr-footer', ADMIN).expect(200);
      expect(auditAfter.body.items).to.have.length(auditBefore.body.items.length);
      // Any change, the status alone included, is a new placement counted from zero.
      const paused = await put('tr-footer', { ...same, status: 'paused' });
      expect(paused.placement.placementId).to.not.equal(first.placement.placementId);
      expect(paused.impressions).to.equal(0);
    });

    it('refuses a signed-in account that is not an administrator with 403 and changes nothing', async () => {
      const before = await h.call('get', '/api/site/placements/home-feature', null);
      const response = await h.call('put', '/api/workspace/placements/home-feature', MEMBER).send(body()).expect(403);
      expect(response.body).to.include({ code: 'admin_only' });
      const after = await h.call('get', '/api/site/placements/home-feature', null);
      expect(after.status).to.equal(before.status);
      expect(after.body).to.deep.equal(before.body);
    });

    it('refuses a caller without a session with 401', async () => {
      await h.call('put', '/api/workspace/placements/home-feature', null).send(body()).expect(401);
    });

    it('answers 404 slot_not_found for an unknown slot', async () => {
      const response = await h.call('put', '/api/workspace/placements/sidebar', ADMIN).send(body()).expect(404);
      expect(response.body).to.include({ code: 'slot_not_found' });
    });

    it('refuses invalid input with 422 listing every failing field', async () => {
      const response = await h
        .call('put', '/api/workspace/placements/home-feature', ADMIN)
        .send({
          title: 'x'.repeat(101),
          buttonText: '',
          destinationUrl: 'http://example.com',
          imageUrl: 'https://user:secret@example.com/a.png',
          status: 'live',
          startsAt: '2026-06-02T00:00:00Z',
          endsAt: '2026-06-01T00:00:00Z',
          colour: 'red',
        })
        .expect(422);
      expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(response.body.code).to.equal('validation_failed');
      const pairs = (response.body.errors as Array<{ field: string; code: string; message: string }>).map((error) => {
        expect(error.message).to.be.a('string').and.not.equal('');
        return `${error.field}:${error.code}`;
      });
      expect(pairs).to.have.members([
        'title:too_long',
        'buttonText:too_short',
        'destinationUrl:https_required',
        'imageUrl:credentials_not_allowed',
        'status:not_allowed',
        'endsAt:ends_before_start',
        'colour:unknown_field',
      ]);
    });

    for (const [field, value, code] of [
      ['title', '', 'too_short'],
      ['buttonText', 'b'.repeat(33), 'too_long'],
      ['destinationUrl', 'ftp://example.com', 'https_required'],
      ['destinationUrl', 'https://me:pw@example.com', 'credentials_not_allowed'],
      ['imageUrl', 'http://example.com/a.png', 'https_required'],
      ['title', `a${'\u0301'.repeat(2_000)}`, 'too_long_encoded'],
      ['destinationUrl', 'https://169.254.169.254/latest/meta-data/', 'ip_address_not_allowed'],
      ['imageUrl', 'https://[::ffff:127.0.0.1]/a.png', 'ip_address_not_allowed'],
      ['destinationUrl', 'https://localhost/', 'private_host'],
      ['status', 'approved', 'not_allowed'],
      ['startsAt', '2026-06-01 10:00', 'invalid_datetime'],
      ['endsAt', '2026-06-01T10:00:00+03:00', 'invalid_datetime'],
    ] as const) {
      it(`refuses ${field} = ${value.length > 60 ? `${value.slice(0, 1)} and ${value.length - 1} combining marks` : JSON.stringify(value)} with 422 ${code}`, async () => {
        const response = await h.call('put', '/api/workspace/placements/home-feature', ADMIN).send(body({ [field]: value })).expect(422);
        expect(response.body.errors).to.deep.equal([{ field, code, message: response.body.errors[0].message }]);
      });
    }

    it('refuses an end equal to the start with 422 ends_before_start', async () => {
      const response = await h
        .call('put', '/api/workspace/placements/home-feature', ADMIN)
        .send(body({ startsAt: '2026-06-01T10:00:00Z', endsAt: '2026-06-01T10:00:00.000Z' }))
        .expect(422);
      expect(response.body.errors).to.have.length(1);
      expect(response.body.errors[0]).to.include({ field: 'endsAt', code: 'ends_before_start' });
    });

    it('refuses a body that is not JSON with 400 invalid_json', async () => {
      const response = await h.call('put', '/api/workspace/placements/home-feature', ADMIN).set('content-type', 'application/json').send('{"title":');
      expect(response.status).to.equal(400);
      expect(response.body).to.include({ code: 'invalid_json' });
    });

    it('publishes placement.changed for the new placement through the outbox', async () => {
      const answer = await put('home-feature', body({ status: 'draft', startsAt: '2026-06-01T00:00:00Z' }));
      const event = (await waitFor(
        () => h.events.find((candidate) => candidate.type === 'placement.changed' && candidate.data.placementId === answer.placement.placementId),
        { message: 'placement.changed not received' },
      )) as PlacementChanged;
      expect(event.aggregateId).to.equal('home-feature');
      expect(event.aggregateVersion).to.be.a('number').and.be.greaterThan(0);
      expect(event.data).to.deep.equal({
        slot: 'home-feature',
        placementId: answer.placement.placementId,
        status: 'draft',
        startsAt: '2026-06-01T00:00:00.000Z',
        endsAt: null,
      });
    });

    it('writes the audit facts and the placement.changed event in one history document', async () => {
      const answer = await put('workspace-top', body({ status: 'paused' }));
      const client = await MongoClient.connect(h.infra.mongoUrl);
      try {
        // The history entry is written right after the answer.
        const entry = await waitFor(() =>
          client
            .db(`placement_${h.infra.runId}`)
            .collection('placement_history')
            .findOne({ 'state.placement.placementId': answer.placement.placementId }),
          { message: 'the history entry of the change' },
        );
        expect(entry).to.include({ entity: 'placement', entityId: 'workspace-top', actorAccountId: ADMIN.accountId, action: 'set', to: 'paused' });
        expect(entry!.outbox).to.have.length(1);
        expect(entry!.outbox[0]).to.deep.include({ type: 'placement.changed', aggregateId: 'workspace-top', aggregateVersion: entry!.version });
        expect(entry!._id).to.equal(`workspace-top:${entry!.version}`);
      } finally {
        await client.close();
      }
    });

    it('keeps every one of several concurrent PUTs on one slot as its own version', async () => {
      const answers = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => h.call('put', '/api/workspace/placements/workspace-top', ADMIN).send(body({ title: `Concurrent ${n}` }))),
      );
      for (const answer of answers) expect(answer.status).to.equal(200);
      const ids = answers.map((answer) => answer.body.placement.placementId as string);
      const audit = await h.call('get', '/internal/audit?entity=placement&entityId=workspace-top', ADMIN).expect(200);
      const audited = audit.body.items.map((item: { placementId: string }) => item.placementId);
      expect(audited).to.include.members(ids);
    });
  });

  describe('GET /api/site/placements/{slot}', () => {
    it('answers 404 slot_not_found for an unknown slot', async () => {
      const response = await h.call('get', '/api/site/placements/sidebar', null).expect(404);
      expect(response.body).to.include({ code: 'slot_not_found' });
    });

    it('shows an active placement only inside its schedule: 204 before the start, 200 at the start, 204 at the end', async () => {
      const now = h.clock.now().getTime();
      const startsAt = new Date(now + HOUR).toISOString();
      const endsAt = new Date(now + 2 * HOUR).toISOString();
      const answer = await put('home-feature', body({ startsAt, endsAt, imageUrl: null }));

      const before = await h.call('get', '/api/site/placements/home-feature', null).expect(204);
      expect(before.text).to.equal('');

      h.clock.set(startsAt);
      const atStart = await h.call('get', '/api/site/placements/home-feature', null).expect(200);
      expect(atStart.headers['cache-control']).to.equal('no-store');
      expect(atStart.body).to.deep.equal({
        slot: 'home-feature',
        placementId: answer.placement.placementId,
        title: 'Meet the pilot',
        buttonText: 'Open',
        destinationUrl: 'https://example.com/pilot',
        imageUrl: null,
      });

      h.clock.set(new Date(Date.parse(endsAt) - 1));
      await h.call('get', '/api/site/placements/home-feature', null).expect(200);

      h.clock.set(endsAt);
      const atEnd = await h.call('get', '/api/site/placements/home-feature', null).expect(204);
      expect(atEnd.headers['cache-control']).to.equal('no-store');
    });

    it("shows another replica's change as soon as its placement.changed event arrives, with no store read per page view", async () => {
      // An hour before a slot is read again unasked: only the event can make the replica see the change.
      const replica = await startReplica(h, { showingMaxAgeMs: HOUR });
      try {
        const shown = async () => (await replica.call('get', '/api/site/placements/tr-footer', null)).body as { placementId?: string };
        const active = await put('tr-footer', body({ title: 'First' }));
        await waitFor(async () => (await shown()).placementId === active.placement.placementId, { message: 'the replica shows the new placement' });
        expect((await replica.call('post', '/api/site/placements/tr-footer/impressions', null, freshIp()).send({ placementId: active.placement.placementId })).status).to.equal(204);

        await put('tr-footer', body({ title: 'First', status: 'paused' }));
        await waitFor(async () => (await replica.call('get', '/api/site/placements/tr-footer', null)).status === 204, { message: 'the replica stops showing the paused placement' });
        const paused = await replica.call('post', '/api/site/placements/tr-footer/impressions', null, freshIp()).send({ placementId: active.placement.placementId });
        expect(paused.status, 'an impression of the paused placement on the replica').to.equal(409);
      } finally {
        await replica.service.stop();
      }
    });

    it('never shows a draft or a paused placement, even inside its schedule', async () => {
      await put('home-feature', body({ status: 'draft' }));
      await h.call('get', '/api/site/placements/home-feature', null).expect(204);
      await put('home-feature', body({ status: 'paused' }));
      await h.call('get', '/api/site/placements/home-feature', null).expect(204);
      const active = await put('home-feature', body({ status: 'active' }));
      const shown = await h.call('get', '/api/site/placements/home-feature', null).expect(200);
      expect(shown.body.placementId).to.equal(active.placement.placementId);
    });
  });

  describe('POST /api/site/placements/{slot}/impressions', () => {
    it('counts an impression of the showable placement with 204', async () => {
      const answer = await put('tr-footer', body());
      const response = await report('tr-footer', answer.placement.placementId).expect(204);
      expect(response.text).to.equal('');
      expect(await impressionsOf('tr-footer')).to.equal(1);
    });

    it('refuses with 409 placement_not_showable, and does not count, a draft, paused, not yet started or ended placement', async () => {
      const now = h.clock.now().getTime();
      const cases = [
        body({ status: 'draft' }),
        body({ status: 'paused' }),
        body({ startsAt: new Date(now + HOUR).toISOString() }),
        body({ startsAt: new Date(now - 2 * HOUR).toISOString(), endsAt: new Date(now - HOUR).toISOString() }),
      ];
      for (const payload of cases) {
        const answer = await put('tr-footer', payload);
        const response = await report('tr-footer', answer.placement.placementId).expect(409);
        expect(response.body).to.include({ status: 409, code: 'placement_not_showable' });
        expect(await impressionsOf('tr-footer')).to.equal(0);
      }
    });

    it('counts only while showable: the same placement stops counting at its end', async () => {
      const now = h.clock.now().getTime();
      const endsAt = new Date(now + HOUR).toISOString();
      const answer = await put('tr-footer', body({ endsAt }));
      await report('tr-footer', answer.placement.placementId).expect(204);
      h.clock.set(endsAt);
      await report('tr-footer', answer.placement.placementId).expect(409);
      expect(await impressionsOf('tr-footer')).to.equal(1);
    });

    it('refuses with 409 an impression of a replaced placement or of an unknown placementId', async () => {
      const old = await put('workspace-top', body());
      await put('workspace-top', body({ title: 'Newer' }));
      await report('workspace-top', old.placement.placementId).expect(409);
      await report('workspace-top', '00000000-0000-4000-8000-000000000000').expect(409);
      expect(await impressionsOf('workspace-top')).to.equal(0);
    });

    it('answers 404 slot_not_found for an unknown slot and 422 for a malformed body', async () => {
      const unknown = await report('sidebar', 'x').expect(404);
      expect(unknown.body).to.include({ code: 'slot_not_found' });
      const malformed = await report('workspace-top', 42).expect(422);
      expect(malformed.body.errors).to.deep.equal([{ field: 'placementId', code: 'invalid_type', message: 'placementId must be a string' }]);
    });

    it('counts every one of 50 parallel impressions', async () => {
      const answer = await put('home-feature', body({ startsAt: null, endsAt: null }));
      const responses = await Promise.all(Array.from({ length: 50 }, () => report('home-feature', answer.placement.placementId)));
      expect(responses.map((response) => response.status)).to.deep.equal(Array(50).fill(204));
      expect(await impressionsOf('home-feature')).to.equal(50);
    });

    it('keeps the count exact once the impressions are folded into MongoDB, and goes on counting', async () => {
      // A title of its own: saving exactly the current content again would keep the current placement.
      const answer = await put('home-feature', body({ title: 'Folded count', startsAt: null, endsAt: null }));
      await Promise.all(Array.from({ length: 7 }, () => report('home-feature', answer.placement.placementId).expect(204)));
      const pass = await h.service.folder.foldNow(true);
      expect(pass).to.include({ held: true });
      expect(pass.applied).to.be.at.least(1);
      expect(await impressionsOf('home-feature')).to.equal(7);
      await report('home-feature', answer.placement.placementId).expect(204);
      expect(await impressionsOf('home-feature')).to.equal(8);
    });

    it('limits one client: the report over the limit is 429 with Retry-After and is not counted, other clients go on', async () => {
      const answer = await put('home-feature', body({ title: 'Limited client', startsAt: null, endsAt: null }));
      const abuser = freshIp();
      for (let i = 0; i < 5; i += 1) await report('home-feature', answer.placement.placementId, abuser).expect(204);
      const limited = await report('home-feature', answer.placement.placementId, abuser).expect(429);
      expect(limited.body).to.include({ status: 429, code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
      await report('home-feature', answer.placement.placementId, freshIp()).expect(204);
      expect(await impressionsOf('home-feature')).to.equal(6);
    });

    it('counts an IPv6 client by its /64: another address of the same /64 is the same client, another /64 is not', async () => {
      const answer = await put('home-feature', body({ title: 'IPv6 client', startsAt: null, endsAt: null }));
      for (let i = 1; i <= 5; i += 1) await report('home-feature', answer.placement.placementId, `2001:db8:77:1::${i}`).expect(204);
      const limited = await report('home-feature', answer.placement.placementId, '2001:db8:77:1:ffff:1:2:3').expect(429);
      expect(limited.body.code).to.equal('rate_limited');
      await report('home-feature', answer.placement.placementId, '2001:db8:77:2::1').expect(204);
    });

    it('keeps impressions out of the network: reporting them publishes no event', async () => {
      const answer = await put('tr-footer', body({ startsAt: null, endsAt: null }));
      for (let i = 0; i < 3; i += 1) await report('tr-footer', answer.placement.placementId).expect(204);
      // A later change is relayed after anything the reports could have caused; once it arrives, look at all.
      const marker = await put('tr-footer', body({ title: 'Marker' }));
      await waitFor(() => h.events.some((event) => event.type === 'placement.changed' && event.data.placementId === marker.placement.placementId));
      expect(h.events.map((event) => event.type)).to.satisfy((types: string[]) => types.every((type) => type === 'placement.changed'));
    });
  });

  describe('GET /internal/audit', () => {
    it('gives an administrator every change of a slot, newest first, with actor, action and statuses', async () => {
      h.clock.advance(60_000);
      const first = await put('home-feature', body({ status: 'draft' }));
      h.clock.advance(60_000);
      const second = await put('home-feature', body({ status: 'active' }));
      const response = await h.call('get', '/internal/audit?entity=placement&entityId=home-feature', ADMIN).expect(200);
      const items = response.body.items as Array<Record<string, unknown>>;
      expect(items.length).to.be.greaterThan(2);
      expect(items[0]).to.deep.equal({
        at: h.clock.now().toISOString(),
        actorAccountId: ADMIN.accountId,
        entity: 'placement',
        entityId: 'home-feature',
        action: 'set',
        from: 'draft',
        to: 'active',
        reason: null,
        placementId: second.placement.placementId,
        key: items[0]?.key,
      });
      expect(items[0]?.key).to.match(/^placement\/home-feature:[0-9]+$/);
      expect(items[1]).to.include({ placementId: first.placement.placementId, to: 'draft' });
      const times = items.map((item) => item.at as string);
      expect([...times].sort().reverse()).to.deep.equal(times);
      expect(items.every((item) => item.entityId === 'home-feature')).to.equal(true);
    });

    it('finds the entry of one placement by its placementId', async () => {
      const answer = await put('tr-footer', body({ status: 'paused' }));
      const response = await h.call('get', `/internal/audit?entity=placement&entityId=${answer.placement.placementId}`, ADMIN).expect(200);
      expect(response.body.items).to.have.length(1);
      expect(response.body.items[0]).to.include({ entityId: 'tr-footer', placementId: answer.placement.placementId, to: 'paused' });
    });

    it('gives an administrator every placement entry without a filter, and none for another entity', async () => {
      const all = await h.call('get', '/internal/audit', ADMIN).expect(200);
      const slots = new Set(all.body.items.map((item: { entityId: string }) => item.entityId));
      expect([...slots]).to.have.members(['home-feature', 'workspace-top', 'tr-footer']);
      const other = await h.call('get', '/internal/audit?entity=campaign&entityId=1', ADMIN).expect(200);
      expect(other.body).to.deep.equal({ items: [] });
    });

    it('gives an account that is not an administrator no entries', async () => {
      const response = await h.call('get', '/internal/audit?entity=placement&entityId=home-feature', MEMBER).expect(200);
      expect(response.body).to.deep.equal({ items: [] });
    });
  });

  describe('probes', () => {
    it('reports ready when MongoDB, RabbitMQ and Redis answer', async () => {
      const response = await request(h.service.url).get('/readyz').expect(200);
      expect(response.body.checks).to.deep.equal({ mongodb: 'ok', rabbitmq: 'ok', redis: 'ok' });
    });
  });
});
