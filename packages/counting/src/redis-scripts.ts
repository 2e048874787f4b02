import type { Redis } from 'ioredis';
import * as scripts from './scripts';

type ScriptName = keyof typeof scripts;
type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/** The pipeline's scripts defined on one client (EVALSHA, loaded again by ioredis when Redis forgot them). */
export class CountScripts {
  constructor(private readonly redis: Redis) {
    for (const [name, script] of Object.entries(scripts)) {
      if (!(commandName(name as ScriptName) in redis)) redis.defineCommand(commandName(name as ScriptName), script);
    }
  }

  run(name: ScriptName, ...args: (string | number)[]): Promise<unknown> {
    const call = (this.redis as unknown as Record<string, ScriptCall>)[commandName(name)];
    if (!call) throw new Error(`script ${name} is not defined`);
    return call.apply(this.redis, args);
  }
}

function commandName(name: ScriptName): string {
  return `pilotCount_${name}`;
}
