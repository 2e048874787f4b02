/**
 * The example bot as a publisher installs it: copied out of the repository into a temporary folder (no
 * pnpm workspace, no repository settings above it), the network client packed with `npm run tarball` by the
 * example's own scripts/pack-client.sh, then `npm install`, `npm run build` and its own unit tests, exactly
 * as its README says. npm reads the public registry for grammY and TypeScript.
 */
import { execFile, type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPO_ROOT = resolve(__dirname, '../../..');
export const CLIENT_DIR = join(REPO_ROOT, 'clients/network');
const EXAMPLE_DIR = join(REPO_ROOT, 'examples/publisher-bot');
/** What a checkout may hold that a copy must not take along: installs and builds of an earlier run. */
const LEFT_BEHIND = new Set(['node_modules', 'dist', 'vendor', 'package-lock.json', 'tsconfig.tsbuildinfo']);

/** The environment of a command run as an outsider would: without the npm_* settings of this test run. */
export function outsideEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  return { ...env, ...extra };
}

export interface OutsideProject {
  dir: string;
  /** Loads a module as the project's own code would (`./dist/bot.js`, `@pilot/network-client`) into this process. */
  load<T>(path: string): T;
  remove(): Promise<void>;
}

async function step(command: string, args: string[], cwd: string): Promise<void> {
  try {
    await run(command, args, { cwd, env: outsideEnv(), timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

/** examples/publisher-bot, installed and built outside the repository against the packed client. */
export async function installExampleBot(): Promise<OutsideProject> {
  const root = await mkdtemp(join(tmpdir(), 'pilot-outside-'));
  const dir = join(root, 'publisher-bot');
  await cp(EXAMPLE_DIR, dir, {
    recursive: true,
    filter: (source) => !relative(EXAMPLE_DIR, source).split(sep).some((part) => LEFT_BEHIND.has(part)),
  });
  await step('sh', ['scripts/pack-client.sh', CLIENT_DIR], dir);
  await step('npm', ['install', '--no-audit', '--no-fund'], dir);
  await step('npm', ['run', 'build'], dir);
  await step('npm', ['test'], dir);
  const requireFromProject = createRequire(join(dir, 'package.json'));
  return {
    dir,
    load: <T>(path: string) => requireFromProject(path) as T,
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

export interface RunningProcess {
  child: ChildProcess;
  /** Every JSON line it printed so far. */
  lines: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Starts `node <script>` in `cwd` and collects the JSON lines it prints. */
export function startNode(cwd: string, script: string, env: NodeJS.ProcessEnv): RunningProcess {
  const child = spawn(process.execPath, [script], { cwd, env: outsideEnv(env), stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ text: line });
    }
  });
  return {
    child,
    lines,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
