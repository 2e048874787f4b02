// Integration and end-to-end tests against real RabbitMQ, Redis and the MongoDB-compatible server.
// INTEGRATION_GROUP picks a part of them, so that scripts/test.sh runs two side by side (each test makes
// its own databases, Redis key prefix, exchanges and ports) and the one that stops the broker alone.
const ALL = ['packages/*/test/**/*.int.test.ts', 'services/*/test/**/*.int.test.ts', 'tests/**/*.test.ts'];
// Mostly waiting on a browser, a compiler or an image build: they share the cores well with the rest.
const BROWSER = ['tests/browser/**/*.test.ts', 'tests/publishers/**/*.test.ts', 'tests/deploy/**/*.test.ts'];
// Stops and starts RabbitMQ's application: nothing else may use the broker meanwhile.
const BROKER = ['tests/faults/infrastructure.test.ts'];
const GROUPS = {
  browser: { spec: BROWSER, ignore: [] },
  rest: { spec: ALL, ignore: [...BROWSER, ...BROKER] },
  broker: { spec: BROKER, ignore: [] },
};
const group = process.env.INTEGRATION_GROUP;
if (group !== undefined && !(group in GROUPS)) throw new Error(`INTEGRATION_GROUP: one of ${Object.keys(GROUPS).join(', ')}`);

module.exports = {
  ...require('./.mocharc.base.cjs'),
  ...(group === undefined ? { spec: ALL } : GROUPS[group]),
  // The spec reporter, and the slowest test files at the end.
  reporter: require.resolve('./scripts/lib/timed-spec-reporter.cjs'),
};
