/**
 * @pilot/network-client as an outside project gets it: the site serves it at /downloads/network-client.tgz
 * with its version and checksum; its tarball holds only what runs (dist, README, LICENSE, package.json)
 * and is what `npm run tarball` makes from a staged copy, without touching the workspace's dist/ (a plain
 * `npm pack` in the folder is refused); the sources build outside the repository; the downloaded tarball
 * is installed with npm into a new project under the system's temporary directory, outside this
 * workspace; the README's quickstart is type-checked there (ES module, through the package's exports)
 * and run against the running system, and the CommonJS build is loaded with require.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
const PACKAGE_DIR = path.join(REPO, 'clients/network');

/** The first ```js block after the README's "## Quickstart" heading. */
function quickstartOf(readme: string): string {
  const section = readme.slice(readme.indexOf('## Quickstart'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('the README has no js block under ## Quickstart');
  return match[1];
}

describe('the network client, packed and installed outside the workspace', function () {
  this.timeout(300_000);
  let system: System;
  let owner: Browser;
  let campaign: Campaign;
  let key: string;
  let work: string;
  let tarball: string;
  let project: string;
  // npm as an outsider runs it: without the npm_* settings of the command that started this test run.
  const outside = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: outside, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'pilot-client-'));
    expect(path.relative(REPO, work).startsWith('..'), 'outside the workspace').to.equal(true);
    system = await startSystem();
    const admin = await signedIn(system, ADMIN_ID);
    const advertiser = await signedIn(system, '7301');
    owner = await signedIn(system, '7302');
    campaign = await activeCampaign(advertiser, admin);
    key = (await approvedPublisher(system, owner, admin)).server.key;
  });

  after(async () => {
    await system?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('serves the client at /downloads/network-client.tgz with the version and checksum the site states', async () => {
    const download = await fetch(`${system.baseUrl}/downloads/network-client.tgz`);
    expect(download.status).to.equal(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.subarray(0, 2).toString('hex'), 'a gzip stream').to.equal('1f8b');
    const facts = (await (await fetch(`${system.baseUrl}/downloads/network-client.json`)).json()) as Record<string, string>;
    const manifest = JSON.parse(await readFile(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { name: string; version: string };
    expect(facts).to.deep.equal({
      name: manifest.name,
      version: manifest.version,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      url: '/downloads/network-client.tgz',
    });
    tarball = path.join(work, 'network-client.tgz');
    await writeFile(tarball, bytes);
  });

  it('packs from a staged copy with npm run tarball, the same bytes the site serves, leaving dist/ alone; a plain npm pack is refused', async () => {
    const workspaceBuild = path.join(PACKAGE_DIR, 'dist/cjs/index.js');
    const before = (await stat(workspaceBuild)).mtimeMs;
    const packedDir = path.join(work, 'packed');
    const { stdout: printed } = await npm(['run', '--silent', 'tarball', '--', packedDir], PACKAGE_DIR);
    const packedFile = printed.trim().split('\n').pop() ?? '';
    expect(path.dirname(packedFile)).to.equal(packedDir);
    expect((await stat(workspaceBuild)).mtimeMs, 'the workspace build untouched').to.equal(before);
    expect(createHash('sha256').update(await readFile(packedFile)).digest('hex'), 'reproducible: the bytes the site serves (a stale site? pnpm --filter @pilot/web run build)').to.equal(
      createHash('sha256').update(await readFile(tarball)).digest('hex'),
    );
    const refused = await npm(['pack', '--dry-run'], PACKAGE_DIR).then(
      () => null,
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    expect(refused, 'npm pack in the folder').to.be.a('string').and.to.contain('npm run tarball');
  });

  it('builds from its sources outside the repository, with only its own dependencies', async () => {
    const outsideCopy = path.join(work, 'client-source');
    for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.esm.json', 'src', 'scripts']) {
      await cp(path.join(PACKAGE_DIR, entry), path.join(outsideCopy, entry), { recursive: true });
    }
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], outsideCopy);
    await run(process.execPath, ['scripts/build.mjs'], { cwd: outsideCopy, env: outside }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the client does not build outside the repository:\n${error.stdout ?? ''}${error.stderr ?? String(error)}`);
    });
    expect((await stat(path.join(outsideCopy, 'dist/esm/index.d.ts'))).isFile()).to.equal(true);
  });

  it('holds only dist (JavaScript and declarations), README, LICENSE and package.json', async () => {
    const { stdout: listing } = await run('tar', ['-tzf', tarball]);
    const files = listing
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.replace(/^package\//, ''))
      .sort();
    const unexpected = files.filter((f) => !['package.json', 'README.md', 'LICENSE'].includes(f) && !/^dist\/(cjs|esm)\/([\w/-]+\.(js|d\.ts)|package\.json)$/.test(f));
    expect(unexpected).to.deep.equal([]);
    for (const entry of ['dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/package.json', 'LICENSE', 'README.md']) {
      expect(files).to.include(entry);
    }
    const manifest = JSON.parse(await readFile(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).to.include({ license: 'MIT' });
    expect(manifest).to.not.have.property('private');
    expect(Object.keys((manifest.dependencies ?? {}) as object).filter((name) => name.startsWith('@pilot/'))).to.deep.equal([]);
  });

  it('installs into a new project with npm, type-checks the README quickstart and runs it against the system', async () => {
    expect(tarball, 'the tarball of the previous test').to.be.a('string');
    project = path.join(work, 'publisher-server');
    await mkdir(project);
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'publisher-server', version: '1.0.0', private: true, type: 'module' }));
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', `${system.baseUrl}/downloads/network-client.tgz`], project);

    const readme = await readFile(path.join(project, 'node_modules/@pilot/network-client/README.md'), 'utf8');
    await writeFile(path.join(project, 'quickstart.mjs'), quickstartOf(readme));

    // Types through the package's exports, as a TypeScript user's editor sees them (the repository's tsc and @types/node).
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          allowJs: true,
          checkJs: true,
          skipLibCheck: false,
          typeRoots: [path.join(REPO, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['quickstart.mjs'],
      }),
    );
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', project], { cwd: project }).catch((error: { stdout?: string }) => {
      throw new Error(`the quickstart does not type-check:\n${error.stdout ?? String(error)}`);
    });

    const env = { ...outside, PILOT_BASE_URL: system.baseUrl, PILOT_API_KEY: key };
    const { stdout } = await waitFor(async () => {
      const answer = await run(process.execPath, ['quickstart.mjs'], { cwd: project, env });
      return answer.stdout.includes('Sponsored:') ? answer : null;
    }, { timeoutMs: 20_000, message: 'the quickstart to get an ad' });
    expect(stdout).to.contain(`Sponsored: ${campaign.title as string} -> ${system.baseUrl}/api/network/click/`);
    expect(stdout).to.contain('delivery confirmed (first confirmation: true)');
    await waitFor(async () => (await owner.get<{ confirmedDeliveries: number }>('/api/workspace/stats')).body.confirmedDeliveries === 1, {
      message: 'the quickstart’s confirmation in the totals',
    });
  });

  it('loads the CommonJS build with require, which refuses what is not an Ad by the schema', async () => {
    expect(project, 'the project of the previous test').to.be.a('string');
    const script = [
      "const client = require('@pilot/network-client');",
      "if (typeof client.NetworkClient !== 'function') throw new Error('no NetworkClient');",
      "const problem = client.adProblem({ campaign_id: 1 });",
      'console.log(JSON.stringify({ problem, version: client.CLIENT_VERSION }));',
    ].join('\n');
    await writeFile(path.join(project, 'check.cjs'), script);
    const { stdout } = await run(process.execPath, ['check.cjs'], { cwd: project });
    const manifest = JSON.parse(await readFile(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
    const loaded = JSON.parse(stdout) as { problem: string; version: string };
    expect(loaded.version).to.equal(manifest.version);
    expect(loaded.problem).to.match(/^missing (title|text|button_text|image_url|click_url|delivery_token|expires_in|sponsored|billing)$/);
  });
});
