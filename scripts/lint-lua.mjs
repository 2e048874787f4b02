// Lints the Redis Lua scripts (every .lua file under packages/ and services/), each as Redis runs it (its
// `-- uses:` lines replaced by the files they name, by the loader's own code): it must parse as Lua 5.1
// (Redis' Lua) and use no global but those Redis gives a script (Redis refuses to create one).
// Run: pnpm run lint (after eslint), or node scripts/lint-lua.mjs
import { readdirSync } from 'node:fs';
import path from 'node:path';
import luaparse from 'luaparse';
import { tsImport } from 'tsx/esm/api';

const { readLuaScript } = await tsImport('../packages/platform/src/redis/lua-source.ts', import.meta.url);

const ROOTS = ['packages', 'services'];
const SKIPPED = /(^|\/)(node_modules|dist)(\/|$)/;

/** What Redis gives a script: its arguments, its libraries and Lua's base functions. */
const REDIS_GLOBALS = new Set([
  'KEYS', 'ARGV', 'redis', 'cjson', 'cmsgpack', 'bit', 'struct',
  'table', 'string', 'math',
  'tonumber', 'tostring', 'type', 'pairs', 'ipairs', 'next', 'select', 'unpack',
  'error', 'assert', 'pcall', 'xpcall', 'rawget', 'rawset', 'rawequal', 'setmetatable', 'getmetatable',
]);

function luaFiles() {
  return ROOTS.flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .map((name) => path.join(root, name))
      .filter((file) => file.endsWith('.lua') && !SKIPPED.test(file)),
  ).sort();
}

/** Problems of one script. */
function lintScript(file, source) {
  // A first line `#!lua flags=...` is Redis' shebang, not Lua: read it as a comment of the same length.
  const lua = source.startsWith('#!') ? `--${source.slice(2)}` : source;
  let chunk;
  try {
    chunk = luaparse.parse(lua, { luaVersion: '5.1', scope: true, locations: true, comments: false });
  } catch (error) {
    return [`${file}: ${error.message}`];
  }
  return chunk.globals
    .filter((identifier) => !REDIS_GLOBALS.has(identifier.name))
    .map((identifier) => `${file}:${identifier.loc.start.line}: global '${identifier.name}' (declare it local, or it is a typo)`);
}

const problems = luaFiles().flatMap((file) => lintScript(file, readLuaScript(path.dirname(file), path.basename(file))));

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
