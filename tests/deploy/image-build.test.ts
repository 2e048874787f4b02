/**
 * The Dockerfile's build steps, run without Docker (none runs here): the build context as .dockerignore
 * leaves it, `pnpm install --frozen-lockfile --offline` after `pnpm fetch`, `pnpm run build`, then
 * `pnpm --filter @pilot/<svc> deploy --prod --prefer-offline` for every service (pnpm 9 deploy resolves
 * versions anew, so it may read the registry). Each deployed tree must hold
 * dist/main.js and start with production dependencies only: run with no settings under
 * NODE_ENV=production it loads every module and stops on its configuration, naming a missing setting
 * (a missing runtime dependency would stop it earlier with MODULE_NOT_FOUND).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, requiredSettings, serviceConfig, serviceNames } from './support';

/** .dockerignore patterns as tar --exclude patterns ('**\/x' matches x at any depth, as tar's do). */
function excludes(): string[] {
  return fs
    .readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => pattern.replace(/^\*\*\//, ''))
    .map((pattern) => `--exclude=${pattern}`);
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
}

describe('the Dockerfile build steps, run without Docker', function () {
  this.timeout(600_000);
  let work: string;
  let context: string;

  before(function () {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'pilot-image-'));
    context = path.join(work, 'src');
    fs.mkdirSync(context);
    const archive = path.join(work, 'context.tar');
    execFileSync('tar', ['-cf', archive, ...excludes(), '-C', REPO_ROOT, '.']);
    execFileSync('tar', ['-xf', archive, '-C', context]);
    run('pnpm', ['fetch', '--reporter=silent'], context);
    run('pnpm', ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], context);
    run('pnpm', ['run', '-s', 'build'], context);
  });

  after(function () {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('leaves host dependencies and build output out of the context', function () {
    expect(fs.existsSync(path.join(work, 'context.tar'))).to.equal(true);
    for (const service of serviceNames()) {
      expect(fs.existsSync(path.join(context, 'services', service, 'src')), `services/${service}/src`).to.equal(true);
    }
  });

  for (const service of serviceNames()) {
    it(`deploys ${service} with production dependencies only, and it starts as far as its settings`, async function () {
      const out = path.join(work, 'out', service);
      run('pnpm', ['--filter', `@pilot/${service}`, 'deploy', '--prod', '--prefer-offline', out], context);
      expect(fs.existsSync(path.join(out, 'dist', 'main.js')), 'dist/main.js').to.equal(true);
      const started = spawnSync('node', ['dist/main.js'], {
        cwd: out,
        encoding: 'utf8',
        timeout: 30_000,
        env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '0.0.0.0' },
      });
      const output = `${started.stdout}\n${started.stderr}`;
      expect(output).to.not.contain('MODULE_NOT_FOUND');
      expect(started.status, output).to.not.equal(0);
      const required = requiredSettings(await serviceConfig(service));
      expect(required.length).to.be.greaterThan(0);
      for (const name of required) expect(output).to.contain(name);
    });
  }
});
