/**
 * Packs the package as publishers install it, without touching this folder's dist/ (the workspace's own
 * build): the sources are staged in a temporary folder outside the repository, built there from nothing
 * (scripts/build.mjs, against this package's node_modules), and packed there with `npm pack`.
 *
 *   node scripts/pack.mjs <destination folder>      prints the tarball's path
 *
 * `npm pack` run in this folder is refused (scripts/refuse-unstaged-pack.mjs): it would pack whatever
 * dist/ holds. The tarball is reproducible: npm gives every entry the same time stamp, so the same
 * sources give the same bytes and the same checksum.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAGED = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.esm.json', 'src', 'scripts'];

/** Packs into `destination` (created when missing) and answers the tarball's absolute path. */
export function packClient(destination) {
  const stage = mkdtempSync(path.join(tmpdir(), 'pilot-network-client-'));
  try {
    for (const entry of STAGED) cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
    execFileSync(process.execPath, [path.join(stage, 'scripts/build.mjs')], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
    mkdirSync(destination, { recursive: true });
    const before = new Set(readdirSync(destination));
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', path.resolve(destination)], {
      cwd: stage,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))),
    });
    const packed = readdirSync(destination).find((name) => name.endsWith('.tgz') && !before.has(name));
    if (!packed) throw new Error(`npm pack left no new tarball in ${destination}`);
    return path.resolve(destination, packed);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2];
  if (!destination) {
    console.error('usage: node scripts/pack.mjs <destination folder>');
    process.exit(2);
  }
  process.stdout.write(`${packClient(destination)}\n`);
}
