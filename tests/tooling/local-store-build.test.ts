/**
 * The local store's install step (scripts/lib/ensure-tools.sh, ensure_ferretdb), run as a fresh machine
 * runs it: on a copy of the repository's scripts with an empty `.tools/`. It builds FerretDB from its
 * pinned module with the patches in scripts/ferretdb/, the binary starts and answers `ping`, and a find by
 * `_id` (a string or an integer, or a list of them by `$in`, alone or beside other conditions, as an update
 * guarded by its version has them) is served by the `_id` index, and a bulk
 * update of many statements answers and keeps MongoDB's order. Finds on a declared index (equalities, ranges
 * on the sort key, the keyset `$or`, sorts ending in `_id`) are served by it and return exactly what a
 * collection without indexes returns; a value the index cannot order (an array, an object) turns it off.
 * A regex on a top-level field (a search) is tested by SQLite with the handler's own matching, so finds,
 * counts, updates and deletes with regexes give what the handler alone gives, and a search page decodes
 * only its matches.
 * A find with an exclusion projection returns what the same find without it returns, less those fields.
 * A broken binary left in `.tools/` is built again, never used; without Go the step stops at once and
 * names MONGO_URL.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { connectMongo, pingMongo, type Connection } from '@pilot/storage';
import { reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { BSON, Double, Int32, Long, ObjectId, type Collection, type Document, type Sort } from 'mongodb';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '..', '..');

/** A seeded generator, so a failing find can be replayed. */
function seeded(seed: number): <T>(choices: readonly T[]) => T {
  let state = seed;
  return (choices) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return choices[Math.floor((state / 2 ** 31) * choices.length)]!;
  };
}

/** The values of the indexed fields: every type the typed keys order, each number type, null (and missing). */
const SCALARS: readonly unknown[] = [
  '', 'a', 'ab', 'b', 'B', 'é', new Int32(1), new Int32(-2), Long.fromNumber(1), Long.fromString('9007199254740993'),
  new Double(1), new Double(1.5), new Double(-0), new Double(1e300), new Date(0), new Date(1_700_000_000_000),
  new Date(1_700_000_000_001), new Date(-5000), new ObjectId('aaaaaaaaaaaaaaaaaaaaaaaa'), new ObjectId('aaaaaaaaaaaaaaaaaaaa1111'),
  new ObjectId('00000000000000000000ffff'), true, false, null,
];

/** The values of the searched fields: texts that case folding treats apart, and what a regex never matches as a string. */
const TEXTS: readonly unknown[] = [
  'spring sale', 'Spring Sale', 'SPRING SALE!', 'ſpring ſale', 'a spring sale', 'sprint', 'K', 'k', '\u212a', 'line\nspring', 'é', 'É', '',
  'a\u0000spring sale', 'back\\slash "quoted"', ['x', 'spring sale'], ['k'], [1, 2], [], 5, new Int32(3), new Double(2.5), null, /spring/i,
  { o: 'spring sale' }, undefined,
];

/** The regexes searched for: plain, case-insensitive, anchored, multi-line, with `$options`, non-ASCII. */
const REGEXES: readonly unknown[] = [
  /spring sale/i, /spring/, /^spring/, /sale$/i, /^k$/i, new RegExp('\u212a', 'i'), new RegExp('\u212a'), /^ſ/i, /^s/i, /é/i, /^$/, /./s,
  /^spring$/m, /"quoted"/, /\\/, { $regex: 'SPRING', $options: 'i' }, { $regex: /sale/, $options: 'm' }, { $regex: 'a' }, /^a/, /b/i,
];

/** The same filter, evaluated by the handler alone: no part of a `$nor` is pushed down to SQLite. */
function handlerOnly(filter: Document): Document {
  return { $nor: [{ $nor: [filter] }] };
}

/** A document whose `_id` and fields may be of any type. */
interface Mixed {
  _id: unknown;
  [field: string]: unknown;
}

/** A find's documents and order, with every value's BSON type. */
async function found(collection: Collection<Mixed>, filter: Document, sort: Sort | undefined, skip: number, limit: number, projection?: Document): Promise<string> {
  let cursor = collection.find(filter, projection ? { projection } : {});
  if (sort) cursor = cursor.sort(sort);
  if (skip) cursor = cursor.skip(skip);
  if (limit) cursor = cursor.limit(limit);
  return BSON.EJSON.stringify(await cursor.toArray(), { relaxed: false });
}

/** Runs ensure_ferretdb from the copy at `root`; its output and the binary it settled on. */
async function ensureFerretdb(root: string, env: NodeJS.ProcessEnv = process.env): Promise<{ binary: string; stderr: string }> {
  const script = `source "${root}/scripts/lib/ensure-tools.sh"; ensure_ferretdb; echo "$FERRETDB_BIN"`;
  const { stdout, stderr } = await run('bash', ['-c', script], { env: { ...env, MONGO_URL: '' }, timeout: 15 * 60_000 });
  return { binary: stdout.trim(), stderr };
}

describe('the local store built by the install step', function () {
  this.timeout(20 * 60_000);
  let copy: string;
  let server: ChildProcess | undefined;
  let connection: Connection | undefined;

  before(async () => {
    copy = await mkdtemp(path.join(tmpdir(), 'pilot-store-build-'));
    await cp(path.join(repoRoot, 'scripts'), path.join(copy, 'scripts'), { recursive: true });
  });

  async function stopServer(): Promise<void> {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }

  after(async () => {
    await connection?.close();
    await stopServer();
    await rm(copy, { recursive: true, force: true });
  });

  it('builds FerretDB into an empty .tools/, and the binary starts and answers ping', async () => {
    const { binary } = await ensureFerretdb(copy);
    expect(path.dirname(binary)).to.equal(path.join(copy, '.tools'));
    expect(path.basename(binary)).to.match(/^ferretdb-v1\.24\.2-[0-9a-f]{12}$/);
    const port = await reservedPort();
    await mkdir(path.join(copy, 'data'));
    server = spawn(binary, ['--handler=sqlite', `--sqlite-url=file:${copy}/data/`, `--state-dir=${copy}/data`, `--listen-addr=127.0.0.1:${port}`, '--telemetry=disable', '--debug-addr=127.0.0.1:0'], {
      stdio: 'ignore',
    });
    connection = await waitFor(() => connectMongo({ url: `mongodb://127.0.0.1:${port}/`, dbName: 'build_check' }).catch(() => null), { timeoutMs: 30_000 });
    await pingMongo(connection);
  });

  it('gives every document back as it was stored: each type, texts with escapes, nested documents and arrays', async () => {
    const stored = connection!.db!.collection<Mixed>('round_trip');
    // -0 is left out: the local store gives it back as 0, as shipped (nothing here stores one).
    const values = [...SCALARS.filter((value) => !(value instanceof Double && Object.is(value.value, -0))), ...TEXTS.filter((text) => text !== undefined), Long.fromString('-9223372036854775808'), new Double(5e-324), new Double(-1.5e300), 'tab\there "q" \u2028 ☃ 𝄞'];
    // The local store keeps no array inside an array: an array value is listed only as a document's field.
    const listed = (value: unknown) => (Array.isArray(value) ? { value } : value);
    const documents: Mixed[] = values.map((value, n) => ({ _id: n, value, nested: { value, list: [listed(value), { value }] }, list: [listed(value), 2, { inner: { value } }] }));
    await stored.insertMany(documents.map((document) => ({ ...document })));
    const back = await stored.find({}, { promoteValues: false, promoteLongs: false }).sort({ _id: 1 }).toArray();
    expect(back).to.have.length(documents.length);
    documents.forEach((document, n) => expect(BSON.EJSON.stringify(back[n], { relaxed: false })).to.equal(BSON.EJSON.stringify(document, { relaxed: false })));
  });

  it('serves a find by a string or an integer _id from the _id index, not a scan', async () => {
    const db = connection!.db!;
    const records = db.collection<{ _id: string | number; n: number }>('records');
    await records.insertMany(Array.from({ length: 20 }, (_, n) => ({ _id: n % 2 === 0 ? n + 1 : `k${n}`, n })));
    for (const id of [7, 'k3']) {
      const plan = JSON.stringify(await db.command({ explain: { find: 'records', filter: { _id: id } } }));
      expect(plan, `plan for _id ${JSON.stringify(id)}`).to.match(/USING INDEX/);
      expect(plan).to.match(/"filterPushdown":true/);
      expect(await records.findOne({ _id: id })).to.include({ _id: id });
    }
    const other = JSON.stringify(await db.command({ explain: { find: 'records', filter: { n: 4 } } }));
    expect(other, 'a filter on another field scans (the limit the project lives with)').to.match(/SCAN/);
  });

  it('serves a find by _id $in from the _id index, with exactly the documents named', async () => {
    const db = connection!.db!;
    const records = db.collection<{ _id: string | number; n: number }>('records');
    const named = [3, 'k5', 'k404', 9, 1000];
    const plan = JSON.stringify(await db.command({ explain: { find: 'records', filter: { _id: { $in: named } } } }));
    expect(plan).to.match(/USING INDEX/);
    expect(plan).to.match(/"filterPushdown":true/);
    const found = await records.find({ _id: { $in: named } }).toArray();
    expect(found.map((record) => record._id).sort()).to.deep.equal([3, 9, 'k5']);
    const withRegex = await records.find({ _id: { $in: [/^k1/, 5] } }).toArray();
    expect(withRegex.map((record) => record._id).sort(), 'a value the index cannot answer: filtered as before').to.deep.equal([5, 'k1', 'k11', 'k13', 'k15', 'k17', 'k19']);
  });

  it('serves a filter of an _id and other conditions (an update guarded by its version) from the _id index, matching what the handler alone matches', async () => {
    const db = connection!.db!;
    const guarded = db.collection<{ _id: string | number; version: number; tag?: string }>('guarded');
    await guarded.insertMany(Array.from({ length: 3_000 }, (_, n) => ({ _id: n % 2 === 0 ? n : `g${n}`, version: n % 3, tag: 'x'.repeat(200) })));
    for (const filter of [{ _id: 2_998, version: 1 }, { version: 1, _id: 'g2999' }, { _id: { $in: [2_994, 'g2995', 2_996] }, version: { $gte: 1 } }]) {
      const plan = JSON.stringify(await db.command({ explain: { find: 'guarded', filter } }));
      expect(plan, `plan for ${JSON.stringify(filter)}`).to.match(/USING INDEX/);
      expect(plan).to.match(/"filterPushdown":true/);
    }
    const filters = [
      { _id: 2_998, version: 1 },
      { _id: 2_998, version: 2 },
      { _id: 'g2999', version: { $in: [0, 1] } },
      { _id: 'g2999', version: 2, tag: { $exists: true } },
      { _id: { $in: [2_994, 'g2995', 2_996, 'absent'] }, version: { $gte: 1 } },
      { _id: 7, version: 1 },
      { _id: { $gt: 2_990 }, version: 0 },
    ];
    for (const filter of filters) {
      expect(await found(db.collection('guarded'), filter, { _id: 1 }, 0, 0), JSON.stringify(filter)).to.equal(await found(db.collection('guarded'), handlerOnly(filter), { _id: 1 }, 0, 0));
    }
    // The update guarded by its version: one winner from a version, none from a stale one.
    expect((await guarded.updateOne({ _id: 2_998, version: 1 }, { $set: { version: 2 } })).modifiedCount).to.equal(1);
    expect((await guarded.updateOne({ _id: 2_998, version: 1 }, { $set: { version: 2 } })).modifiedCount, 'from a stale version').to.equal(0);
    expect((await guarded.deleteOne({ _id: 'g2999', version: 0 })).deletedCount, 'a delete guarded by a version it does not hold').to.equal(0);
    expect((await guarded.deleteOne({ _id: 'g2999', version: 2 })).deletedCount).to.equal(1);
    expect(await guarded.countDocuments({ _id: { $in: [2_998, 'g2999'] }, version: 2 })).to.equal(1);
  });

  it('writes a bulk update of many statements, in order, as MongoDB does', async () => {
    const db = connection!.db!;
    const counters = db.collection<{ _id: string; value: number }>('counters');
    await counters.insertMany(Array.from({ length: 250 }, (_, n) => ({ _id: `c${n}`, value: 0 })));
    // Before the patches a bulk write of about 100 statements or more never answered.
    const replaced = await counters.bulkWrite(Array.from({ length: 250 }, (_, n) => ({ replaceOne: { filter: { _id: `c${n}` }, replacement: { value: n + 1 } } })), { ordered: true });
    expect(replaced.matchedCount).to.equal(250);
    expect(replaced.modifiedCount).to.equal(250);
    expect((await counters.find({}).toArray()).every((counter) => counter.value === Number(counter._id.slice(1)) + 1)).to.equal(true);

    const repeated = await counters.bulkWrite(
      [{ updateOne: { filter: { _id: 'c1' }, update: { $inc: { value: 10 } } } }, { updateOne: { filter: { _id: 'c1' }, update: { $inc: { value: 10 } } } }],
      { ordered: true },
    );
    expect(repeated.modifiedCount).to.equal(2);
    expect(await counters.findOne({ _id: 'c1' }), 'a statement sees the change of one before it').to.deep.equal({ _id: 'c1', value: 22 });

    const failing = counters.bulkWrite(
      [
        { replaceOne: { filter: { _id: 'c2' }, replacement: { value: -2 } } },
        { updateOne: { filter: { _id: 'c3' }, update: { $set: { _id: 'moved' } } } },
        { replaceOne: { filter: { _id: 'c4' }, replacement: { value: -4 } } },
      ],
      { ordered: true },
    );
    await failing.then(
      () => expect.fail('changing _id is refused'),
      (error: Error) => expect(error.message).to.match(/immutable field '_id'/),
    );
    expect(await counters.findOne({ _id: 'c2' }), 'written: before the failing statement').to.deep.equal({ _id: 'c2', value: -2 });
    expect(await counters.findOne({ _id: 'c4' }), 'not written: after it').to.deep.equal({ _id: 'c4', value: 5 });
  });

  it('keeps its statements prepared across changes of the schema: the same commands stay right after indexes and collections come and go', async () => {
    const db = connection!.db!;
    const name = 'kept_statements';
    const expectRoundTrip = async (round: number): Promise<void> => {
      const records = db.collection<{ _id: number; n: number; tag?: string }>(name);
      for (let id = 1; id <= 5; id++) await records.insertOne({ _id: id, n: round * 10 + id });
      await records.replaceOne({ _id: 3 }, { n: -round, tag: `r${round}` });
      await records.updateOne({ _id: 4 }, { $set: { tag: 'set' } });
      await records.deleteOne({ _id: 5 });
      expect(await records.find({}).sort({ _id: 1 }).toArray(), `round ${round}`).to.deep.equal([
        { _id: 1, n: round * 10 + 1 },
        { _id: 2, n: round * 10 + 2 },
        { _id: 3, n: -round, tag: `r${round}` },
        { _id: 4, n: round * 10 + 4, tag: 'set' },
      ]);
      expect(await records.findOne({ _id: 2 })).to.deep.equal({ _id: 2, n: round * 10 + 2 });
    };
    await expectRoundTrip(1);
    await db.collection(name).createIndex({ tag: 1, _id: 1 });
    await db.collection(name).deleteMany({});
    await expectRoundTrip(2);
    expect(await db.collection(name).countDocuments({ tag: 'set' }), 'the new index is maintained by the same writes').to.equal(1);
    await db.collection(name).dropIndex('tag_1__id_1');
    await db.collection(name).drop();
    await expectRoundTrip(3);
    await db.collection(name).drop();
    const remade = db.collection<{ _id: number; n: number }>(name);
    await remade.insertOne({ _id: 9, n: 9 });
    expect(await remade.find({}).toArray(), 'a collection dropped and made again under its name').to.deep.equal([{ _id: 9, n: 9 }]);
  });

  const pick = seeded(11);
  const pickText = seeded(29);
  let indexed: Collection<Mixed>;
  let plain: Collection<Mixed>;
  let ids: unknown[];

  /** The same seeded documents in a collection with typed indexes and in one without any. */
  async function storeTyped(): Promise<void> {
    const db = connection!.db!;
    indexed = db.collection<Mixed>('typed_indexed');
    plain = db.collection<Mixed>('typed_plain');
    await indexed.createIndex({ a: 1, b: -1, _id: -1 });
    await indexed.createIndex({ b: 1, _id: 1 });
    await indexed.createIndex({ a: 1, c: 1, b: -1, _id: -1 });
    const docs = Array.from({ length: 300 }, (_, n) => {
      const doc: Mixed = { _id: pick<unknown>([n, `s${n}`, new ObjectId(), new Double(n + 0.5), Long.fromNumber(n * 1000)]) };
      for (const field of ['a', 'b', 'c']) {
        const value = pick([...SCALARS, undefined]);
        if (value !== undefined) doc[field] = value;
      }
      for (const field of ['name', 'title']) {
        const text = pickText(TEXTS);
        if (text !== undefined) doc[field] = text;
      }
      return doc;
    });
    ids = docs.map((doc) => doc._id);
    await indexed.insertMany(docs.map((doc) => ({ ...doc })));
    await plain.insertMany(docs.map((doc) => ({ ...doc })));
  }

  function randomFind(): { filter: Document; sort: Sort | undefined; skip: number; limit: number; projection: Document | undefined } {
    const value = pick(SCALARS.filter((v) => v !== null));
    const other = pick(SCALARS.filter((v) => v !== null));
    const id = pick(ids);
    const keyset = { $or: [{ b: { $lt: other } }, { b: other, _id: { $lt: id } }] };
    const filter = pick<Document>([
      {}, { a: value }, { a: value, b: other }, { a: { $lt: value } }, { b: { $gte: value } }, { b: { $gt: value, $lte: other } },
      { a: value, b: { $lt: other } }, { $and: [{ a: value }, keyset] }, { $and: [{}, { $or: [{ b: { $lt: other } }, { b: other }] }] },
      { $or: [{ b: value }, { b: other }] }, { a: value, c: other }, { a: { $eq: value }, b: { $ne: other } },
      { $and: [{ a: value, c: { $in: [other, value] } }, keyset] }, { $and: [{ $or: [{ c: /^a/ }, { c: value }] }, keyset] },
      { a: null }, { a: { $eq: null }, c: value }, { a: null, b: { $lt: other } }, { a: { $in: [value, other] } },
      { a: { $in: [value, other] }, b: { $gte: value } }, { a: value, c: { $in: [value, other, null] } }, { a: { $in: [] } },
      { $and: [{ a: null, c: { $in: [other] } }, keyset] }, { $or: [{ b: null }, { b: value }] }, { a: { $in: [value] }, c: null, b: { $lte: other } },
    ]);
    const sort = pick<Sort | undefined>([undefined, { _id: 1 }, { _id: -1 }, { b: -1, _id: -1 }, { b: 1, _id: 1 }, { b: 1, _id: -1 }, { a: 1 }, { b: -1 }, { c: 1, b: -1, _id: -1 }]);
    return { filter, sort, skip: pick([0, 0, 3]), limit: pick([0, 0, 5, 20]), projection: pick([undefined, { a: 1 }, { c: 0 }]) };
  }

  async function expectSameFinds(count: number): Promise<void> {
    for (let n = 0; n < count; n++) {
      const { filter, sort, skip, limit, projection } = randomFind();
      const what = BSON.EJSON.stringify({ filter, sort, skip, limit, projection });
      expect(await found(indexed, filter, sort, skip, limit, projection), what).to.equal(await found(plain, filter, sort, skip, limit, projection));
      expect(await indexed.countDocuments(filter), `count ${what}`).to.equal(await plain.countDocuments(filter));
    }
  }

  it('serves finds on declared indexes with what a collection without indexes returns: the same documents in the same order', async () => {
    await storeTyped();
    await expectSameFinds(150);
  });

  it('returns a find with an exclusion projection as the same find without it, less the excluded fields', async () => {
    const projected = connection!.db!.collection<Mixed>('projected');
    await projected.insertMany(
      Array.from({ length: 200 }, (_, n) => {
        const doc: Mixed = { _id: n };
        for (const field of ['a', 'b', 'c']) {
          const value = pick([...SCALARS, undefined]);
          if (value !== undefined) doc[field] = value;
        }
        const big = pick<unknown>([undefined, null, 'text', { x: pick(SCALARS), y: { z: [1, 'two', { w: n }] } }, [{ x: n }, { x: 'é' }]]);
        if (big !== undefined) doc.big = big;
        if (n % 3 !== 0) doc.list = [{ k: n % 5 }, { k: 'ſ' }, null];
        return doc;
      }),
    );
    /** What an exclusion projection leaves of a document: top-level fields, and `big.y` inside an object. */
    const projectedOf = (doc: Mixed, projection: Document) =>
      Object.fromEntries(
        Object.entries(doc)
          .filter(([field]) => !(field in projection && !Number(projection[field])))
          .map(([field, value]) =>
            field === 'big' && 'big.y' in projection && value !== null && typeof value === 'object' && !Array.isArray(value)
              ? [field, Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'y'))]
              : [field, value],
          ),
      );
    for (let n = 0; n < 120; n++) {
      const { filter: base, sort, skip, limit } = randomFind();
      const value = pick(SCALARS.filter((v) => v !== null));
      const filter = pick<Document>([base, base, { ...base, 'big.x': value }, { $and: [base, { list: { $elemMatch: { k: { $lt: 3 } } } }] }, { big: { $exists: true } }, { $or: [{ big: null }, base] }]);
      const projection = pick<Document>([{ big: 0 }, { big: 0, list: 0 }, { c: 0, big: 0 }, { _id: 0, big: 0 }, { big: false, list: new Int32(0) }, { 'big.y': 0 }, { list: 0, a: 0, b: 0 }]);
      const what = BSON.EJSON.stringify({ filter, sort, skip, limit, projection });
      const whole = BSON.EJSON.parse(await found(projected, filter, sort, skip, limit), { relaxed: false }) as Mixed[];
      const expected = BSON.EJSON.stringify(
        whole.map((doc) => projectedOf(doc, projection)),
        { relaxed: false },
      );
      expect(await found(projected, filter, sort, skip, limit, projection), what).to.equal(expected);
    }
  });

  it('updates and deletes on declared indexes the same documents as without indexes', async () => {
    for (let n = 0; n < 20; n++) {
      const { filter } = randomFind();
      const updated = [await indexed.updateOne(filter, { $set: { u: n } }), await plain.updateOne(filter, { $set: { u: n } })];
      expect(updated[0]!.modifiedCount).to.equal(updated[1]!.modifiedCount);
      const deleted = [await indexed.deleteOne({ ...filter, u: { $ne: n } }), await plain.deleteOne({ ...filter, u: { $ne: n } })];
      expect(deleted[0]!.deletedCount).to.equal(deleted[1]!.deletedCount);
    }
    expect(await found(indexed, {}, undefined, 0, 0)).to.equal(await found(plain, {}, undefined, 0, 0));
  });

  function randomSearch(): { filter: Document; sort: Sort | undefined; skip: number; limit: number } {
    const regex = pickText(REGEXES);
    const other = pickText(REGEXES);
    const literal = pickText(REGEXES.filter((r) => r instanceof RegExp));
    const value = pickText(SCALARS.filter((v) => v !== null));
    const id = pickText(ids);
    const search = { $or: [{ name: regex }, { title: regex }] };
    const keyset = { $or: [{ b: { $lt: value } }, { b: value, _id: { $lt: id } }] };
    const filter = pickText<Document>([
      { name: regex }, search, { name: regex, title: other }, { $and: [{ name: regex }, { title: other }] }, { a: value, ...search },
      { $and: [search, keyset] }, { $and: [{ a: value }, search, keyset] }, { c: regex }, { a: regex, b: other }, { _id: regex },
      { $or: [{ name: regex }, { a: value }] }, { $or: [{ $and: [{ name: regex }, { title: other }] }, { c: regex }] }, { name: { $not: literal } },
      { name: { $in: [literal, 'k'] } }, { $or: [search, { $or: [{ a: regex }, { b: other }] }] }, { name: regex, b: { $gte: value } },
    ]);
    const sort = pickText<Sort | undefined>([undefined, { _id: 1 }, { _id: -1 }, { b: -1, _id: -1 }, { b: 1, _id: 1 }, { name: 1 }, { a: 1, b: -1, _id: -1 }]);
    return { filter, sort, skip: pickText([0, 0, 2]), limit: pickText([0, 0, 5, 51]) };
  }

  it('tests regexes in SQLite as the handler does: finds and counts give what the handler alone gives', async () => {
    for (let n = 0; n < 200; n++) {
      const { filter, sort, skip, limit } = randomSearch();
      const what = BSON.EJSON.stringify({ filter, sort, skip, limit });
      const expected = await found(plain, handlerOnly(filter), sort, skip, limit);
      expect(await found(indexed, filter, sort, skip, limit), what).to.equal(expected);
      expect(await found(plain, filter, sort, skip, limit), `without indexes ${what}`).to.equal(expected);
      const count = await plain.countDocuments(handlerOnly(filter));
      expect(await indexed.countDocuments(filter), `count ${what}`).to.equal(count);
      expect(await plain.countDocuments(filter), `count without indexes ${what}`).to.equal(count);
    }
  });

  it('updates and deletes with regexes the same documents as the handler alone', async () => {
    for (let n = 0; n < 30; n++) {
      const { filter } = randomSearch();
      const what = BSON.EJSON.stringify(filter);
      const updated = [await indexed.updateMany(filter, { $set: { r: n } }), await plain.updateMany(handlerOnly(filter), { $set: { r: n } })];
      expect(updated[0]!.modifiedCount, what).to.equal(updated[1]!.modifiedCount);
      const one = [await indexed.updateOne(filter, { $set: { r: n + 100 } }), await plain.updateOne(handlerOnly(filter), { $set: { r: n + 100 } })];
      expect(one[0]!.modifiedCount, what).to.equal(one[1]!.modifiedCount);
      const deleted = [await indexed.deleteOne({ ...filter, r: { $ne: n } }), await plain.deleteOne(handlerOnly({ ...filter, r: { $ne: n } }))];
      expect(deleted[0]!.deletedCount, what).to.equal(deleted[1]!.deletedCount);
      expect(await found(indexed, {}, undefined, 0, 0), `after ${what}`).to.equal(await found(plain, {}, undefined, 0, 0));
    }
    const many = [await indexed.deleteMany({ title: /^spring/i }), await plain.deleteMany(handlerOnly({ title: /^spring/i }))];
    expect(many[0]!.deletedCount).to.equal(many[1]!.deletedCount);
    expect(await found(indexed, {}, undefined, 0, 0)).to.equal(await found(plain, {}, undefined, 0, 0));
  });

  it('leaves to the handler the regexes it refuses, so they fail as before', async () => {
    for (const filter of [{ name: { $regex: 'a', $options: 'x' } }, { name: { $regex: /a/i, $options: 'm' } }, { name: { $regex: '(' } }, { name: { $regex: 'a', $options: 'q' } }]) {
      const failure = await indexed.find(filter).toArray().then(
        () => null,
        (error: Error) => error.message,
      );
      expect(failure, JSON.stringify(filter)).to.be.a('string');
      expect(failure).to.equal(await plain.find(handlerOnly(filter)).toArray().then(() => null, (error: Error) => error.message));
    }
  });

  it('reads only the matches of a search page: one in seven matching costs about what all matching costs', async () => {
    const db = connection!.db!;
    const campaigns = db.collection<{ _id: number; name: string; title: string; createdAt: Date }>('search_cost');
    await campaigns.createIndex({ createdAt: -1, _id: -1 });
    await campaigns.insertMany(
      Array.from({ length: 10_000 }, (_, n) => ({
        _id: n + 1,
        name: n % 7 === 0 ? `Spring Sale campaign ${n}` : `Campaign ${n} for the autumn`,
        title: `Title ${n} ${'lorem ipsum '.repeat(20)}`,
        createdAt: new Date(1_700_000_000_000 + Math.floor(n / 3) * 1000),
      })),
    );
    const page = (pattern: RegExp): Document => ({ $or: [{ name: pattern }, { title: pattern }] });
    const sort: Sort = { createdAt: -1, _id: -1 };
    for (const pattern of [/spring sale/i, /campaign/i]) {
      const plan = (await db.command({ explain: { find: 'search_cost', filter: page(pattern), sort, limit: 51 } })) as Document;
      expect(JSON.stringify(plan.queryPlanner)).to.match(/SCAN search_cost_\w+ USING INDEX/);
      expect(plan.filterPushdown, 'the regex is tested by SQLite').to.equal(true);
      expect(plan.sortPushdown).to.equal(true);
    }
    const median = async (filter: Document): Promise<number> => {
      const times: number[] = [];
      for (let n = 0; n < 15; n++) {
        const started = process.hrtime.bigint();
        const docs = await campaigns.find(filter).sort(sort).limit(51).toArray();
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        expect(docs).to.have.length(51);
      }
      return times.sort((x, y) => x - y)[7]!;
    }
    const oneInSeven = await median(page(/spring sale/i));
    const all = await median(page(/campaign/i));
    const byTheHandler = await median(handlerOnly(page(/spring sale/i)));
    console.log(
      `      a search page of 51 among 10,000 (median of 15): 1 in 7 matching ${oneInSeven.toFixed(1)} ms, all matching ` +
        `${all.toFixed(1)} ms; 1 in 7 with the regex left to the handler ${byTheHandler.toFixed(1)} ms`,
    );
  });

  it('serves a list page (equality, keyset, sort, limit) from a declared index, in its order, without sorting', async () => {
    const db = connection!.db!;
    const keyset = { $or: [{ b: { $lt: 'b' } }, { b: 'b', _id: { $lt: 'z' } }] };
    const pages: Array<[Document, Sort]> = [
      [{ a: 'a' }, { b: -1, _id: -1 }],
      [{ $and: [{ a: 'a', $or: [{ c: /x/ }, { c: 'ab' }] }, keyset] }, { b: -1, _id: -1 }],
      [{ $and: [{}, keyset] }, { b: 1, _id: 1 }],
      [{}, { b: -1, _id: -1 }],
    ];
    for (const [filter, sort] of pages) {
      const plan = (await db.command({ explain: { find: 'typed_indexed', filter, sort, limit: 50 } })) as Document;
      const steps = JSON.stringify(plan.queryPlanner);
      expect(steps, JSON.stringify(filter)).to.match(/(SEARCH|SCAN) typed_indexed_\w+ USING INDEX/);
      expect(steps, 'the index gives the order').to.not.match(/TEMP B-TREE/);
      expect(plan.sortPushdown, 'sort applied by the store').to.equal(true);
    }
  });

  it('serves a key fixed by equalities, nulls and $in with the range after it from one declared index', async () => {
    const db = connection!.db!;
    // Every index field but the range's is fixed: an $in of one rank, and null (null or missing) on another.
    for (const filter of [{ a: { $in: ['a', 'b'] }, c: null, b: { $lt: 'b' } }, { a: null, c: { $in: [new Int32(1), new Double(1.5)] }, b: { $gte: 'a' } }]) {
      const plan = (await db.command({ explain: { find: 'typed_indexed', filter } })) as Document;
      const steps = JSON.stringify(plan.queryPlanner);
      expect(steps, JSON.stringify(filter)).to.match(/SEARCH typed_indexed_\w+ USING INDEX typed_indexed_\w+_a_1_c_1_b_-1__id_-1 \((<expr>=\? AND ){5}<expr>[<>]/);
    }
    // A longer $in than the store gives SQLite is left to the handler, with the same answer.
    const many = { a: { $in: [...Array.from({ length: 2_000 }, (_, n) => `v${n}`), 'a', 'b'] } };
    expect(await found(indexed, many, { _id: 1 }, 0, 0)).to.equal(await found(plain, many, { _id: 1 }, 0, 0));
  });

  it('stops using a declared index while its field holds a value it cannot order (an array, an object), with results still right', async () => {
    const db = connection!.db!;
    for (const odd of [['a', 'b'], { o: 1 }]) {
      await indexed.insertOne({ _id: 'odd', a: 'a', b: odd });
      await plain.insertOne({ _id: 'odd', a: 'a', b: odd });
      const plan = (await db.command({ explain: { find: 'typed_indexed', filter: { a: 'a' }, sort: { b: -1, _id: -1 }, limit: 50 } })) as Document;
      expect(JSON.stringify(plan.queryPlanner)).to.match(/SCAN typed_indexed_\w+"/);
      expect(plan.sortPushdown).to.equal(false);
      expect(await found(indexed, { a: 'a' }, { b: -1, _id: -1 }, 0, 0)).to.contain('"_id":"odd"');
      await expectSameFinds(30);
      await indexed.deleteOne({ _id: 'odd' } as Document);
      await plain.deleteOne({ _id: 'odd' } as Document);
    }
    const plan = (await db.command({ explain: { find: 'typed_indexed', filter: { a: 'a' }, sort: { b: -1, _id: -1 } } })) as Document;
    expect(plan.sortPushdown, 'on again once the value is gone').to.equal(true);
  });

  it('builds again, rather than trusting, a binary in .tools/ that does not start', async () => {
    const { binary } = await ensureFerretdb(copy);
    await connection?.close();
    connection = undefined;
    await stopServer();
    await writeFile(binary, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const rebuilt = await ensureFerretdb(copy);
    expect(rebuilt.binary).to.equal(binary);
    expect(rebuilt.stderr).to.contain('building FerretDB');
    const { stdout } = await run(rebuilt.binary, ['--version']);
    expect(stdout).to.contain('version: v1.24.2');
  });

  it('stops at once without Go, saying what is missing and that MONGO_URL may be set instead', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'pilot-store-nogo-'));
    try {
      await cp(path.join(repoRoot, 'scripts'), path.join(empty, 'scripts'), { recursive: true });
      const started = Date.now();
      const failure = await ensureFerretdb(empty, { ...process.env, PATH: '/usr/bin:/bin' }).then(
        () => null,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure, 'the step failed').to.not.equal(null);
      expect(failure!.code).to.equal(1);
      expect(failure!.stderr).to.contain("'go' is not on PATH");
      expect(failure!.stderr).to.contain('MONGO_URL');
      expect(Date.now() - started).to.be.below(10_000);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
