import { expect } from 'chai';
import { API_KEY_PREFIX, bearerKeyOf, generateApiKey, hashApiKey, isWellFormedApiKey, kindOfApiKey, keyKindOf, safeEqual, TEST_KEY_PREFIX } from '../../src';

describe('publisher-keys: API key format', () => {
  it('makes keys of the documented shape: pilot_pk_ + 32 base62 + 6 checksum characters', () => {
    const key = generateApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).to.equal(true);
    expect(key).to.match(/^pilot_pk_[0-9A-Za-z]{38}$/);
    expect(isWellFormedApiKey(key)).to.equal(true);
  });

  it('makes a different key every time', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey()));
    expect(keys.size).to.equal(500);
    for (const key of keys) expect(isWellFormedApiKey(key), key).to.equal(true);
  });

  it('refuses a key with one character mistyped (the checksum catches it)', () => {
    const key = generateApiKey();
    for (let index = API_KEY_PREFIX.length; index < key.length; index += 1) {
      const replacement = key[index] === 'a' ? 'b' : 'a';
      const mistyped = key.slice(0, index) + replacement + key.slice(index + 1);
      expect(isWellFormedApiKey(mistyped), mistyped).to.equal(false);
    }
  });

  it('refuses keys of another shape', () => {
    const key = generateApiKey();
    for (const candidate of ['', key.slice(0, -1), `${key}0`, key.replace('pilot_pk_', 'pilot_sk_'), key.replace(/.$/, '-'), ` ${key}`]) {
      expect(isWellFormedApiKey(candidate), candidate).to.equal(false);
    }
  });

  it('hashes a key to a stable SHA-256 hex digest', () => {
    expect(hashApiKey('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey();
    expect(hashApiKey(key)).to.equal(hashApiKey(key)).and.to.match(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.to.equal(hashApiKey(generateApiKey()));
  });

  it('compares in constant time, telling equal from different strings and lengths', () => {
    expect(safeEqual('same', 'same')).to.equal(true);
    expect(safeEqual('same', 'sane')).to.equal(false);
    expect(safeEqual('same', 'same ')).to.equal(false);
    expect(safeEqual('', '')).to.equal(true);
    expect(safeEqual('é', 'e')).to.equal(false);
  });

  it('reads the key of an Authorization: Bearer header, refusing anything else', () => {
    const key = generateApiKey();
    // The last character changed, so the checksum no longer matches (never "changed" to itself).
    const corrupted = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
    expect(bearerKeyOf(`Bearer ${key}`)).to.equal(key);
    expect(bearerKeyOf(`  Bearer ${key} `)).to.equal(key);
    for (const header of [undefined, '', key, `Basic ${key}`, `Bearer\t${key}`, `Bearer${key}`, `Bearer ${corrupted}`, `Bearer ${'a'.repeat(201)}`]) {
      expect(bearerKeyOf(header), String(header)).to.equal(null);
    }
  });

  it('takes the scheme in any case and one or more spaces before the key (RFC 9110)', () => {
    const key = generateApiKey();
    for (const header of [`bearer ${key}`, `BEARER ${key}`, `bEaReR ${key}`, `Bearer  ${key}`, `bearer   ${key}`]) {
      expect(bearerKeyOf(header), header).to.equal(key);
    }
  });

  it('makes test keys behind their own prefix, well formed and told apart from live keys', () => {
    const test = generateApiKey('test');
    expect(test).to.match(/^pilot_pk_test_[0-9A-Za-z]{38}$/);
    expect(test.startsWith(TEST_KEY_PREFIX)).to.equal(true);
    expect(kindOfApiKey(test)).to.equal('test');
    expect(keyKindOf(test)).to.equal('test');
    const live = generateApiKey();
    expect(kindOfApiKey(live)).to.equal('live');
    expect(keyKindOf(live)).to.equal('live');
    expect(bearerKeyOf(`Bearer ${test}`)).to.equal(test);
    // The checksum guards test keys too.
    expect(kindOfApiKey(test.replace(/.$/, test.endsWith('a') ? 'b' : 'a'))).to.equal(null);
    expect(kindOfApiKey(test.replace('pilot_pk_test_', 'pilot_pk_tst_'))).to.equal(null);
  });
});
