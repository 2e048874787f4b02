/**
 * The pipeline's Lua scripts (src/lua, one atomic step in Redis each), read once and defined as commands
 * on a client (EVALSHA; ioredis loads a script again when Redis has forgotten it). The scripts build the
 * names of per-grain hashes from prefixes passed in ARGV (the grains are not known in advance), so the
 * pipeline needs one Redis, or one cluster slot for the deployment prefix (docs/decisions/0013).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';

/** What each script returns (see its header for its KEYS and ARGV). */
interface Replies {
  countAdRequest: [consumed: number, msBeforeReset: number, counted: number, allowed: number];
  countOnce: number;
  markOnce: number;
  countEveryTime: number;
  claimInterval: number;
  gatherGrains: number;
  scanGrains: [cursor: string, grains: string[]] | null;
  readGrains: [grain: string, seq: number, pairs: string[]][];
  sweep: [folds: number, hours: number];
  readUnfolded: [owners: (string | null)[], keptFolds: [above: number, through: number], ...parts: [seq: number, grain: string, pairs: string[]][]];
  holdLease: number;
}

type CommandName = keyof Replies;

/** The scripts by command name: their file under src/lua and how many of their arguments are KEYS. */
const SCRIPTS: Record<CommandName, { file: string; numberOfKeys: number }> = {
  countAdRequest: { file: 'count-ad-request.lua', numberOfKeys: 4 },
  countOnce: { file: 'count-once.lua', numberOfKeys: 5 },
  markOnce: { file: 'mark-once.lua', numberOfKeys: 1 },
  countEveryTime: { file: 'count-every-time.lua', numberOfKeys: 2 },
  claimInterval: { file: 'claim-interval.lua', numberOfKeys: 3 },
  gatherGrains: { file: 'gather-grains.lua', numberOfKeys: 1 },
  scanGrains: { file: 'scan-grains.lua', numberOfKeys: 1 },
  readGrains: { file: 'read-grains.lua', numberOfKeys: 0 },
  sweep: { file: 'sweep.lua', numberOfKeys: 2 },
  readUnfolded: { file: 'read-unfolded.lua', numberOfKeys: 5 },
  holdLease: { file: 'hold-lease.lua', numberOfKeys: 1 },
};

/** src/lua from src/ (tsx) and from dist/ alike: the package ships src/ beside dist/. */
const LUA_DIR = path.join(__dirname, '..', 'src', 'lua');

/** Read once, when the module loads, so a missing script fails the start rather than a request. */
const SOURCES = new Map(Object.entries(SCRIPTS).map(([name, { file }]) => [name, readFileSync(path.join(LUA_DIR, file), 'utf8')]));

type Arg = string | number;

/** The scripts as calls: KEYS first, then ARGV, as each script's header lists them. */
export type CountCommands = { [Name in CommandName]: (...keysThenArgs: Arg[]) => Promise<Replies[Name]> };

/** Defines the scripts on `redis` (once per client) and returns them as typed calls. */
export function countCommandsOn(redis: Redis): CountCommands {
  const commands: Partial<Record<CommandName, (...keysThenArgs: Arg[]) => Promise<unknown>>> = {};
  for (const [name, { numberOfKeys }] of Object.entries(SCRIPTS) as [CommandName, (typeof SCRIPTS)[CommandName]][]) {
    const command = `pilotCount_${name}`;
    if (!(command in redis)) redis.defineCommand(command, { numberOfKeys, lua: SOURCES.get(name)! });
    // defineCommand adds the script as a method of the client, which ioredis's types cannot know.
    const call: unknown = Reflect.get(redis, command);
    if (typeof call !== 'function') throw new Error(`script ${name} is not defined`);
    commands[name] = (...keysThenArgs) => Promise.resolve(Reflect.apply(call, redis, keysThenArgs));
  }
  return commands as CountCommands;
}

/** A hash as HGETALL lists it ({field, value, ...}) inside a script's reply: field -> count. */
export function pairsToMap(pairs: string[]): Map<string, number> {
  const fields = new Map<string, number>();
  for (let i = 0; i + 1 < pairs.length; i += 2) fields.set(pairs[i]!, Number(pairs[i + 1]));
  return fields;
}
