// Mocha's spec reporter, and at the end the test files that took longest (each file's suites, its hooks
// included, and how much of it went to the hooks: set-up such as starting a system). Used by
// .mocharc.integration.cjs. With TEST_TIMES_FILE set, every file's times are also written there as JSON,
// to compare two runs file by file.
const Mocha = require('mocha');
const fs = require('node:fs');
const path = require('node:path');

const SHOWN = 15;

/** The top-level suite of a test file that `runnable` (a hook or a suite) belongs to. */
function fileSuiteOf(runnable) {
  let suite = runnable.parent;
  while (suite && suite.parent && !suite.parent.root) suite = suite.parent;
  return suite && suite.file && suite.parent ? suite : undefined;
}

class TimedSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const perFile = new Map();
    const hooksPerFile = new Map();
    const hookStarted = new Map();
    const fileOf = (suite) => path.relative(process.cwd(), suite.file);
    runner.on('suite', (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on('suite end', (suite) => {
      const at = started.get(suite);
      if (at === undefined) return;
      const file = fileOf(suite);
      perFile.set(file, (perFile.get(file) ?? 0) + (Date.now() - at));
    });
    runner.on('hook', (hook) => hookStarted.set(hook, Date.now()));
    runner.on('hook end', (hook) => {
      const at = hookStarted.get(hook);
      hookStarted.delete(hook);
      const suite = fileSuiteOf(hook);
      if (at === undefined || !suite) return;
      const file = fileOf(suite);
      hooksPerFile.set(file, (hooksPerFile.get(file) ?? 0) + (Date.now() - at));
    });
    runner.once('end', () => {
      const seconds = (ms) => (ms / 1000).toFixed(1);
      const slowest = [...perFile.entries()].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
      if (slowest.length === 0) return;
      const total = [...perFile.values()].reduce((sum, ms) => sum + ms, 0);
      const hooks = [...hooksPerFile.values()].reduce((sum, ms) => sum + ms, 0);
      process.stdout.write(`\n  slowest test files (${perFile.size} files, ${seconds(total)} s in all, ${seconds(hooks)} s of it in hooks)\n`);
      for (const [file, ms] of slowest) {
        process.stdout.write(`  ${seconds(ms).padStart(7)} s  ${`(hooks ${seconds(hooksPerFile.get(file) ?? 0)} s)`.padEnd(17)} ${file}\n`);
      }
      if (process.env.TEST_TIMES_FILE) {
        const times = Object.fromEntries([...perFile.entries()].sort().map(([file, ms]) => [file, { ms, hooksMs: hooksPerFile.get(file) ?? 0 }]));
        fs.writeFileSync(process.env.TEST_TIMES_FILE, `${JSON.stringify(times, null, 2)}\n`);
      }
    });
  }
}

module.exports = TimedSpec;
