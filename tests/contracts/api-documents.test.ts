/**
 * The two OpenAPI 3.1 documents (network: GET /api/network/openapi.json, workspace: GET
 * /api/workspace/openapi.json) are valid OpenAPI, their schemas compile under the one ajv of the
 * contracts, and their paths and methods are exactly the routes the services mount: each service's
 * route module is mounted on a bare express app (with inert dependencies; no handler runs) and its
 * router stack read back.
 */
import { compile, networkOpenApi, workspaceOpenApi } from '@pilot/contracts';
import { problemTypeOf } from '@pilot/platform';
import { expect } from 'chai';
import express, { type Express } from 'express';
import { METHODS } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mountRoutes as mountAllocation } from '../../services/allocation/src/http/routes';
import { mountRoutes as mountCampaign } from '../../services/campaign/src/http/routes';
import { mountRoutes as mountGateway } from '../../services/gateway/src/http/routes';
import { mountRoutes as mountNotification } from '../../services/notification/src/http/routes';
import { mountRoutes as mountPlacement } from '../../services/placement/src/http/routes';
import { mountAuthRoutes } from '../../services/publisher-identity/src/http/auth-routes';
import { mountPublisherRoutes } from '../../services/publisher-identity/src/http/publisher-routes';
import { mountRoutes as mountTracking } from '../../services/tracking/src/http/routes';

/** Dependencies whose handlers never run: the given settings, and any other property or call answers itself. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an inert stand-in for every dependency type
function inertWith(settings: Record<string, unknown> = {}): any {
  const inert: unknown = new Proxy(function inertDependency() {}, {
    get: (_target, key) => (typeof key === 'string' && key in settings ? settings[key] : key === 'then' ? undefined : inert),
    apply: () => inert,
  });
  return inert;
}
const inert = inertWith();

type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> } };

/**
 * `METHOD /path/{param}` of every route mounted by `mount`, HEAD left out (express answers HEAD with GET),
 * and routes for every method (`app.all`, which answer 405 to what the path does not take) left out.
 */
function mountedRoutes(mount: (app: Express) => void): string[] {
  const app = express();
  mount(app);
  const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack;
  const routes: string[] = [];
  for (const layer of stack) {
    if (!layer.route || Object.keys(layer.route.methods).length >= METHODS.length) continue;
    for (const path of [layer.route.path].flat()) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== 'head' && method !== '_all') routes.push(`${method.toUpperCase()} ${path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
      }
    }
  }
  return routes;
}

/** `METHOD /path` of every operation of a document, HEAD left out, and the paths whose HEAD it documents. */
function documentedRoutes(document: Record<string, unknown>): { routes: string[]; heads: string[] } {
  const routes: string[] = [];
  const heads: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head']) {
      if (!item[method]) continue;
      if (method === 'head') heads.push(path);
      else routes.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return { routes, heads };
}

const network = JSON.parse(JSON.stringify(networkOpenApi({ publicBaseUrl: 'https://pilot.example', problemType: (code) => problemTypeOf(code, 'https://pilot.example') }))) as Record<string, unknown>;
const workspace = workspaceOpenApi();
const DOCUMENT_ROUTES = new Set(['GET /api/network/openapi.json', 'GET /api/workspace/openapi.json']);
const under = (prefixes: string[]) => (route: string) => prefixes.some((prefix) => route.split(' ')[1]!.startsWith(prefix)) && !DOCUMENT_ROUTES.has(route);

const allMounted = [
  ...mountedRoutes((app) => mountAllocation(app, inertWith({ publicBaseUrl: 'https://pilot.example' }), inert)),
  ...mountedRoutes((app) => mountTracking(app, inert, inert)),
  ...mountedRoutes((app) => mountCampaign(app, inert)),
  ...mountedRoutes((app) => mountPlacement(app, inert)),
  ...mountedRoutes((app) => mountNotification(app, inert)),
  ...mountedRoutes((app) => mountAuthRoutes(app, inert, { webhookSecret: 'x', sessionCookie: 'pilot_session', sessionTtlSeconds: 60, secureCookies: false })),
  ...mountedRoutes((app) => mountPublisherRoutes(app, inert)),
  ...mountedRoutes((app) => mountGateway(app, { upstreams: inert, forward: inert, secret: 'x', siteOrigin: 'http://127.0.0.1', sessionCookie: 'pilot_session', sessions: inert, maxBodyBytes: 1024, workspaceWriteLimit: inert })),
];

describe('GET /api/workspace/openapi.json', () => {
  it('is answered by the gateway itself, without a session, with the generated document', async () => {
    const app = express();
    mountGateway(app, { upstreams: inert, forward: inert, secret: 'x', siteOrigin: 'http://127.0.0.1', sessionCookie: 'pilot_session', sessions: inert, maxBodyBytes: 1024, workspaceWriteLimit: inert });
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/api/workspace/openapi.json`);
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.match(/^application\/json/);
      expect(await answer.json()).to.deep.equal(workspace);
    } finally {
      server.close();
    }
  });
});

for (const [name, document, prefixes] of [
  ['network', network, ['/api/network/']],
  ['workspace', workspace, ['/api/auth/', '/api/workspace/', '/api/site/']],
] as const) {
  describe(`the ${name} API's OpenAPI document`, () => {
    it('is a valid OpenAPI 3.1 document', async () => {
      const { Validator } = await import('@seriousme/openapi-schema-validator');
      const result = await new Validator().validate(document);
      expect(result.valid, JSON.stringify(result.errors)).to.equal(true);
      expect(document.openapi).to.equal('3.1.0');
    });

    it('has component schemas that compile under the contracts ajv', () => {
      const schemas = (document.components as { schemas: Record<string, object> }).schemas;
      expect(Object.keys(schemas)).to.not.be.empty;
      for (const [schemaName, schema] of Object.entries(schemas)) expect(() => compile(schema), schemaName).to.not.throw();
    });

    it('describes exactly the routes the services mount', () => {
      const mounted = allMounted.filter(under([...prefixes]));
      const { routes, heads } = documentedRoutes(document);
      expect(mounted).to.not.be.empty;
      expect([...routes].sort()).to.deep.equal([...new Set(mounted)].sort());
      for (const path of heads) expect(mounted, `HEAD ${path} is answered by its GET`).to.include(`GET ${path}`);
    });
  });
}
