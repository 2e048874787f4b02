// Integration and end-to-end tests against real RabbitMQ, Redis and the MongoDB-compatible server.
module.exports = {
  ...require('./.mocharc.base.cjs'),
  spec: ['packages/*/test/**/*.int.test.ts', 'services/*/test/**/*.int.test.ts', 'tests/**/*.test.ts'],
  // The spec reporter, and the slowest test files at the end.
  reporter: require.resolve('./scripts/lib/timed-spec-reporter.cjs'),
};
