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
import { encodeClaims } from '../src/claims-codec';
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SECRET = 'test-token-secret-0123456789abcdef';
/** A reader that accepts SECRET only. */
const ONLY = { current: SECRET, previous: null };
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

/** A token as the version before key ids sealed it (version 2: no key id, 100 characters). */
function unkeyedToken(secret: string, purpose: TokenPurpose, original: AllocationClaims): string {
  const key = Buffer.from(hkdfSync('sha256', secret, 'pilot/tokens', 'delivery and click tokens, AES-256-GCM, v2', 32));
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  cipher.setAAD(Buffer.concat([Buffer.from(purpose), Buffer.from([2])]));
  const ciphertext = Buffer.concat([cipher.update(encodeClaims(original)), cipher.final()]);
  return Buffer.concat([Buffer.from([2]), nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

/** The ways an account id could be written into bytes: decimal text, 64-bit big and little endian, hex text. */
function accountIdEncodings(accountId: string): Buffer[] {
  const big = Buffer.alloc(8);
  big.writeBigUInt64BE(BigInt(accountId));
  const little = Buffer.alloc(8);
  little.writeBigUInt64LE(BigInt(accountId));
  return [Buffer.from(accountId), big, little, Buffer.from(BigInt(accountId).toString(16))];
}

describe('tokens', () => {
  for (const purpose of ['delivery', 'click'] as TokenPurpose[]) {
    it(`reads back every claim of a ${purpose} token`, () => {
      const original = claims();
      const token = issueToken(SECRET, purpose, original);
      expect(isWellFormedToken(token)).to.equal(true);
      expect(token).to.have.length(104);
      expect(readToken(ONLY, purpose, token)).to.deep.equal(original);
    });
  }

  it('reveals no account id: no base64url part of a token decodes to anything containing one', () => {
    const campaignOwner = '9007199254740993123';
    const publisherOwner = '4200000042';
    const original = claims({ campaignOwnerAccountId: campaignOwner, publisherOwnerAccountId: publisherOwner });
    for (const purpose of ['delivery', 'click'] as TokenPurpose[]) {
      const token = issueToken(SECRET, purpose, original);
      for (const part of token.split(/[^A-Za-z0-9_-]+/)) {
        // Every alignment: a part may hide its payload after a prefix of any length.
        for (let skip = 0; skip < 4; skip += 1) {
          const decoded = Buffer.from(part.slice(skip), 'base64url');
          for (const accountId of [campaignOwner, publisherOwner]) {
            for (const encoding of accountIdEncodings(accountId)) {
              expect(decoded.includes(encoding), `${purpose} token part ${part} shows ${accountId}`).to.equal(false);
            }
          }
        }
      }
      expect(token.includes(campaignOwner) || token.includes(publisherOwner)).to.equal(false);
    }
  });

  it('keeps large account ids (above 2^53) exact', () => {
    const original = claims({ campaignOwnerAccountId: '18446744073709551615', publisherOwnerAccountId: '9007199254740993' });
    expect(readToken(ONLY, 'click', issueToken(SECRET, 'click', original))).to.deep.equal(original);
  });

  it('drops the milliseconds of the issue time (whole seconds are signed)', () => {
    const original = claims({ issuedAt: new Date('2026-05-01T12:00:00.999Z') });
    expect(readToken(ONLY, 'delivery', issueToken(SECRET, 'delivery', original))?.issuedAt.toISOString()).to.equal('2026-05-01T12:00:00.000Z');
  });

  it('does not accept a delivery token as a click token, nor a click token as a delivery token', () => {
    const original = claims();
    expect(readToken(ONLY, 'click', issueToken(SECRET, 'delivery', original))).to.equal(null);
    expect(readToken(ONLY, 'delivery', issueToken(SECRET, 'click', original))).to.equal(null);
  });

  it('refuses a token signed with another secret', () => {
    expect(readToken(ONLY, 'delivery', issueToken('another-secret', 'delivery', claims()))).to.equal(null);
  });

  it('refuses a token whose payload or signature was changed in any character', () => {
    const token = issueToken(SECRET, 'delivery', claims());
    for (let index = 0; index < token.length; index += 1) {
      if (token[index] === '.') continue;
      expect(readToken(ONLY, 'delivery', tamper(token, index)), `changed at ${index}`).to.equal(null);
    }
  });

  it('seals the same claims into a different token every time (random nonce)', () => {
    const original = claims();
    expect(issueToken(SECRET, 'click', original)).not.to.equal(issueToken(SECRET, 'click', original));
  });

  it('gives every token a nonce of its own across many refills of the random pool, and each still opens', () => {
    const original = claims();
    const purposeOf = (index: number): TokenPurpose => (index % 2 === 0 ? 'click' : 'delivery');
    const tokens = Array.from({ length: 2_000 }, (_, index) => issueToken(SECRET, purposeOf(index), original));
    // The nonce follows the version byte and the 3 bytes of the key id.
    const nonces = new Set(tokens.map((token) => Buffer.from(token, 'base64url').subarray(4, 16).toString('hex')));
    expect(nonces.size).to.equal(tokens.length);
    tokens.forEach((token, index) => expect(readToken(ONLY, purposeOf(index), token)).to.deep.equal(original));
  });

  describe('a rotation of TOKEN_SECRET', () => {
    const OLD = 'old-token-secret-0123456789abcdef-old';
    const NEW = 'new-token-secret-0123456789abcdef-new';

    it('names the key in the token: the same secret always the same id, another secret another', () => {
      const keyIdOf = (token: string) => Buffer.from(token, 'base64url').subarray(1, 4).toString('hex');
      expect(keyIdOf(issueToken(OLD, 'click', claims()))).to.equal(keyIdOf(issueToken(OLD, 'delivery', claims())));
      expect(keyIdOf(issueToken(OLD, 'click', claims()))).not.to.equal(keyIdOf(issueToken(NEW, 'click', claims())));
    });

    it('opens a token of the previous secret while it is accepted, and a token of the current one', () => {
      const original = claims();
      const rotating = { current: NEW, previous: OLD };
      expect(readToken(rotating, 'click', issueToken(OLD, 'click', original))).to.deep.equal(original);
      expect(readToken(rotating, 'click', issueToken(NEW, 'click', original))).to.deep.equal(original);
      expect(readToken(rotating, 'delivery', issueToken(OLD, 'click', original)), 'still for its purpose only').to.equal(null);
    });

    it('refuses a token of the previous secret once it is no longer accepted, and of any other secret', () => {
      expect(readToken({ current: NEW, previous: null }, 'click', issueToken(OLD, 'click', claims()))).to.equal(null);
      expect(readToken({ current: NEW, previous: OLD }, 'click', issueToken('a-third-secret-0123456789abcdef', 'click', claims()))).to.equal(null);
    });

    it('reads no token of an earlier format: the service was never deployed with one', () => {
      const token = unkeyedToken(OLD, 'delivery', claims());
      expect(token).to.have.length(100);
      expect(isWellFormedToken(token)).to.equal(false);
      expect(readToken({ current: NEW, previous: OLD }, 'delivery', token)).to.equal(null);
      expect(readToken({ current: OLD, previous: null }, 'delivery', token)).to.equal(null);
    });
  });

  it('refuses malformed candidates without throwing', () => {
    const token = issueToken(SECRET, 'click', claims());
    for (const candidate of ['', 'abc', token.slice(1), `${token}A`, `${token.slice(0, 50)}.${token.slice(51)}`, `${token.slice(0, 103)}=`, ' '.repeat(104)]) {
      expect(isWellFormedToken(candidate), candidate).to.equal(false);
      expect(readToken(ONLY, 'click', candidate), candidate).to.equal(null);
    }
    expect(isWellFormedToken(undefined)).to.equal(false);
    expect(isWellFormedToken(100)).to.equal(false);
    expect(readToken(ONLY, 'click', null as unknown as string)).to.equal(null);
  });

  it(`expires exactly after ${TOKEN_LIFETIME_SECONDS} s, by the given clock`, () => {
    const read = readToken(ONLY, 'delivery', issueToken(SECRET, 'delivery', claims())) as AllocationClaims;
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
    expect(body.length).to.equal(116);
  });

  it('makes a fresh allocation id every time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newAllocationId()));
    expect(ids.size).to.equal(100);
  });
});
