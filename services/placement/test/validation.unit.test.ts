import { expect } from 'chai';
import { isShowable, type Placement } from '../src/domain/placement';
import { isSlot } from '../src/domain/slots';
import { graphemeLength, parseUtcDateTime, type FieldProblem } from '@pilot/contracts';
import { validateImpressionInput, validatePlacementInput } from '../src/domain/validation';

const valid = {
  title: 'Try the pilot',
  buttonText: 'Open',
  destinationUrl: 'https://example.com/landing?x=1',
  imageUrl: 'https://cdn.example.com/a.png',
  status: 'active',
  startsAt: '2026-01-01T10:00:00Z',
  endsAt: '2026-01-02T10:00:00.000Z',
};

function errorsOf(body: unknown): FieldProblem[] {
  const result = validatePlacementInput(body);
  if (result.ok) throw new Error('expected the input to be refused');
  return result.errors;
}

function codesOf(body: unknown): string[] {
  return errorsOf(body).map((error) => `${error.field}:${error.code}`);
}

describe('placement input validation', () => {
  it('accepts a complete placement and parses its schedule as UTC dates', () => {
    const result = validatePlacementInput(valid);
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value.startsAt?.toISOString()).to.equal('2026-01-01T10:00:00.000Z');
    expect(result.value.endsAt?.toISOString()).to.equal('2026-01-02T10:00:00.000Z');
    expect(result.value.imageUrl).to.equal(valid.imageUrl);
  });

  it('accepts a placement without image and without schedule (open ended)', () => {
    const result = validatePlacementInput({ title: 'T', buttonText: 'B', destinationUrl: 'https://example.com', status: 'draft' });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value).to.include({ imageUrl: null, startsAt: null, endsAt: null, status: 'draft' });
  });

  it('accepts explicit nulls for the optional fields', () => {
    expect(validatePlacementInput({ ...valid, imageUrl: null, startsAt: null, endsAt: null }).ok).to.equal(true);
  });

  it('refuses a body that is not an object', () => {
    expect(codesOf([])).to.deep.equal(['(body):invalid_type']);
    expect(codesOf(null)).to.deep.equal(['(body):invalid_type']);
    expect(codesOf('x')).to.deep.equal(['(body):invalid_type']);
  });

  it('lists every missing required field at once', () => {
    expect(codesOf({})).to.have.members(['title:required', 'buttonText:required', 'destinationUrl:required', 'status:required']);
  });

  it('refuses unknown fields', () => {
    expect(codesOf({ ...valid, slot: 'home-feature' })).to.deep.equal(['slot:unknown_field']);
  });

  it('counts title and button label in graphemes: 100 and 32 pass, 101 and 33 fail', () => {
    const family = '👨‍👩‍👧';
    expect(graphemeLength(family.repeat(3))).to.equal(3);
    expect(validatePlacementInput({ ...valid, title: family.repeat(100), buttonText: 'é'.repeat(32) }).ok).to.equal(true);
    expect(codesOf({ ...valid, title: 'a'.repeat(101) })).to.deep.equal(['title:too_long']);
    expect(codesOf({ ...valid, buttonText: family.repeat(33) })).to.deep.equal(['buttonText:too_long']);
  });

  it('caps the UTF-16 length of title and button label at 8 code units a character (too_long_encoded)', () => {
    const mark = '\u0301';
    expect(codesOf({ ...valid, title: `a${mark.repeat(20_000)}` })).to.deep.equal(['title:too_long_encoded']);
    expect(codesOf({ ...valid, buttonText: `a${mark.repeat(32 * 8)}` })).to.deep.equal(['buttonText:too_long_encoded']);
    expect(validatePlacementInput({ ...valid, title: `a${mark.repeat(100 * 8 - 1)}`, buttonText: `a${mark.repeat(32 * 8 - 1)}` }).ok).to.equal(true);
  });

  it('refuses destination and image URLs naming an IP address, localhost or an internal name', () => {
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://[::ffff:127.0.0.1]/', 'https://169.254.169.254/', 'https://10.1.2.3/', 'https://[fd00::1]/', 'https://[fe80::1]/']) {
      expect(codesOf({ ...valid, destinationUrl: url, imageUrl: url }), url).to.deep.equal(['destinationUrl:ip_address_not_allowed', 'imageUrl:ip_address_not_allowed']);
    }
    for (const url of ['https://localhost/', 'https://a.localhost/', 'https://metadata.google.internal/', 'https://intranet/']) {
      expect(codesOf({ ...valid, destinationUrl: url, imageUrl: url }), url).to.deep.equal(['destinationUrl:private_host', 'imageUrl:private_host']);
    }
  });

  it('refuses empty, blank and non-string texts', () => {
    expect(codesOf({ ...valid, title: '' })).to.deep.equal(['title:too_short']);
    // Only spaces: `blank`, as for campaigns.
    expect(codesOf({ ...valid, buttonText: '   ' })).to.deep.equal(['buttonText:blank']);
    expect(codesOf({ ...valid, title: 5 })).to.deep.equal(['title:invalid_type']);
  });

  it('refuses control characters in texts', () => {
    expect(codesOf({ ...valid, title: 'a\nb' })).to.deep.equal(['title:invalid_characters']);
  });

  it('refuses non-HTTPS, credentialed, relative and overlong URLs', () => {
    expect(codesOf({ ...valid, destinationUrl: 'http://example.com' })).to.deep.equal(['destinationUrl:https_required']);
    expect(codesOf({ ...valid, destinationUrl: 'javascript:alert(1)' })).to.deep.equal(['destinationUrl:https_required']);
    expect(codesOf({ ...valid, destinationUrl: 'https://user:pw@example.com' })).to.deep.equal(['destinationUrl:credentials_not_allowed']);
    expect(codesOf({ ...valid, imageUrl: 'https://user@example.com/a.png' })).to.deep.equal(['imageUrl:credentials_not_allowed']);
    // Not https:// at all: `https_required`, as for campaigns.
    expect(codesOf({ ...valid, imageUrl: '/a.png' })).to.deep.equal(['imageUrl:https_required']);
    expect(codesOf({ ...valid, imageUrl: 'ftp://example.com/a.png' })).to.deep.equal(['imageUrl:https_required']);
    expect(codesOf({ ...valid, destinationUrl: `https://example.com/${'a'.repeat(2048)}` })).to.deep.equal(['destinationUrl:too_long']);
  });

  it('refuses a status other than draft, active or paused', () => {
    expect(codesOf({ ...valid, status: 'approved' })).to.deep.equal(['status:not_allowed']);
    expect(codesOf({ ...valid, status: 'ACTIVE' })).to.deep.equal(['status:not_allowed']);
  });

  it('refuses schedule times that are not ISO 8601 UTC', () => {
    expect(codesOf({ ...valid, startsAt: '2026-01-01T10:00:00+02:00' })).to.deep.equal(['startsAt:invalid_datetime']);
    expect(codesOf({ ...valid, startsAt: '2026-01-01' })).to.deep.equal(['startsAt:invalid_datetime']);
    expect(codesOf({ ...valid, endsAt: '2026-02-30T10:00:00Z' })).to.deep.equal(['endsAt:invalid_datetime']);
    expect(codesOf({ ...valid, endsAt: 1767225600000 })).to.deep.equal(['endsAt:invalid_type']);
  });

  it('refuses an end at or before the start', () => {
    expect(codesOf({ ...valid, endsAt: valid.startsAt })).to.deep.equal(['endsAt:ends_before_start']);
    expect(codesOf({ ...valid, endsAt: '2025-12-31T10:00:00Z' })).to.deep.equal(['endsAt:ends_before_start']);
  });

  it('parses the accepted UTC forms', () => {
    expect(parseUtcDateTime('2026-03-04T05:06Z')?.toISOString()).to.equal('2026-03-04T05:06:00.000Z');
    expect(parseUtcDateTime('2026-03-04T05:06:07.5+00:00')?.toISOString()).to.equal('2026-03-04T05:06:07.500Z');
    expect(parseUtcDateTime('2026-03-04T24:00:00Z')).to.equal(null);
  });
});

describe('impression input validation', () => {
  it('accepts {placementId}', () => {
    expect(validateImpressionInput({ placementId: '0b6f3c1e-1d2a-4b8e-9a51-6a1f0f2c9d11' })).to.deep.equal({ ok: true, placementId: '0b6f3c1e-1d2a-4b8e-9a51-6a1f0f2c9d11' });
  });

  it('refuses a missing, mistyped or malformed placementId and extra fields', () => {
    const codes = (body: unknown) => {
      const result = validateImpressionInput(body);
      return result.ok ? [] : result.errors.map((error) => `${error.field}:${error.code}`);
    };
    expect(codes({})).to.deep.equal(['placementId:required']);
    expect(codes({ placementId: 7 })).to.deep.equal(['placementId:invalid_type']);
    expect(codes({ placementId: '../x' })).to.deep.equal(['placementId:invalid_format']);
    expect(codes({ placementId: 'a', n: 2 })).to.deep.equal(['n:unknown_field']);
    expect(codes([])).to.deep.equal(['(body):invalid_type']);
  });
});

describe('slots and schedule', () => {
  const base: Placement = {
    placementId: 'p1',
    slot: 'home-feature',
    title: 'T',
    buttonText: 'B',
    destinationUrl: 'https://example.com',
    imageUrl: null,
    status: 'active',
    startsAt: new Date('2026-01-01T10:00:00Z'),
    endsAt: new Date('2026-01-01T12:00:00Z'),
    createdAt: new Date('2026-01-01T00:00:00Z'),
    createdBy: '1',
  };

  it('knows exactly the three slots', () => {
    expect(['home-feature', 'workspace-top', 'tr-footer'].every(isSlot)).to.equal(true);
    expect(isSlot('home')).to.equal(false);
    expect(isSlot(undefined)).to.equal(false);
  });

  it('shows an active placement from its start (inclusive) to its end (exclusive)', () => {
    expect(isShowable(base, new Date('2026-01-01T09:59:59.999Z'))).to.equal(false);
    expect(isShowable(base, new Date('2026-01-01T10:00:00.000Z'))).to.equal(true);
    expect(isShowable(base, new Date('2026-01-01T11:59:59.999Z'))).to.equal(true);
    expect(isShowable(base, new Date('2026-01-01T12:00:00.000Z'))).to.equal(false);
  });

  it('treats a missing bound as open', () => {
    expect(isShowable({ ...base, startsAt: null }, new Date('2020-01-01T00:00:00Z'))).to.equal(true);
    expect(isShowable({ ...base, endsAt: null }, new Date('2030-01-01T00:00:00Z'))).to.equal(true);
  });

  it('never shows draft or paused placements, nor a missing one', () => {
    const inside = new Date('2026-01-01T11:00:00Z');
    expect(isShowable({ ...base, status: 'draft' }, inside)).to.equal(false);
    expect(isShowable({ ...base, status: 'paused' }, inside)).to.equal(false);
    expect(isShowable(null, inside)).to.equal(false);
  });
});
