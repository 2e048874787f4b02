// Settings shared by every mocha run; a subset run (scripts/test.sh <spec>) uses this file alone.
module.exports = {
  require: ['tsx/cjs'],
  extension: ['ts'],
  timeout: 60_000,
  exit: true,
};
