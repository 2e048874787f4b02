/**
 * docker-compose.yml, checked without a Docker engine: compose-go (the Compose Specification's reference
 * library, the one Docker Compose uses; built by deploy/tools/install-compose-check.sh) interpolates it,
 * validates it against the Compose Specification JSON schema and resolves its references; then every
 * service of services/ is checked against the settings its own src/config.ts declares.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  REPO_ROOT,
  listenPortOf,
  missingSettings,
  productionConfigProblem,
  sampleSecret,
  serviceConfig,
  serviceNames,
} from './support';

const COMPOSE_FILE = path.join(REPO_ROOT, 'docker-compose.yml');
const INFRA = ['mongo', 'rabbitmq', 'redis'];

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string; args?: Record<string, string> };
  environment?: Record<string, string | null>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  ports?: { target: number; published?: string; host_ip?: string }[];
  command?: string[] | null;
  volumes?: { type: string; source?: string; target: string }[];
}

interface ComposeProject {
  services: Record<string, ComposeService>;
}

/** The variables the file refuses to run without (`${NAME:?message}`), with sample values. */
function requiredVariables(): Record<string, string> {
  const text = fs.readFileSync(COMPOSE_FILE, 'utf8');
  const names = new Set([...text.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1] as string));
  const samples: Record<string, string> = {};
  for (const name of names) {
    if (name === 'ADMIN_ACCOUNT_IDS') samples[name] = '1,2';
    else if (name === 'TELEGRAM_BOT_USERNAME') samples[name] = 'pilot_signin_bot';
    else samples[name] = sampleSecret(name);
  }
  return samples;
}

/** A clean environment for the checker: only what a shell needs, nothing inherited from this run. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

function environmentOf(service: ComposeService): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, value ?? undefined]));
}

describe('docker-compose.yml', function () {
  this.timeout(300_000);
  let checker: string;
  let project: ComposeProject;

  before(function () {
    checker = execFileSync('bash', [path.join(REPO_ROOT, 'deploy/tools/install-compose-check.sh')], { encoding: 'utf8' }).trim();
    const run = spawnSync(checker, [COMPOSE_FILE], { env: bareEnv(requiredVariables()), encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`compose-check refused docker-compose.yml: ${run.stderr}`);
    project = JSON.parse(run.stdout) as ComposeProject;
  });

  it('loads with compose-go and validates against the Compose Specification schema', function () {
    expect(project.services).to.be.an('object');
    expect(Object.keys(project.services)).to.include.members(INFRA);
  });

  it('is checked by a validator that rejects what breaks the schema', function () {
    const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compose-')), 'docker-compose.yml');
    fs.writeFileSync(broken, fs.readFileSync(COMPOSE_FILE, 'utf8').replace(/^ {2}redis:\n/m, '  redis:\n    not_a_compose_key: 1\n'));
    const run = spawnSync(checker, [broken], { env: bareEnv(requiredVariables()), encoding: 'utf8' });
    expect(run.status).to.equal(1);
    expect(run.stderr).to.contain('not_a_compose_key');
  });

  it('refuses to run without its secrets and names each missing one', function () {
    const required = Object.keys(requiredVariables());
    expect(required).to.include.members(['INTERNAL_SECRET', 'TOKEN_SECRET', 'TELEGRAM_WEBHOOK_SECRET']);
    const run = spawnSync(checker, [COMPOSE_FILE], { env: bareEnv(), encoding: 'utf8' });
    expect(run.status).to.equal(1);
    for (const name of required) expect(run.stderr).to.contain(`required variable ${name} is missing`);
  });

  it('has no secret value written in the file', function () {
    const text = fs.readFileSync(COMPOSE_FILE, 'utf8');
    for (const name of ['INTERNAL_SECRET', 'TOKEN_SECRET', 'TELEGRAM_WEBHOOK_SECRET', 'RABBITMQ_DEFAULT_PASS']) {
      const lines = text.split('\n').filter((line) => line.trim().startsWith(`${name}:`));
      expect(lines, name).to.not.be.empty;
      for (const line of lines) expect(line, name).to.match(/\$\{[A-Z_]+:\?/);
    }
  });

  it('runs mongo:7, RabbitMQ and Redis, each with a health check and a restart policy', function () {
    expect(project.services.mongo?.image).to.equal('mongo:7');
    expect(project.services.rabbitmq?.image).to.match(/^rabbitmq:3(\.[0-9.]+)?-management/);
    expect(project.services.redis?.image).to.match(/^redis:7/);
    for (const name of INFRA) {
      expect(project.services[name]?.healthcheck?.test, name).to.be.an('array').that.is.not.empty;
      expect(project.services[name]?.restart, name).to.be.oneOf(['always', 'unless-stopped', 'on-failure']);
    }
  });

  it('runs Redis with every write in the append-only file, fsynced before it is acknowledged, on a named volume', function () {
    const redis = project.services.redis ?? {};
    const command = redis.command ?? [];
    const setting = (name: string) => {
      const index = command.lastIndexOf(`--${name}`);
      return index >= 0 ? command[index + 1] : undefined;
    };
    expect(command[0], 'the command runs redis-server').to.equal('redis-server');
    expect(setting('appendonly'), 'AOF on').to.equal('yes');
    expect(setting('appendfsync'), 'fsync before every acknowledgement').to.equal('always');
    expect(setting('maxmemory-policy'), 'never evicts counts, limits or keys').to.equal('noeviction');
    // Where the image keeps its data (WORKDIR /data), on a volume that outlives the container.
    const data = (redis.volumes ?? []).find((volume) => volume.target === '/data');
    expect(data?.type, 'redis /data mount').to.equal('volume');
    expect(data?.source).to.be.a('string').that.is.not.empty;
  });

  for (const service of serviceNames()) {
    describe(`service ${service}`, function () {
      it('is a container built from the repository Dockerfile for that service', function () {
        const entry = project.services[service];
        expect(entry, `no compose service named ${service}`).to.exist;
        expect(path.resolve(REPO_ROOT, entry?.build?.context ?? '')).to.equal(REPO_ROOT);
        expect(entry?.build?.dockerfile ?? 'Dockerfile').to.equal('Dockerfile');
        expect(entry?.build?.args?.SERVICE).to.equal(service);
      });

      it('gets every setting its config requires in production, with values its config accepts', async function () {
        const config = await serviceConfig(service);
        const env = environmentOf(project.services[service] ?? {});
        expect(missingSettings(config, env), `settings of ${service} missing from docker-compose.yml`).to.deep.equal([]);
        expect(productionConfigProblem(config, env)).to.equal(undefined);
      });

      it('has a restart policy and a health check on /livez at the port it listens on', async function () {
        const config = await serviceConfig(service);
        const entry = project.services[service] ?? {};
        const port = listenPortOf(config, environmentOf(entry));
        expect(entry.restart).to.be.oneOf(['always', 'unless-stopped', 'on-failure']);
        expect(entry.healthcheck?.disable ?? false).to.equal(false);
        expect((entry.healthcheck?.test ?? []).join(' ')).to.contain(`127.0.0.1:${port}/livez`);
      });

      it('starts only after the services it depends on are healthy', function () {
        const entry = project.services[service] ?? {};
        const env = environmentOf(entry);
        const expected = new Set<string>();
        if (env.MONGO_URL) expected.add('mongo');
        if (env.AMQP_URL) expected.add('rabbitmq');
        if (env.REDIS_URL) expected.add('redis');
        for (const dependency of Object.keys(entry.depends_on ?? {})) expected.add(dependency);
        for (const dependency of expected) {
          expect(entry.depends_on?.[dependency]?.condition, `${service} -> ${dependency}`).to.equal('service_healthy');
          expect(project.services[dependency]?.healthcheck?.test, `${dependency} has no health check`).to.be.an('array');
        }
      });
    });
  }

  it('gives each service that stores data its own MongoDB database', function () {
    const databases = serviceNames()
      .map((service) => environmentOf(project.services[service] ?? {}).MONGO_DB)
      .filter((name): name is string => name !== undefined);
    expect(databases.length).to.be.greaterThan(0);
    expect(new Set(databases).size).to.equal(databases.length);
  });

  it('points the gateway at every service by its compose name and port, and waits for them', async function () {
    const gateway = project.services.gateway ?? {};
    const env = environmentOf(gateway);
    const upstreams = Object.entries(env).filter(([name]) => name.endsWith('_URLS'));
    expect(upstreams.map(([name]) => name)).to.include.members(['IDENTITY_URLS', 'CAMPAIGN_URLS', 'ALLOCATION_URLS', 'TRACKING_URLS', 'PLACEMENT_URLS', 'WEB_URLS']);
    for (const [name, value] of upstreams) {
      for (const url of (value ?? '').split(',')) {
        const target = new URL(url.trim());
        const upstream = project.services[target.hostname];
        expect(upstream, `${name} points at ${target.hostname}, which is not a compose service`).to.exist;
        const port = listenPortOf(await serviceConfig(target.hostname), environmentOf(upstream ?? {}));
        expect(Number(target.port), `${name} port`).to.equal(port);
        expect(gateway.depends_on?.[target.hostname]?.condition, `gateway waits for ${target.hostname}`).to.equal('service_healthy');
      }
    }
  });

  it('publishes the gateway on 8080 and no other service of services/', function () {
    const published = serviceNames().filter((service) => (project.services[service]?.ports ?? []).length > 0);
    expect(published).to.deep.equal(['gateway']);
    expect(project.services.gateway?.ports?.[0]?.target).to.equal(8080);
    expect(project.services.gateway?.ports?.[0]?.published).to.equal('8080');
  });
});
