/**
 * The Lua scripts (src/lua; each header tells its KEYS, ARGV and reply) as typed commands. They build key
 * names from prefixes in ARGV, so the pipeline needs one Redis, or one cluster slot for the prefix.
 */
import path from 'node:path';
import { luaCommands } from '@pilot/platform';

interface Replies {
  countAdRequest: [consumed: number, msBeforeReset: number, counted: number, allowed: number];
  countOnce: number;
  countEveryTime: number;
  claimInterval: number;
  sweep: number;
  readGrains: [grain: string, seq: number, pairs: string[]][];
  readUnfolded: [owners: (string | null)[], ...parts: [seq: number, grain: string, pairs: string[], campaignOwner?: string | null, publisherOwner?: string | null][]];
}

/** src/lua from src/ (tsx) and from dist/ alike: the package ships src/ beside dist/. */
const LUA_DIR = path.join(__dirname, '..', 'src', 'lua');

export const countCommandsOn = luaCommands<Replies>(LUA_DIR, 'pilotCount_', {
  countAdRequest: { file: 'count-ad-request.lua', numberOfKeys: 4 },
  countOnce: { file: 'count-once.lua', numberOfKeys: 5 },
  countEveryTime: { file: 'count-every-time.lua', numberOfKeys: 2 },
  claimInterval: { file: 'claim-interval.lua', numberOfKeys: 3 },
  sweep: { file: 'sweep.lua', numberOfKeys: 2 },
  readGrains: { file: 'read-grains.lua', numberOfKeys: 0 },
  readUnfolded: { file: 'read-unfolded.lua', numberOfKeys: 5 },
});

export type CountCommands = ReturnType<typeof countCommandsOn>;

/** A hash as HGETALL lists it inside a script's reply ({field, value, ...}): field -> count. */
export function pairsToMap(pairs: string[]): Map<string, number> {
  const fields = new Map<string, number>();
  for (let i = 0; i + 1 < pairs.length; i += 2) fields.set(pairs[i]!, Number(pairs[i + 1]));
  return fields;
}
