// Integration and end-to-end tests against real RabbitMQ, Redis and the MongoDB-compatible server.
// INTEGRATION_GROUP picks a part of them, so that scripts/test.sh runs two side by side (each test makes
// its own databases, Redis key prefix, exchanges and ports), then the fault tests alone.
const ALL = ['packages/*/test/**/*.int.test.ts', 'services/*/test/**/*.int.test.ts', 'tests/**/*.test.ts'];
// Mostly waiting on a browser, a compiler or an image build: they share the cores well with the rest.
const BROWSER = ['tests/browser/**/*.test.ts', 'tests/publishers/**/*.test.ts', 'tests/deploy/**/*.test.ts'];
// Kill processes, restart Redis and stop RabbitMQ's application (nothing else may use the broker meanwhile),
// with deadlines on the recovery: they run with the machine to themselves.
const FAULTS = ['tests/faults/**/*.test.ts'];
const GROUPS = {
  browser: { spec: BROWSER, ignore: [] },
  rest: { spec: ALL, ignore: [...BROWSER, ...FAULTS] },
  faults: { spec: FAULTS, ignore: [] },
};
const group = process.env.INTEGRATION_GROUP;
if (group !== undefined && !(group in GROUPS)) throw new Error(`INTEGRATION_GROUP: one of ${Object.keys(GROUPS).join(', ')}`);

module.exports = {
  ...require('./.mocharc.base.cjs'),
  ...(group === undefined ? { spec: ALL } : GROUPS[group]),
  // The spec reporter, and the slowest test files at the end.
  reporter: require.resolve('./scripts/lib/timed-spec-reporter.cjs'),
};
