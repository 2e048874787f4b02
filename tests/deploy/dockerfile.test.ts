/**
 * The Dockerfile that builds every service's image, read as Docker reads it (instructions, line
 * continuations, stages). No Docker engine runs here, so the checks are on the file: what the runtime
 * stage runs, as whom, and that it starts what each service's build produces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, serviceNames } from './support';

interface Instruction {
  keyword: string;
  args: string;
}

function instructions(file: string): Instruction[] {
  const logical: string[] = [];
  let current = '';
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (current === '' && (trimmed === '' || trimmed.startsWith('#'))) continue;
    if (trimmed.startsWith('#')) continue;
    if (trimmed.endsWith('\\')) {
      current += trimmed.slice(0, -1) + ' ';
      continue;
    }
    logical.push(current + trimmed);
    current = '';
  }
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

/** The instructions of each stage, by stage name (or index). */
function stages(list: Instruction[]): { name: string; from: string; body: Instruction[] }[] {
  const result: { name: string; from: string; body: Instruction[] }[] = [];
  for (const instruction of list) {
    if (instruction.keyword === 'FROM') {
      const [from = '', , name] = instruction.args.split(/\s+/);
      result.push({ name: name ?? String(result.length), from, body: [] });
    } else {
      result.at(-1)?.body.push(instruction);
    }
  }
  return result;
}

describe('Dockerfile', function () {
  const list = instructions(path.join(REPO_ROOT, 'Dockerfile'));
  const all = stages(list);
  const runtime = all.at(-1);
  const globalArgs = Object.fromEntries(
    list
      .slice(0, list.findIndex((item) => item.keyword === 'FROM'))
      .filter((item) => item.keyword === 'ARG')
      .map((item) => item.args.split('=') as [string, string]),
  );
  const image = (from: string) => from.replace(/^\$\{?([A-Z_]+)\}?$/, (_, name: string) => globalArgs[name] ?? from);
  const runtimeText = (keyword: string) => runtime?.body.filter((item) => item.keyword === keyword).map((item) => item.args) ?? [];

  it('builds on Node 20 in every stage', function () {
    expect(all.length).to.be.at.least(2);
    for (const stage of all) expect(image(stage.from), stage.name).to.match(/^node:20([.-]|$)/);
  });

  it('installs from the lockfile with pnpm, builds the whole workspace, and deploys only the chosen service', function () {
    const build = all[0]?.body.map((item) => `${item.keyword} ${item.args}`).join('\n') ?? '';
    expect(build).to.match(/pnpm@9|corepack/);
    expect(build).to.contain('pnpm install --frozen-lockfile');
    expect(build).to.contain('pnpm run build');
    expect(build).to.match(/ARG SERVICE/);
    expect(build).to.match(/pnpm --filter "@pilot\/\$\{SERVICE\}" deploy --prod( --prefer-offline)?/);
  });

  it('runs the service as a non-root user with NODE_ENV=production, listening on all interfaces', function () {
    const user = runtimeText('USER').at(-1);
    expect(user, 'USER of the runtime stage').to.be.a('string');
    expect(user?.split(':')[0]).to.not.be.oneOf(['root', '0']);
    const env = runtimeText('ENV').join(' ');
    expect(env).to.match(/NODE_ENV=production/);
    expect(env).to.match(/HOST=0\.0\.0\.0/);
  });

  it('starts node dist/main.js and checks health on /livez', function () {
    expect(runtimeText('CMD').at(-1)).to.equal('["node", "dist/main.js"]');
    const healthcheck = runtimeText('HEALTHCHECK').at(-1) ?? '';
    expect(healthcheck).to.contain('/livez');
    expect(healthcheck).to.contain('GATEWAY_PORT').and.to.contain('PORT');
  });

  it('copies only the deployed service into the runtime stage, never the build tree', function () {
    const copies = runtimeText('COPY');
    expect(copies).to.have.length(1);
    expect(copies[0]).to.match(/--from=build .*\/out \/app$/);
  });

  for (const service of serviceNames()) {
    it(`gets dist/main.js from the build of ${service}`, function () {
      const dir = path.join(REPO_ROOT, 'services', service);
      const tsconfig = JSON.parse(fs.readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions?: { rootDir?: string; outDir?: string } };
      expect(tsconfig.compilerOptions?.outDir).to.equal('dist');
      expect(tsconfig.compilerOptions?.rootDir).to.equal('src');
      expect(fs.existsSync(path.join(dir, 'src', 'main.ts')), `services/${service}/src/main.ts`).to.equal(true);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string };
      expect(manifest.name).to.equal(`@pilot/${service}`);
    });
  }

  it('keeps dependencies, build output and local data out of the build context', function () {
    const ignored = fs.readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());
    expect(ignored).to.include.members(['**/node_modules', '**/dist', '.git', '.data', '.tools', '.env']);
  });
});
