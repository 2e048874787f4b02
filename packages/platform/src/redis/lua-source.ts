/**
 * A Lua script's source as Redis runs it: each `-- uses: <file>.lua` line is replaced by that file of the
 * same folder (a function several scripts share), since Redis runs one chunk per script and a script
 * cannot load another. One level deep: a used file names no other.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const USES_LINE = /^-- uses: ([\w.-]+\.lua)$/gm;

export function readLuaScript(dir: string, file: string): string {
  return readFileSync(path.join(dir, file), 'utf8').replace(USES_LINE, (_line, used: string) => readFileSync(path.join(dir, used), 'utf8').trimEnd());
}

