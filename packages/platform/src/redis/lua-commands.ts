/**
 * Lua scripts kept as .lua files (each with a header telling its KEYS, ARGV and reply, and `-- uses:` lines
 * naming the shared functions put in its place: lua-source.ts), defined on a client as commands: EVALSHA,
 * and ioredis loads a script again when Redis has forgotten it.
 */
import type { Redis } from 'ioredis';
import { readLuaScript } from './lua-source';

export interface LuaScript {
  /** The file's name in the scripts' folder. */
  file: string;
  /** How many of the command's arguments are KEYS (the rest are ARGV); 'first argument' when each call says. */
  numberOfKeys: number | 'first argument';
}

type LuaArg = string | number;

/**
 * The scripts as calls, by name: KEYS first, then ARGV (after the number of KEYS, for a script whose
 * calls say it); each answers what `Replies` says it does.
 */
export type LuaCommands<Replies> = { [Name in keyof Replies]: (...keysThenArgs: LuaArg[]) => Promise<Replies[Name]> };

/**
 * Reads the scripts from `dir` now (so a missing one fails the start, not a request) and returns what
 * defines them on a client, once per client, as commands named `<prefix><name>`.
 */
export function luaCommands<Replies>(dir: string, prefix: string, scripts: { [Name in keyof Replies]: LuaScript }): (redis: Redis) => LuaCommands<Replies> {
  const sources = Object.entries<LuaScript>(scripts).map(([name, { file, numberOfKeys }]) => ({
    name,
    command: `${prefix}${name}`,
    numberOfKeys,
    lua: readLuaScript(dir, file),
  }));
  return (redis) => {
    const calls: Record<string, (...keysThenArgs: LuaArg[]) => Promise<unknown>> = {};
    for (const { name, command, numberOfKeys, lua } of sources) {
      if (!(command in redis)) redis.defineCommand(command, numberOfKeys === 'first argument' ? { lua } : { numberOfKeys, lua });
      // defineCommand adds the script as a method of the client, which ioredis's types cannot know.
      const call: unknown = Reflect.get(redis, command);
      if (typeof call !== 'function') throw new Error(`script ${name} is not defined`);
      calls[name] = (...keysThenArgs) => Promise.resolve(Reflect.apply(call, redis, keysThenArgs));
    }
    return calls as LuaCommands<Replies>;
  };
}
