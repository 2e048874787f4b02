import { expect } from 'chai';
import type { Db } from 'mongodb';
import { KeyedShards, shardIndexOf, shardName } from '../src';

describe('shards by key', () => {
  it('hashes with FNV-1a 32-bit (the published test vectors), modulo the number of shards', () => {
    // FNV-1a("a") = 0xe40c292c, FNV-1a("foobar") = 0xbf9cf968, FNV-1a("") = the offset basis 0x811c9dc5.
    expect(shardIndexOf('a', 2 ** 16)).to.equal(0x292c);
    expect(shardIndexOf('foobar', 64)).to.equal(0xbf9cf968 % 64);
    expect(shardIndexOf('', 64)).to.equal(0x811c9dc5 % 64);
  });

  it('spreads numbered keys over every shard, each to exactly one', () => {
    const counts = new Array<number>(64).fill(0);
    for (let id = 1; id <= 6400; id += 1) counts[shardIndexOf(String(id), 64)]! += 1;
    expect(Math.min(...counts)).to.be.greaterThan(50);
    expect(Math.max(...counts)).to.be.lessThan(150);
  });

  it('names shards <base>_<nn> and picks the one a key hashes to', () => {
    const named: string[] = [];
    const db = { collection: (name: string) => (named.push(name), { collectionName: name }) } as unknown as Db;
    const shards = new KeyedShards(db, 'campaigns', 64);
    expect(named).to.have.length(64);
    expect([named[0], named[9], named[63]]).to.deep.equal(['campaigns_00', 'campaigns_09', 'campaigns_63']);
    expect(shards.of('foobar').collectionName).to.equal(shardName('campaigns', 0xbf9cf968 % 64));
  });
});
