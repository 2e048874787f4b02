import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as packageIndex from '../src';
import {
  ALLOCATION_CREATED,
  assertValidEvent,
  createEnvelope,
  EVENT_TYPES,
  eventDataSchemas,
  InvalidEventError,
  isEventType,
  PLACEMENT_CHANGED,
  type CampaignState,
  type EventType,
  type PublisherState,
} from '../src';

const campaign: CampaignState = {
  campaignId: 12,
  ownerAccountId: '1001',
  status: 'active',
  format: 'bot',
  language: 'en',
  title: 'Title',
  text: 'Body text',
  buttonText: 'Open',
  imageUrl: null,
  destinationUrl: 'https://example.org/landing',
};

const publisher: PublisherState = {
  publisherId: 3,
  ownerAccountId: '2002',
  status: 'approved',
  type: 'channel',
  link: 'https://t.me/example',
  keyCreatedAt: '2026-01-01T00:00:00.000Z',
};

/** A valid data example and a broken one (wrong type, missing field or unknown field) per event type. */
function examplesOf(type: EventType): { valid: Record<string, unknown>; broken: Record<string, unknown>[] } {
  if (type.startsWith('campaign.')) {
    const statusAfter: Record<string, CampaignState['status']> = {
      'campaign.submitted': 'submitted',
      'campaign.approved': 'approved',
      'campaign.activated': 'active',
      'campaign.paused': 'paused',
      'campaign.rejected': 'rejected',
    };
    const valid = { ...campaign, status: statusAfter[type] ?? 'draft' };
    const { title: _title, ...withoutTitle } = valid;
    return {
      valid,
      broken: [{ ...valid, campaignId: '12' }, withoutTitle, { ...valid, status: 'archived' }, { ...valid, extra: 1 }, { ...valid, ownerAccountId: 'abc' }],
    };
  }
  if (type.startsWith('publisher.')) {
    const { link: _link, ...withoutLink } = publisher;
    return {
      valid: { ...publisher },
      broken: [{ ...publisher, publisherId: 0 }, withoutLink, { ...publisher, type: 'group' }, { ...publisher, apiKey: 'x' }],
    };
  }
  if (type === ALLOCATION_CREATED) {
    const valid = {
      allocationId: '6f1c2a7e-1b2c-4d5e-8f90-123456789abc',
      campaignId: 12,
      campaignOwnerAccountId: '1001',
      publisherId: 3,
      publisherOwnerAccountId: '2002',
      format: 'bot',
      language: 'en',
      allocatedAt: '2026-01-01T00:00:00.000Z',
    };
    return { valid, broken: [{ ...valid, allocatedAt: 'yesterday' }, { ...valid, language: 'english' }, { ...valid, format: 'web' }] };
  }
  if (type === PLACEMENT_CHANGED) {
    const valid = { slot: 'home-feature', placementId: 'p-1', status: 'active', startsAt: '2026-01-01T00:00:00.000Z', endsAt: null };
    const { endsAt: _endsAt, ...withoutEnd } = valid;
    return { valid, broken: [{ ...valid, slot: 'sidebar' }, withoutEnd, { ...valid, status: 'deleted' }] };
  }
  throw new Error(`no example for ${type}: add one to this test`);
}

describe('contracts: event schemas', () => {
  for (const type of EVENT_TYPES) {
    describe(type, () => {
      it('accepts a valid example in an envelope', () => {
        const event = createEnvelope(type, 'agg-1', 1, examplesOf(type).valid);
        expect(() => assertValidEvent(event)).not.to.throw();
      });

      it('refuses broken data, naming the event type', () => {
        for (const broken of examplesOf(type).broken) {
          const event = createEnvelope(type, 'agg-1', 1, broken);
          expect(() => assertValidEvent(event), JSON.stringify(broken)).to.throw(InvalidEventError, `invalid ${type} data`);
        }
      });
    });
  }
});

describe('contracts: envelope', () => {
  it('creates an envelope with a fresh id, version 1 and the given time', () => {
    const at = new Date('2026-03-04T05:06:07.000Z');
    const first = createEnvelope(PLACEMENT_CHANGED, 'home-feature', 4, examplesOf(PLACEMENT_CHANGED).valid, at);
    const second = createEnvelope(PLACEMENT_CHANGED, 'home-feature', 4, examplesOf(PLACEMENT_CHANGED).valid, at);
    expect(first).to.include({ type: PLACEMENT_CHANGED, version: 1, occurredAt: '2026-03-04T05:06:07.000Z', aggregateId: 'home-feature', aggregateVersion: 4 });
    expect(first.id).to.match(/^[0-9a-f-]{36}$/);
    expect(first.id).not.to.equal(second.id);
  });

  it('defaults occurredAt to now', () => {
    const before = Date.now();
    const event = createEnvelope(PLACEMENT_CHANGED, 'x', 1, {});
    expect(new Date(event.occurredAt).getTime()).to.be.within(before, Date.now());
  });
});

describe('contracts: assertValidEvent', () => {
  const valid = () => createEnvelope(ALLOCATION_CREATED, 'a-1', 1, examplesOf(ALLOCATION_CREATED).valid);

  it('refuses what is not an envelope', () => {
    for (const candidate of [null, 'event', 42, [], {}]) {
      expect(() => assertValidEvent(candidate)).to.throw(InvalidEventError, 'invalid envelope');
    }
  });

  it('refuses an envelope with a missing, extra or malformed field', () => {
    const { aggregateVersion: _v, ...withoutVersion } = valid();
    const cases: unknown[] = [
      withoutVersion,
      { ...valid(), extra: true },
      { ...valid(), aggregateVersion: 0 },
      { ...valid(), version: 1.5 },
      { ...valid(), occurredAt: 'now' },
      { ...valid(), type: 'Allocation Created' },
      { ...valid(), id: '' },
      { ...valid(), data: 'text' },
    ];
    for (const candidate of cases) {
      expect(() => assertValidEvent(candidate), JSON.stringify(candidate)).to.throw(InvalidEventError, 'invalid envelope');
    }
  });

  it('refuses a well-formed envelope of an unknown type', () => {
    expect(() => assertValidEvent({ ...valid(), type: 'campaign.deleted' })).to.throw(InvalidEventError, 'unknown event type campaign.deleted');
  });

  it('names the failing field of the data', () => {
    const event = { ...valid(), data: { ...examplesOf(ALLOCATION_CREATED).valid, campaignId: -1 } };
    expect(() => assertValidEvent(event)).to.throw(InvalidEventError, /campaignId/);
  });
});

describe('contracts: who made a change and why', () => {
  it('takes the actor, the reason and the campaign name as optional fields, so events without them stay valid', () => {
    const withFacts = { ...campaign, status: 'rejected', actorAccountId: '1000', reason: 'No landing page', name: 'Spring sale' };
    expect(() => assertValidEvent(createEnvelope('campaign.rejected', '12', 2, withFacts))).to.not.throw();
    expect(() => assertValidEvent(createEnvelope('campaign.paused', '12', 2, { ...campaign, status: 'paused', reason: null }))).to.not.throw();
    expect(() => assertValidEvent(createEnvelope('publisher.rejected', '3', 2, { ...publisher, status: 'rejected', actorAccountId: '1000', reason: 'Not the owner' }))).to.not.throw();
    expect(() => assertValidEvent(createEnvelope('publisher.approved', '3', 2, publisher))).to.not.throw();
  });

  it('refuses a malformed actor, reason or name', () => {
    expect(() => assertValidEvent(createEnvelope('campaign.approved', '12', 2, { ...campaign, actorAccountId: 'admin' }))).to.throw(InvalidEventError, /actorAccountId/);
    expect(() => assertValidEvent(createEnvelope('campaign.rejected', '12', 2, { ...campaign, reason: 42 }))).to.throw(InvalidEventError, /reason/);
    expect(() => assertValidEvent(createEnvelope('campaign.approved', '12', 2, { ...campaign, name: '' }))).to.throw(InvalidEventError, /name/);
    expect(() => assertValidEvent(createEnvelope('publisher.paused', '3', 2, { ...publisher, name: 'not for platforms' }))).to.throw(InvalidEventError);
  });
});

describe('contracts: registry', () => {
  const eventsDir = path.join(__dirname, '..', 'src', 'events');
  const eventFiles = readdirSync(eventsDir).filter((file) => file.endsWith('.ts') && !file.endsWith('-state.ts'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = (file: string) => require(path.join(eventsDir, file)) as Record<string, unknown>;

  it('registers the wire name of every event file, and nothing else', () => {
    const wireNames: string[] = [];
    for (const file of eventFiles) {
      const module = load(file);
      const names = Object.values(module).filter((value): value is string => typeof value === 'string' && /^[a-z_]+\.[a-z_]+$/.test(value));
      expect(names, file).to.have.length(1);
      wireNames.push(names[0] as string);
    }
    expect([...EVENT_TYPES].sort()).to.deep.equal(wireNames.sort());
  });

  it('exports every event file from the package index', () => {
    const index = packageIndex as Record<string, unknown>;
    for (const file of eventFiles) {
      const module = load(file);
      for (const name of Object.keys(module)) expect(index, `${file} ${name}`).to.have.property(name);
    }
  });

  it('has a data schema for every type and tells known types from unknown ones', () => {
    for (const type of EVENT_TYPES) {
      expect(eventDataSchemas[type], type).to.be.an('object');
      expect(isEventType(type)).to.equal(true);
    }
    expect(isEventType('campaign.deleted')).to.equal(false);
    expect(isEventType('toString')).to.equal(false);
  });
});
