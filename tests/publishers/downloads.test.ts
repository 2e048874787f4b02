/**
 * Every artifact the guide names, downloaded from the running site and used as the guide says: the Go
 * module built into a small program (offline: the module is the standard library only) that calls the
 * network; the example bot unpacked, installed, built and tested by its own scripts; the Python client
 * installed by pip without an index. (The TypeScript client's download is installed and run by
 * package.test.ts, the Python client's own tests by clients.test.ts.) And nothing served to publishers
 * names a path of the repository: the guide's pages, the OpenAPI documents, the snippets, and every text
 * file inside every download.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { approvedPublisher } from '../e2e/support/scenario';
import { signedIn } from '../e2e/support/clients';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { outsideEnv } from './support/outside-project';

const run = promisify(execFile);

const DOWNLOADS = ['/downloads/network-client.tgz', '/downloads/pilot_network_client.zip', '/downloads/network-client-go.zip', '/downloads/example-bot.tgz'];

/** A repository path as the docs would name it: a top folder of the repository, or one of its specification files. */
const REPOSITORY_PATH = /(?:^|[\s`'"([]|\.\.\/)(?:clients|examples|docs|tests|services|packages|deploy)\/|\b(?:SPEC|API|ARCHITECTURE|CONVENTIONS)\.md\b/m;

async function step(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = outsideEnv()): Promise<string> {
  try {
    return (await run(command, args, { cwd, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)])));
  return nested.flat();
}

describe('the artifacts the guide names, downloaded from the running site', function () {
  this.timeout(600_000);
  let system: System;
  let work: string;
  let liveKey: string;

  const download = async (path: string, into: string): Promise<string> => {
    const answer = await fetch(`${system.baseUrl}${path}`);
    expect(answer.status, path).to.equal(200);
    const file = join(into, path.split('/').pop() ?? 'download');
    await writeFile(file, Buffer.from(await answer.arrayBuffer()));
    return file;
  };

  before(async () => {
    system = await startSystem();
    work = await mkdtemp(join(tmpdir(), 'pilot-downloads-'));
    const admin = await signedIn(system, ADMIN_ID);
    const owner = await signedIn(system, '6301');
    liveKey = (await approvedPublisher(system, owner, admin)).server.key;
  });

  after(async () => {
    await system?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('links every download from the guide, as served', async () => {
    const guide = await (await fetch(`${system.baseUrl}/guide`)).text();
    for (const path of DOWNLOADS) expect(guide, path).to.contain(`href="${path}"`);
  });

  it('builds a Go program against the downloaded module with a replace directive, offline, and it calls the network', async () => {
    const dir = join(work, 'go-program');
    await step('mkdir', ['-p', dir], work);
    const zip = await download('/downloads/network-client-go.zip', dir);
    await step('unzip', ['-q', zip], dir);
    await writeFile(join(dir, 'go.mod'), 'module example.com/tryit\n\ngo 1.22\n');
    await writeFile(
      join(dir, 'main.go'),
      [
        'package main',
        '',
        'import (',
        '\t"context"',
        '\t"errors"',
        '\t"fmt"',
        '\t"os"',
        '',
        '\t"pilot.example/networkclient"',
        ')',
        '',
        'func main() {',
        '\tnetwork, err := networkclient.New(os.Getenv("PILOT_BASE_URL"), os.Getenv("PILOT_API_KEY"))',
        '\tif err != nil {',
        '\t\tpanic(err)',
        '\t}',
        '\tresult, err := network.RequestAdResult(context.Background(), networkclient.AdRequest{Language: "en"})',
        '\tvar apiError *networkclient.APIError',
        '\tswitch {',
        '\tcase errors.As(err, &apiError):',
        '\t\tfmt.Println("error", apiError.Code)',
        '\tcase err != nil:',
        '\t\tpanic(err)',
        '\tcase result.Ad == nil:',
        '\t\tfmt.Println("no ad", result.NoFillReason)',
        '\tdefault:',
        '\t\tfmt.Println("ad", result.Ad.CampaignID)',
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
    // A module cache of its own (nothing but the download to build from); the machine's build cache, as a
    // publisher's go build uses theirs (it holds compiled packages by content, never a module's source).
    const env = outsideEnv({ GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', GOWORK: 'off', GOPATH: join(work, 'go-path') });
    await step('go', ['mod', 'edit', '-replace', 'pilot.example/networkclient=./networkclient'], dir, env);
    await step('go', ['build', '-o', 'tryit', '.'], dir, env);
    const refused = await step(join(dir, 'tryit'), [], dir, outsideEnv({ PILOT_BASE_URL: system.baseUrl, PILOT_API_KEY: 'pilot_pk_not-a-key' }));
    expect(refused.trim()).to.equal('error invalid_key');
    const live = await step(join(dir, 'tryit'), [], dir, outsideEnv({ PILOT_BASE_URL: system.baseUrl, PILOT_API_KEY: liveKey }));
    expect(live.trim()).to.equal('no ad no_active_campaign');
  });

  it('unpacks the example bot with its client inside, and installs, builds and passes its own tests as its README says', async () => {
    const dir = join(work, 'example-bot');
    await step('mkdir', ['-p', dir], work);
    const archive = await download('/downloads/example-bot.tgz', dir);
    await step('tar', ['xzf', archive], dir);
    const project = join(dir, 'publisher-bot');
    expect((await stat(join(project, 'vendor', 'pilot-network-client.tgz'))).size).to.be.above(1000);
    await step('npm', ['install', '--no-audit', '--no-fund'], project);
    await step('npm', ['run', 'build'], project);
    const tested = await step('npm', ['test'], project);
    expect(tested).to.match(/# pass [1-9]/);
    expect(tested).to.match(/# fail 0/);
  });

  it('installs the downloaded Python client with pip, no package index, at the checksum the site states', async () => {
    const dir = join(work, 'python');
    await step('mkdir', ['-p', dir], work);
    const zip = await download('/downloads/pilot_network_client.zip', dir);
    const manifest = (await (await fetch(`${system.baseUrl}/downloads/pilot_network_client.json`)).json()) as { sha256: string };
    expect(createHash('sha256').update(await readFile(zip)).digest('hex')).to.equal(manifest.sha256);
    await step('python3', ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', '--quiet', '--target', join(dir, 'site'), zip], dir);
    const imported = await step('python3', ['-c', 'import pilot_network_client as c; print(c.NetworkClient.__name__)'], dir, outsideEnv({ PYTHONPATH: join(dir, 'site') }));
    expect(imported.trim()).to.equal('NetworkClient');
  });

  it('names no path of the repository in anything it serves to publishers', async () => {
    const served: Array<[string, string]> = [];
    for (const page of ['/guide', '/guide/errors', '/guide/changelog', '/api/network/openapi.json', '/api/workspace/openapi.json']) {
      served.push([page, await (await fetch(`${system.baseUrl}${page}`)).text()]);
    }
    const guide = served[0]?.[1] ?? '';
    const snippets = [...new Set([...guide.matchAll(/href="(\/downloads\/snippets\/[^"]+)"/g)].map((match) => match[1] ?? ''))];
    expect(snippets.length, 'the snippets the guide links').to.be.at.least(3);
    for (const snippet of snippets) served.push([snippet, await (await fetch(`${system.baseUrl}${snippet}`)).text()]);
    const dir = join(work, 'scan');
    await step('mkdir', ['-p', dir], work);
    for (const path of DOWNLOADS) {
      const into = join(dir, path.split('/').pop() ?? 'x');
      await step('mkdir', ['-p', into], dir);
      const file = await download(path, into);
      await step(path.endsWith('.zip') ? 'unzip' : 'tar', path.endsWith('.zip') ? ['-q', file] : ['xzf', file], into);
      await rm(file);
    }
    // The example bot carries the client's tarball: its files are scanned too.
    const inner = join(dir, 'example-bot.tgz', 'publisher-bot', 'vendor');
    await step('tar', ['xzf', 'pilot-network-client.tgz'], inner);
    for (const file of await filesUnder(dir)) {
      if (/\.(tgz|zip)$/.test(file)) continue;
      served.push([file.slice(dir.length), await readFile(file, 'utf8')]);
    }
    expect(served.length).to.be.above(30);
    const named = served.filter(([, text]) => REPOSITORY_PATH.test(text)).map(([where, text]) => `${where}: ${REPOSITORY_PATH.exec(text)?.[0] ?? ''}`);
    expect(named).to.deep.equal([]);
  });
});
