import { expect } from 'chai';
import {
  isExpired,
  isWellFormedToken,
  issueToken,
  newAllocationId,
  readToken,
  TOKEN_LIFETIME_SECONDS,
  type AllocationClaims,
  type TokenPurpose,
} from '../src';

const SECRET = 'test-token-secret-0123456789abcdef';
const issuedAt = new Date('2026-05-01T12:00:00.000Z');

function claims(overrides: Partial<AllocationClaims> = {}): AllocationClaims {
  return {
    allocationId: newAllocationId(),
    campaignId: 4_000_000_000,
    publisherId: 17,
    campaignOwnerAccountId: '9007199254740993123',
    publisherOwnerAccountId: '42',
    issuedAt,
    ...overrides,
  };
}

/** Flips one character of the token at `index` to another base64url character. */
function tamper(token: string, index: number): string {
  const replacement = token[index] === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('tokens', () => {
  for (const purpose of ['delivery', 'click'] as TokenPurpose[]) {
    it(`reads back every claim of a ${purpose} token`, () => {
      const original = claims();
      const token = issueToken(SECRET, purpose, original);
      expect(isWellFormedToken(token)).to.equal(true);
      expect(token).to.have.length(86);
      expect(readToken(SECRET, purpose, token)).to.deep.equal(original);
    });
  }

  it('keeps large account ids (above 2^53) exact', () => {
    const original = claims({ campaignOwnerAccountId: '18446744073709551615', publisherOwnerAccountId: '9007199254740993' });
    expect(readToken(SECRET, 'click', issueToken(SECRET, 'click', original))).to.deep.equal(original);
  });

  it('drops the milliseconds of the issue time (whole seconds are signed)', () => {
    const original = claims({ issuedAt: new Date('2026-05-01T12:00:00.999Z') });
    expect(readToken(SECRET, 'delivery', issueToken(SECRET, 'delivery', original))?.issuedAt.toISOString()).to.equal('2026-05-01T12:00:00.000Z');
  });

  it('does not accept a delivery token as a click token, nor a click token as a delivery token', () => {
    const original = claims();
    expect(readToken(SECRET, 'click', issueToken(SECRET, 'delivery', original))).to.equal(null);
    expect(readToken(SECRET, 'delivery', issueToken(SECRET, 'click', original))).to.equal(null);
  });

  it('refuses a token signed with another secret', () => {
    expect(readToken(SECRET, 'delivery', issueToken('another-secret', 'delivery', claims()))).to.equal(null);
  });

  it('refuses a token whose payload or signature was changed in any character', () => {
    const token = issueToken(SECRET, 'delivery', claims());
    for (let index = 0; index < token.length; index += 1) {
      if (token[index] === '.') continue;
      expect(readToken(SECRET, 'delivery', tamper(token, index)), `changed at ${index}`).to.equal(null);
    }
  });

  it('refuses a non-canonical spelling of a valid token (padding bits set in the last character)', () => {
    const token = issueToken(SECRET, 'delivery', claims());
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const [payload, mac] = token.split('.') as [string, string];
    // The payload's last character carries 2 unused bits, the signature's 4.
    const twinPayload = payload.slice(0, -1) + alphabet[alphabet.indexOf(payload.slice(-1)) | 1];
    const twinMac = mac.slice(0, -1) + alphabet[alphabet.indexOf(mac.slice(-1)) | 1];
    expect(Buffer.from(twinPayload, 'base64url')).to.deep.equal(Buffer.from(payload, 'base64url'));
    expect(readToken(SECRET, 'delivery', `${twinPayload}.${mac}`)).to.equal(null);
    expect(readToken(SECRET, 'delivery', `${payload}.${twinMac}`)).to.equal(null);
  });

  it('refuses malformed candidates without throwing', () => {
    const token = issueToken(SECRET, 'click', claims());
    for (const candidate of ['', 'abc', token.slice(1), `${token}A`, token.replace('.', '_'), `${token.slice(0, 85)}=`, ' '.repeat(86)]) {
      expect(isWellFormedToken(candidate), candidate).to.equal(false);
      expect(readToken(SECRET, 'click', candidate), candidate).to.equal(null);
    }
    expect(isWellFormedToken(undefined)).to.equal(false);
    expect(isWellFormedToken(86)).to.equal(false);
    expect(readToken(SECRET, 'click', null as unknown as string)).to.equal(null);
  });

  it(`expires exactly after ${TOKEN_LIFETIME_SECONDS} s, by the given clock`, () => {
    const read = readToken(SECRET, 'delivery', issueToken(SECRET, 'delivery', claims())) as AllocationClaims;
    const at = (seconds: number, ms = 0) => new Date(issuedAt.getTime() + seconds * 1000 + ms);
    expect(TOKEN_LIFETIME_SECONDS).to.equal(3600);
    expect(isExpired(read, at(0))).to.equal(false);
    expect(isExpired(read, at(3599, 999))).to.equal(false);
    expect(isExpired(read, at(3600))).to.equal(false);
    expect(isExpired(read, at(3600, 1))).to.equal(true);
    expect(isExpired(read, at(7200))).to.equal(true);
  });

  it('fits a delivery confirmation body {"token":"..."} well under 200 characters', () => {
    const body = JSON.stringify({ token: issueToken(SECRET, 'delivery', claims()) });
    expect(body.length).to.be.below(200);
    expect(body.length).to.equal(98);
  });

  it('makes a fresh allocation id every time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newAllocationId()));
    expect(ids.size).to.equal(100);
  });
});
