/**
 * deploy/k8s: every overlay renders with `kubectl kustomize`, every rendered object validates against
 * the Kubernetes OpenAPI schemas shipped by the kubernetes-models package, and every service of
 * services/ has what an operator relies on: Deployment, Service, ServiceAccount, PodDisruptionBudget,
 * probes, resources, a locked-down security context, and every setting its src/config.ts requires,
 * taken from the ConfigMaps and the Secret.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { REPO_ROOT, listenPortOf, missingSettings, productionConfigProblem, readEnvFile, sampleSecret, serviceConfig, serviceNames } from './support';

const OVERLAYS_DIR = path.join(REPO_ROOT, 'deploy', 'k8s', 'overlays');
const SECRET_NAME = 'pilot-secrets';
const SECRET_EXAMPLE = path.join(REPO_ROOT, 'deploy', 'k8s', 'base', 'secrets.example.env');
const AUTOSCALED = ['gateway', 'allocation', 'tracking'];
const NAMESPACE = 'pilot';

/* Only the fields these checks read; the schemas check the rest. */
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
}
interface Probe {
  httpGet?: { path?: string; port?: number | string };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string }; secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image?: string;
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
}
interface PodSpec {
  serviceAccountName?: string;
  securityContext?: { runAsNonRoot?: boolean };
  containers: Container[];
}
interface DeploymentSpec {
  replicas?: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
}

/** The kubernetes-models class for an object's apiVersion and kind; its validate() checks the schema. */
async function modelFor(object: K8sObject): Promise<{ new (data: unknown): { validate(): void } }> {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : [undefined, object.apiVersion];
  // The Prometheus Operator's resources (the alert rules) have their own models package, exported by version.
  const modulePath =
    group === 'monitoring.coreos.com'
      ? `@kubernetes-models/prometheus-operator/${group}/${version}`
      : ['kubernetes-models', group, version, object.kind].filter(Boolean).join('/');
  let module: Record<string, unknown>;
  try {
    // An ES module package (its exports have only the "import" condition): import(), not require().
    module = (await import(modulePath)) as Record<string, unknown>;
  } catch {
    throw new Error(`no Kubernetes schema for ${object.apiVersion} ${object.kind} (is the apiVersion right?)`);
  }
  const model = module[object.kind];
  if (typeof model !== 'function') throw new Error(`kubernetes-models has no ${object.kind} in ${modulePath}`);
  return model as { new (data: unknown): { validate(): void } };
}

/**
 * kustomize writes long base64 values of a Secret as YAML block scalars wrapped over several lines; the
 * API server's base64 decoder skips line breaks, the schema's "byte" format does not: unwrap them.
 */
function asApiServerReads(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || !object.data) return object;
  return { ...object, data: Object.fromEntries(Object.entries(object.data).map(([key, value]) => [key, value.replace(/[\r\n]/g, '')])) };
}

function render(overlay: string): K8sObject[] {
  // The local overlay's secrets are generated per machine, as its README says (a no-op once they exist).
  const generator = path.join(OVERLAYS_DIR, overlay, 'generate-secrets.sh');
  if (fs.existsSync(generator)) execFileSync('bash', [generator]);
  const output = execFileSync('kubectl', ['kustomize', path.join(OVERLAYS_DIR, overlay)], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
  return yaml.loadAll(output).filter((doc): doc is K8sObject => doc !== null && typeof doc === 'object');
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

function decodeSecret(secret: K8sObject): Record<string, string> {
  const values: Record<string, string> = { ...(secret.stringData ?? {}) };
  for (const [key, value] of Object.entries(secret.data ?? {})) values[key] = Buffer.from(value.replace(/[\r\n]/g, ''), 'base64').toString('utf8');
  return values;
}

const overlays = fs
  .readdirSync(OVERLAYS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('deploy/k8s', function () {
  it('has a local and a production overlay', function () {
    expect(overlays).to.include.members(['local', 'production']);
  });

  it('requires of the external Redis what docker-compose runs: AOF fsynced on every write, on a persistent volume, never evicting', function () {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'k8s', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Redis persistence'));
    expect(section, 'a "Redis persistence" section').to.match(/^### Redis persistence/);
    expect(section).to.match(/^appendonly yes$/m);
    expect(section).to.match(/^appendfsync always$/m);
    expect(section).to.contain('PersistentVolumeClaim');
    expect(readme).to.match(/\| Redis 7 \|[^\n]*persistence required: AOF with `appendfsync always`/);
    expect(section).to.match(/^maxmemory-policy noeviction$/m);
    expect(readme).to.match(/\| Redis 7 \|[^\n]*`maxmemory-policy noeviction`/);
  });

  it('keeps placeholders, never real secrets, in the Secret example', function () {
    const example = readEnvFile(SECRET_EXAMPLE);
    expect(Object.keys(example)).to.include.members(['INTERNAL_SECRET', 'TOKEN_SECRET', 'TELEGRAM_WEBHOOK_SECRET', 'MONGO_URL', 'AMQP_URL', 'REDIS_URL']);
    for (const [key, value] of Object.entries(example)) expect(value, key).to.contain('change-me');
  });

  it('has services that refuse to start in production with the placeholders of the Secret example, naming each', async function () {
    const example = readEnvFile(SECRET_EXAMPLE);
    const complete = { NODE_ENV: 'production', PORT: '8080', PUBLIC_BASE_URL: 'https://pilot.example', CAMPAIGN_URL: 'http://campaign:8080' };
    const problem = productionConfigProblem(await serviceConfig('tracking'), { ...complete, MONGO_DB: 'tracking', ...example });
    expect(problem).to.contain('INTERNAL_SECRET is a placeholder').and.to.contain('TOKEN_SECRET is a placeholder');
    const identity = productionConfigProblem(await serviceConfig('publisher-identity'), { ...complete, MONGO_DB: 'identity', ...example });
    expect(identity).to.contain('TELEGRAM_WEBHOOK_SECRET is a placeholder');
  });

  it('commits no secret of the local overlay: they are generated per machine, at least 32 characters each', function () {
    const committed = readEnvFile(path.join(OVERLAYS_DIR, 'local', 'secrets.local.env'));
    expect(Object.keys(committed).filter((key) => key.endsWith('_SECRET'))).to.deep.equal([]);
    const ignored = execFileSync('git', ['check-ignore', 'deploy/k8s/overlays/local/generated-secrets.env'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(ignored.trim()).to.equal('deploy/k8s/overlays/local/generated-secrets.env');
  });

  for (const overlay of overlays) {
    describe(`overlay ${overlay}`, function () {
      this.timeout(60_000);
      let objects: K8sObject[];
      const find = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name);
      const deploymentOf = (service: string) => find('Deployment', service)?.spec as DeploymentSpec | undefined;

      /**
       * The Secret's values: rendered (local), or the keys of the example, which production must create
       * with generated secrets (its placeholders are refused in production, as the test above shows).
       */
      const secretValues = (): Record<string, string> => {
        const secret = find('Secret', SECRET_NAME);
        if (secret) return decodeSecret(secret);
        const example = readEnvFile(SECRET_EXAMPLE);
        return Object.fromEntries(Object.entries(example).map(([key, value]) => [key, key.endsWith('_SECRET') ? sampleSecret(key) : value]));
      };

      /** The environment a container starts with: envFrom ConfigMaps/Secrets, then env entries. */
      const environmentOf = (container: Container): Record<string, string> => {
        const env: Record<string, string> = {};
        const configMap = (name: string) => {
          const object = find('ConfigMap', name);
          if (!object) throw new Error(`${container.name} uses ConfigMap ${name}, which is not rendered`);
          return object.data ?? {};
        };
        const secret = (name: string) => {
          if (name !== SECRET_NAME) throw new Error(`${container.name} uses Secret ${name}; only ${SECRET_NAME} is documented`);
          return secretValues();
        };
        for (const source of container.envFrom ?? []) {
          if (source.configMapRef) Object.assign(env, configMap(source.configMapRef.name));
          if (source.secretRef) Object.assign(env, secret(source.secretRef.name));
        }
        for (const entry of container.env ?? []) {
          const { configMapKeyRef, secretKeyRef } = entry.valueFrom ?? {};
          const value =
            entry.value ??
            (configMapKeyRef ? configMap(configMapKeyRef.name)[configMapKeyRef.key] : undefined) ??
            (secretKeyRef ? secret(secretKeyRef.name)[secretKeyRef.key] : undefined);
          // An optional key a Secret may leave out (TELEGRAM_BOT_TOKEN): the variable is then unset.
          if (value === undefined && secretKeyRef?.optional === true) continue;
          if (value === undefined) throw new Error(`${container.name}: ${entry.name} refers to a key that does not exist`);
          env[entry.name] = value;
        }
        return env;
      };

      before(function () {
        objects = render(overlay);
      });

      it('renders with kubectl kustomize', function () {
        expect(objects.length).to.be.greaterThan(0);
      });

      it('has only objects that validate against the Kubernetes schemas', async function () {
        const problems: string[] = [];
        for (const object of objects) {
          try {
            const Model = await modelFor(object);
            new Model(asApiServerReads(object)).validate();
          } catch (error) {
            problems.push(`${object.kind}/${object.metadata?.name}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        expect(problems).to.deep.equal([]);
      });

      it(`puts everything in the ${NAMESPACE} namespace, which enforces the restricted pod security standard`, function () {
        const namespace = find('Namespace', NAMESPACE);
        expect(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).to.equal('restricted');
        for (const object of objects.filter((item) => item.kind !== 'Namespace')) {
          expect(object.metadata.namespace, `${object.kind}/${object.metadata.name}`).to.equal(NAMESPACE);
        }
      });

      it('scales gateway, allocation and tracking with HorizontalPodAutoscalers, and nothing else fixes their replicas', function () {
        for (const service of AUTOSCALED) {
          const hpa = objects.find(
            (object) =>
              object.kind === 'HorizontalPodAutoscaler' &&
              (object.spec?.scaleTargetRef as { kind?: string; name?: string } | undefined)?.name === service,
          );
          expect(hpa, `HPA for ${service}`).to.exist;
          const spec = hpa?.spec as { scaleTargetRef: { kind: string; apiVersion: string }; minReplicas: number; maxReplicas: number };
          expect(spec.scaleTargetRef.kind).to.equal('Deployment');
          expect(spec.scaleTargetRef.apiVersion).to.equal('apps/v1');
          expect(spec.minReplicas).to.be.at.least(1);
          expect(spec.maxReplicas).to.be.greaterThan(spec.minReplicas);
          expect(deploymentOf(service)?.replicas, `${service} replicas are the HPA's to set`).to.equal(undefined);
        }
      });

      if (overlay === 'production') {
        it('renders no Secret: production creates pilot-secrets itself, placeholders are never deployed', function () {
          expect(objects.filter((object) => object.kind === 'Secret')).to.deep.equal([]);
        });

        it('runs at least two replicas of every service', function () {
          for (const service of serviceNames()) {
            const hpa = objects.find((object) => object.kind === 'HorizontalPodAutoscaler' && object.metadata.name === service);
            const replicas = hpa ? (hpa.spec as { minReplicas: number }).minReplicas : deploymentOf(service)?.replicas;
            expect(replicas, service).to.be.at.least(2);
          }
        });
      }

      for (const service of serviceNames()) {
        describe(`service ${service}`, function () {
          const containerOf = () => {
            const containers = deploymentOf(service)?.template.spec.containers ?? [];
            expect(containers, `containers of ${service}`).to.have.length(1);
            return containers[0] as Container;
          };

          it('has a Deployment, a Service selecting its pods and a ServiceAccount it runs as', function () {
            const deployment = deploymentOf(service);
            expect(deployment, `Deployment ${service}`).to.exist;
            const podLabels = deployment?.template.metadata.labels ?? {};
            expect(selects(deployment?.selector.matchLabels ?? {}, podLabels)).to.equal(true);
            const serviceObject = find('Service', service);
            expect(serviceObject, `Service ${service}`).to.exist;
            expect(selects((serviceObject?.spec?.selector as Record<string, string>) ?? { missing: 'selector' }, podLabels)).to.equal(true);
            const account = deployment?.template.spec.serviceAccountName;
            expect(account).to.equal(service);
            expect(find('ServiceAccount', account ?? ''), `ServiceAccount ${account}`).to.exist;
          });

          it('has a PodDisruptionBudget over its pods', function () {
            const podLabels = deploymentOf(service)?.template.metadata.labels ?? {};
            const budgets = objects.filter(
              (object) =>
                object.kind === 'PodDisruptionBudget' &&
                selects((object.spec?.selector as { matchLabels: Record<string, string> }).matchLabels, podLabels),
            );
            expect(budgets, `PodDisruptionBudget for ${service}`).to.have.length(1);
          });

          it('probes liveness on /livez and readiness on /readyz at the port it listens on, which its Service targets', async function () {
            const container = containerOf();
            const port = listenPortOf(await serviceConfig(service), environmentOf(container));
            const resolve = (value: number | string | undefined) =>
              typeof value === 'string' ? container.ports?.find((item) => item.name === value)?.containerPort : value;
            expect(container.livenessProbe?.httpGet?.path).to.equal('/livez');
            expect(container.readinessProbe?.httpGet?.path).to.equal('/readyz');
            expect(resolve(container.livenessProbe?.httpGet?.port)).to.equal(port);
            expect(resolve(container.readinessProbe?.httpGet?.port)).to.equal(port);
            const servicePorts = (find('Service', service)?.spec?.ports as { targetPort?: number | string }[] | undefined) ?? [];
            expect(servicePorts.map((item) => resolve(item.targetPort))).to.include(port);
          });

          it('sets CPU and memory requests and limits', function () {
            const { requests, limits } = containerOf().resources ?? {};
            for (const resource of ['cpu', 'memory']) {
              expect(requests?.[resource], `requests.${resource}`).to.be.a('string');
              expect(limits?.[resource], `limits.${resource}`).to.be.a('string');
            }
          });

          it('runs as non-root on a read-only root filesystem without privilege escalation', function () {
            const pod = deploymentOf(service)?.template.spec;
            const security = containerOf().securityContext;
            expect(security?.runAsNonRoot ?? pod?.securityContext?.runAsNonRoot).to.equal(true);
            expect(security?.readOnlyRootFilesystem).to.equal(true);
            expect(security?.allowPrivilegeEscalation).to.equal(false);
            expect(security?.capabilities?.drop).to.include('ALL');
          });

          it('gets every setting its config requires in production from the ConfigMaps and the Secret', async function () {
            const config = await serviceConfig(service);
            const env = environmentOf(containerOf());
            expect(missingSettings(config, env), `settings of ${service} missing in overlay ${overlay}`).to.deep.equal([]);
            if (overlay === 'production' && service === 'publisher-identity') {
              // The overlay's bot and administrators are placeholders the operator sets before the first apply.
              expect(productionConfigProblem(config, env)).to.contain('ADMIN_ACCOUNT_IDS is the placeholder 1').and.to.contain('TELEGRAM_BOT_USERNAME is a placeholder');
              Object.assign(env, { ADMIN_ACCOUNT_IDS: '123456789', TELEGRAM_BOT_USERNAME: 'pilot_production_bot' });
            }
            expect(productionConfigProblem(config, env)).to.equal(undefined);
          });
        });
      }

      it('points the gateway at every service through its Service name and port', async function () {
        const env = environmentOf((deploymentOf('gateway')?.template.spec.containers ?? [])[0] as Container);
        const upstreams = Object.entries(env).filter(([name]) => name.endsWith('_URLS'));
        expect(upstreams.length).to.be.at.least(6);
        for (const [name, value] of upstreams) {
          for (const url of value.split(',')) {
            const target = new URL(url.trim());
            const serviceObject = find('Service', target.hostname);
            expect(serviceObject, `${name} points at ${target.hostname}, which is no Service`).to.exist;
            const ports = (serviceObject?.spec?.ports as { port: number }[]).map((item) => item.port);
            expect(ports, `${name} port`).to.include(Number(target.port));
          }
        }
      });
    });
  }
});
