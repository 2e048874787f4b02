/**
 * The local store's install step (scripts/lib/ensure-tools.sh, ensure_ferretdb), run as a fresh machine
 * runs it: on a copy of the repository's scripts with an empty `.tools/`. It builds FerretDB from its
 * pinned module with the patches in scripts/ferretdb/, the binary starts and answers `ping`, and a find by
 * `_id` (a string or an integer, or a list of them by `$in`) is served by the `_id` index, and a bulk
 * update of many statements answers and keeps MongoDB's order. A broken binary left in `.tools/` is built
 * again, never used; without Go the step stops at once and names MONGO_URL.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { connectMongo, pingMongo, type Connection } from '@pilot/mongo';
import { reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '..', '..');

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
