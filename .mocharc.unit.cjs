// Unit tests: pure logic, no infrastructure. Fast; run first.
module.exports = {
  ...require('./.mocharc.base.cjs'),
  spec: ['packages/*/test/**/*.unit.test.ts', 'clients/network/test/**/*.unit.test.ts', 'services/*/test/**/*.unit.test.ts'],
  timeout: 10_000,
};
