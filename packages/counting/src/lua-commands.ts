/**
 * The pipeline's Lua scripts (src/lua, one atomic step in Redis each) as typed commands. The scripts build
 * the names of per-grain hashes from prefixes passed in ARGV (the grains are not known in advance), so the
 * pipeline needs one Redis, or one cluster slot for the deployment prefix.
 */
import path from 'node:path';
import { luaCommands } from '@pilot/platform';

/** What each script returns (its header tells its KEYS and ARGV). */
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
  readUnfolded: [owners: (string | null)[], ...parts: [seq: number, grain: string, pairs: string[], campaignOwner?: string | null, publisherOwner?: string | null][]];
}

/** src/lua from src/ (tsx) and from dist/ alike: the package ships src/ beside dist/. */
const LUA_DIR = path.join(__dirname, '..', 'src', 'lua');

export const countCommandsOn = luaCommands<Replies>(LUA_DIR, 'pilotCount_', {
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
});

export type CountCommands = ReturnType<typeof countCommandsOn>;

/** A hash as HGETALL lists it ({field, value, ...}) inside a script's reply: field -> count. */
export function pairsToMap(pairs: string[]): Map<string, number> {
  const fields = new Map<string, number>();
  for (let i = 0; i + 1 < pairs.length; i += 2) fields.set(pairs[i]!, Number(pairs[i + 1]));
  return fields;
}
