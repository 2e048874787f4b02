// Mocha's spec reporter, and at the end the test files that took longest (each file's suites, its hooks
// included): where the time of the integration run goes. Used by .mocharc.integration.cjs.
const Mocha = require('mocha');
const path = require('node:path');

const SHOWN = 15;

class TimedSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const perFile = new Map();
    runner.on('suite', (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on('suite end', (suite) => {
      const at = started.get(suite);
      if (at === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      perFile.set(file, (perFile.get(file) ?? 0) + (Date.now() - at));
    });
    runner.once('end', () => {
      const slowest = [...perFile.entries()].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
      if (slowest.length === 0) return;
      const total = [...perFile.values()].reduce((sum, ms) => sum + ms, 0);
      process.stdout.write(`\n  slowest test files (${perFile.size} files, ${(total / 1000).toFixed(0)} s in all)\n`);
      for (const [file, ms] of slowest) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`);
    });
  }
}

module.exports = TimedSpec;
