/** The read model's Lua scripts (lua/ beside this file, one atomic step in Redis each) as typed commands. */
import path from 'node:path';
import { luaCommands } from '@pilot/platform';

/** What each script returns (its header tells its KEYS and ARGV). */
interface Replies {
  checkKey: (string | null)[] | null;
  writePublisher: number;
  sweepPublisher: number;
  sweepKey: number;
}

/** src/read-model/lua from src/read-model (tsx) and from dist/read-model alike: the package ships src/ beside dist/. */
const LUA_DIR = path.join(__dirname, '..', '..', 'src', 'read-model', 'lua');

export const keyReadModelCommandsOn = luaCommands<Replies>(LUA_DIR, 'pilotKeyReadModel_', {
  checkKey: { file: 'check-key.lua', numberOfKeys: 1 },
  writePublisher: { file: 'write-publisher.lua', numberOfKeys: 'first argument' },
  sweepPublisher: { file: 'sweep-publisher.lua', numberOfKeys: 1 },
  sweepKey: { file: 'sweep-key.lua', numberOfKeys: 1 },
});
