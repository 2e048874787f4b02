/**
 * @pilot/network-client as an outside project gets it: `npm pack` builds it and gives a tarball holding
 * only what runs (dist, README, LICENSE, package.json); the tarball is installed with npm into a new
 * project under the system's temporary directory, outside this workspace; the README's quickstart is
 * type-checked there (ES module, through the package's exports) and run against the running system, and
 * the CommonJS build is loaded with require.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
const PACKAGE_DIR = path.join(REPO, 'packages/network-client');

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

  it('packs a tarball of only dist (JavaScript and declarations), README, LICENSE and package.json', async () => {
    const { stdout } = await npm(['pack', '--json', '--pack-destination', work], PACKAGE_DIR);
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    expect(packed).to.not.equal(undefined);
    tarball = path.join(work, packed!.filename);
    const files = packed!.files.map((f) => f.path).sort();
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
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);

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
