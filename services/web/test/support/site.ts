/**
 * The built site for tests. dist/site is used when it is newer than every frontend source (the full test
 * run builds first); otherwise one fresh `vite build` per test process goes into a temporary folder, so
 * the tests never run against a stale build.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const WEB_DIR = path.resolve(__dirname, '..', '..');
const FRONTEND = path.join(WEB_DIR, 'frontend');
const DIST_SITE = path.join(WEB_DIR, 'dist', 'site');
let built: Promise<string> | undefined;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function freshDistSite(): boolean {
  try {
    const index = fs.statSync(path.join(DIST_SITE, 'index.html')).mtimeMs;
    return index > Math.max(newestSource(FRONTEND), fs.statSync(path.join(WEB_DIR, 'package.json')).mtimeMs);
  } catch {
    return false;
  }
}

export function builtSite(): Promise<string> {
  built ??= (async () => {
    if (freshDistSite()) return DIST_SITE;
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pilot-web-site-'));
    const vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [WEB_DIR] })), 'bin', 'vite.js');
    await run(process.execPath, [vite, 'build', '--config', 'frontend/vite.config.ts', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
      cwd: WEB_DIR,
      maxBuffer: 16 * 1024 * 1024,
    });
    return outDir;
  })();
  return built;
}
