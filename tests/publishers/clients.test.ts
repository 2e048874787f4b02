/**
 * The Python client (clients/python) and the Go module (clients/go) against the running system: the Python
 * client installed with pip, without a package index, once from the site's download and once from the
 * repository's folder, each running the client's own unit and system tests (python3 -m unittest); the Go
 * module's tests (go test). The system tests get the base URL and the keys in the environment; a skipped
 * test fails this one, since it would mean the environment did not reach them.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
const PYTHON_CLIENT = path.join(REPO, 'clients/python');
const GO_MODULE = path.join(REPO, 'clients/go');

interface Ran {
  stdout: string;
  stderr: string;
}

/** Runs a command; a failure shows its whole output. */
async function ran(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  try {
    return await run(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`);
  }
}

describe('the Python client and the Go module against the running system', function () {
  this.timeout(300_000);
  let system: System;
  let work: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'pilot-clients-'));
    system = await startSystem();
    const admin = await signedIn(system, ADMIN_ID);
    const advertiser: Browser = await signedIn(system, '7401');
    const owner: Browser = await signedIn(system, '7402');
    await activeCampaign(advertiser, admin, { language: 'en' });
    const live = await approvedPublisher(system, owner, admin);
    const own = await approvedPublisher(system, advertiser, admin); // its only match: its own account's campaign
    const testKey = await owner.post<{ key: string }>(`/api/workspace/publishers/${live.publisher.id}/test-key`);
    expect(testKey.status).to.equal(201);
    await waitFor(async () => (await live.server.ad('en')).status === 200, { message: 'the campaign served', intervalMs: 200 });
    const outside = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
    env = {
      ...outside,
      PILOT_BASE_URL: system.baseUrl,
      PILOT_API_KEY: live.server.key,
      PILOT_OWN_KEY: own.server.key,
      PILOT_TEST_KEY: testKey.body.key,
      PYTHONDONTWRITEBYTECODE: '1',
    };
  });

  after(async () => {
    await system?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** A fresh virtual environment with the client installed by pip from `source`, no package index. */
  async function installedPython(name: string, source: string): Promise<string> {
    const venv = path.join(work, name);
    await ran('python3', ['-m', 'venv', venv], work, env);
    const python = path.join(venv, 'bin', 'python');
    await ran(python, ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', '--quiet', source], work, env);
    const { stdout } = await ran(python, ['-c', 'import pilot_network_client as p; print(p.__version__, p.__file__)'], work, env);
    expect(stdout, 'imported from the virtual environment, not the repository').to.contain(venv);
    return python;
  }

  async function unittests(python: string): Promise<void> {
    const { stderr } = await ran(python, ['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], PYTHON_CLIENT, env);
    expect(stderr).to.match(/\nOK\n?$/);
    expect(stderr, 'no test skipped').to.not.match(/skipped/i);
    expect(stderr).to.contain('test_works_in_the_sandbox_and_surfaces_forced_answers_at_once_when_asked');
  }

  it('installs the Python client with pip from the site\'s download (its stated checksum) and passes its tests against the system', async () => {
    const download = await fetch(`${system.baseUrl}/downloads/pilot_network_client.zip`);
    expect(download.status).to.equal(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    const facts = (await (await fetch(`${system.baseUrl}/downloads/pilot_network_client.json`)).json()) as Record<string, string>;
    const project = await readFile(path.join(PYTHON_CLIENT, 'pyproject.toml'), 'utf8');
    expect(facts).to.deep.equal({
      name: 'pilot-network-client',
      version: /^version = "([^"]+)"$/m.exec(project)?.[1],
      sha256: createHash('sha256').update(bytes).digest('hex'),
      url: '/downloads/pilot_network_client.zip',
    });
    await unittests(await installedPython('from-site', `${system.baseUrl}/downloads/pilot_network_client.zip`));
  });

  it('installs the Python client with pip from the repository\'s folder and passes its tests against the system', async () => {
    await unittests(await installedPython('from-repository', PYTHON_CLIENT));
  });

  it('passes the Go module\'s tests against the system (go test)', async () => {
    const { stdout } = await ran('go', ['test', '-v', '-count=1', './...'], GO_MODULE, env);
    expect(stdout).to.match(/^ok\s+pilot\.example\/networkclient/m);
    expect(stdout, 'no test skipped').to.not.contain('--- SKIP');
    expect(stdout).to.contain('--- PASS: TestSystemWorksInTheSandboxAndSurfacesForcedAnswersAtOnceWhenAsked');
  });
});
