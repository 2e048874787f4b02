/**
 * Builds the package from nothing: dist/cjs (CommonJS) and dist/esm (ES modules), each with its .d.ts and
 * a package.json that tells Node which kind its .js files are. Run by `npm pack` (prepack) and
 * `pnpm --filter @pilot/network-client run build`.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.esm.json']) {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, project)], { stdio: 'inherit' });
}
writeFileSync(path.join(root, 'dist/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
writeFileSync(path.join(root, 'dist/esm/package.json'), `${JSON.stringify({ type: 'module' })}\n`);
