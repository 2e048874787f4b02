import type { Redis } from 'ioredis';
import * as scripts from './scripts';

type ScriptName = keyof typeof scripts;

/** The pipeline's scripts defined on one client (EVALSHA, loaded again by ioredis when Redis forgot them). */
export class CountScripts {
  constructor(private readonly redis: Redis) {
    for (const [name, script] of Object.entries(scripts)) {
      if (!(commandName(name as ScriptName) in redis)) redis.defineCommand(commandName(name as ScriptName), script);
    }
  }

  run(name: ScriptName, ...args: (string | number)[]): Promise<unknown> {
    // defineCommand adds the script as a method of the client, which ioredis's types cannot know.
    const call: unknown = Reflect.get(this.redis, commandName(name));
    if (typeof call !== 'function') throw new Error(`script ${name} is not defined`);
    return Promise.resolve(Reflect.apply(call, this.redis, args));
  }
}

function commandName(name: ScriptName): string {
  return `pilotCount_${name}`;
}
