/**
 * `npm pack` (and `npm publish`) in this folder would pack whatever dist/ holds: the workspace's own build,
 * without the ES module build. The tarball is made by scripts/pack.mjs, which builds a staged copy.
 */
console.error('Pack with `npm run tarball -- <destination folder>` (scripts/pack.mjs builds a staged copy; dist/ is the workspace build).');
process.exit(1);
