// Lints the Redis Lua scripts (every .lua file under packages/ and services/): each must parse as Lua 5.1
// (Redis' Lua), use no global but those Redis gives a script (Redis refuses to create one), and a local
// function that several scripts of a folder define (a script cannot load another) must be the same text
// in each. Run: pnpm run lint (after eslint), or node scripts/lint-lua.mjs
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import luaparse from 'luaparse';

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

/** Problems of one script, and its top-level local functions by name (their text). */
function lintScript(file, source) {
  // A first line `#!lua flags=...` is Redis' shebang, not Lua: read it as a comment of the same length.
  const lua = source.startsWith('#!') ? `--${source.slice(2)}` : source;
  let chunk;
  try {
    chunk = luaparse.parse(lua, { luaVersion: '5.1', scope: true, locations: true, ranges: true, comments: false });
  } catch (error) {
    return { problems: [`${file}: ${error.message}`], functions: new Map() };
  }
  const problems = chunk.globals
    .filter((identifier) => !REDIS_GLOBALS.has(identifier.name))
    .map((identifier) => `${file}:${identifier.loc.start.line}: global '${identifier.name}' (declare it local, or it is a typo)`);
  const functions = new Map();
  for (const statement of chunk.body) {
    if (statement.type === 'FunctionDeclaration' && statement.isLocal && statement.identifier) {
      functions.set(statement.identifier.name, lua.slice(statement.range[0], statement.range[1]));
    }
  }
  return { problems, functions };
}

const files = luaFiles();
const problems = [];
/** folder -> function name -> [file, text] of its first definition. */
const shared = new Map();
for (const file of files) {
  const result = lintScript(file, readFileSync(file, 'utf8'));
  problems.push(...result.problems);
  const folder = path.dirname(file);
  if (!shared.has(folder)) shared.set(folder, new Map());
  const defined = shared.get(folder);
  for (const [name, text] of result.functions) {
    const first = defined.get(name);
    if (!first) defined.set(name, [file, text]);
    else if (first[1] !== text) problems.push(`${file}: local function '${name}' differs from its copy in ${first[0]}`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
