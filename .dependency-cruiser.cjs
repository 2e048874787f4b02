/**
 * Dependency rules: a service never imports another service's code, packages never import services,
 * and nothing imports a package's internals past its entry point. The shared packages are layered:
 * the service platform (packages/platform) and the contracts at the bottom; storage on them; messaging on
 * them and storage (its outbox relay reads the store's pending entries); publisher keys on the platform
 * (its Redis area included) and the contracts. Services may use any package. The published client
 * (clients/network) stands alone. The platform builds on no other workspace package, and its areas are
 * layered: an area imports only areas of the layers below it, through their index.ts.
 * Run: pnpm run depcheck
 */
const PLATFORM = '^packages/platform/src/';
/** The bottom layer: what storage, messaging and publisher keys build on. */
const FOUNDATION = '^packages/(contracts|platform)/';

/** The platform's areas, lowest layer first. Tracing stands beside them (rules below). */
const PLATFORM_LAYERS = [
  ['config', 'logging', 'infrastructure-errors'],
  ['problems', 'redis'],
  ['metrics', 'internal-auth', 'lifecycle'],
  ['http', 'http-client'],
];

const platformLayerRules = PLATFORM_LAYERS.map((areas, layer) => {
  const below = PLATFORM_LAYERS.slice(0, layer).flat();
  return {
    name: `platform-layer-${layer}-imports-only-layers-below`,
    comment: `${areas.join(', ')} import${below.length ? ` no area of the platform but ${below.join(', ')}` : ' no other area of the platform'}.`,
    severity: 'error',
    from: { path: `${PLATFORM}(${areas.join('|')})/` },
    // The tracing entry's own rules say who may import it (below).
    to: { path: PLATFORM, pathNot: [`${PLATFORM}$1/`, `${PLATFORM}tracing/index\\.ts$`, ...(below.length ? [`${PLATFORM}(${below.join('|')})/`] : [])] },
  };
});

module.exports = {
  forbidden: [
    ...platformLayerRules,
    {
      name: 'platform-stands-alone',
      comment: 'The service platform builds on no other workspace package; the others build on it.',
      severity: 'error',
      from: { path: '^packages/platform/', pathNot: '^packages/platform/test/' },
      to: { path: '^(packages|services)/', pathNot: '^packages/platform/' },
    },
    {
      name: 'platform-tests-use-only-the-test-kit',
      comment: "The platform's tests use the test kit (real Redis, ports) besides the platform itself.",
      severity: 'error',
      from: { path: '^packages/platform/test/' },
      to: { path: '^(packages|services)/', pathNot: '^packages/(platform|testkit)/' },
    },
    {
      name: 'platform-areas-meet-at-their-index',
      comment: "An area of the platform imports another through that area's index.ts, never its other files.",
      severity: 'error',
      from: { path: `${PLATFORM}([^/]+)/` },
      to: { path: `${PLATFORM}[^/]+/`, pathNot: [`${PLATFORM}$1/`, `${PLATFORM}[^/]+/index\\.ts$`] },
    },
    {
      name: 'platform-tracing-builds-on-logging-alone',
      severity: 'error',
      from: { path: `${PLATFORM}tracing/` },
      to: { path: PLATFORM, pathNot: [`${PLATFORM}tracing/`, `${PLATFORM}logging/`] },
    },
    {
      name: 'platform-tracing-only-from-its-entry',
      comment:
        'Tracing starts before express and http load, so nothing in the platform pulls it in with them; the service app alone asks its entry (which loads no SDK) whether it started, for the server spans.',
      severity: 'error',
      from: { path: PLATFORM, pathNot: [`${PLATFORM}tracing/`, `${PLATFORM}http/app\\.ts$`] },
      to: { path: `${PLATFORM}tracing/` },
    },
    {
      name: 'platform-service-app-meets-tracing-at-its-entry',
      severity: 'error',
      from: { path: `${PLATFORM}http/app\\.ts$` },
      to: { path: `${PLATFORM}tracing/`, pathNot: `${PLATFORM}tracing/index\\.ts$` },
    },
    {
      name: 'storage-builds-on-the-platform',
      comment: 'Storage uses only the platform and the contracts (never messaging: the relay depends on storage).',
      severity: 'error',
      from: { path: '^packages/storage/src/' },
      to: { path: '^packages/', pathNot: [FOUNDATION, '^packages/storage/'] },
    },
    {
      name: 'messaging-builds-on-the-platform-and-storage',
      severity: 'error',
      from: { path: '^packages/messaging/src/' },
      to: { path: '^packages/', pathNot: [FOUNDATION, '^packages/(storage|messaging)/'] },
    },
    {
      name: 'publisher-keys-build-on-the-platform',
      comment: 'Publisher keys use only the platform (its Redis area included) and the contracts.',
      severity: 'error',
      from: { path: '^packages/publisher-keys/src/' },
      to: { path: '^packages/', pathNot: [FOUNDATION, '^packages/publisher-keys/'] },
    },
    {
      name: 'contracts-stand-alone',
      comment: 'The contracts are the bottom layer beside the platform: they import no workspace package.',
      severity: 'error',
      from: { path: '^packages/contracts/' },
      to: { path: '^(packages|services)/', pathNot: '^packages/contracts/' },
    },
    {
      name: 'the-client-stands-alone',
      comment: 'clients/network is published and built outside this repository: it imports no workspace code.',
      severity: 'error',
      from: { path: '^clients/' },
      to: { path: '^(packages|services|tests)/' },
    },
    {
      name: 'no-cross-service-imports',
      comment: 'Services share code only through packages/; talk to another service over HTTP or the bus.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/([^/]+)/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages-do-not-import-services',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      // Vite's virtual modules (virtual:*) exist only inside the frontend's bundler.
      to: { couldNotResolve: true, pathNot: '^virtual:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|public)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    combinedDependencies: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
