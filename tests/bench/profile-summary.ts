/**
 * Where a V8 CPU profile (BENCH_PROFILE, `.data/bench/<run>/profiles/*.cpuprofile`) spends its time: self
 * time by where the code lives (the project's packages and services, each npm package, Node's own modules,
 * the garbage collector and the idle loop), the functions with the most self time, then the functions with
 * the most total time (themselves and what they call). Samples under module loading (the process starting)
 * are left out and their total is printed.
 *
 *   node --import tsx tests/bench/profile-summary.ts <file.cpuprofile> [functions=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function placeOf(url: string, name: string): string {
  if (name === '(garbage collector)' || name === '(idle)' || name === '(program)' || name === '(root)') return name;
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, url.startsWith('node:internal/') ? 2 : 1).join('/')}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return (rest[0] ?? '').startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const project = /\/(packages|services)\/([^/]+)\//.exec(url);
  return project ? `${project[1]}/${project[2]}` : url;
}

/** Coarser groups of places, for the question "what kind of work is it". */
const ACTIVITIES: [string, RegExp][] = [
  ['logging (pino, pino-http, redaction, serializers)', /^(pino|pino-http|pino-std-serializers|@pinojs\/redact|sonic-boom|packages\/logging)/],
  ['HTTP framework (express, router, helmet, body parsing, metrics)', /^(express|router|helmet|body-parser|raw-body|type-is|mime-types|mime-db|parseurl|finalhandler|send|on-finished|content-type|qs|depd|prom-client|ajv|packages\/http-kit)/],
  ['proxying (http-proxy, http-proxy-middleware)', /^(http-proxy|http-proxy-middleware)/],
  ['Redis client (ioredis)', /^(ioredis|redis-errors|denque|cluster-key-slot|standard-as-callback)/],
  ['MongoDB driver (mongodb, bson)', /^(mongodb|bson)/],
  ['Node HTTP, sockets and streams', /^node:(_http|net|internal\/(stream_base_commons|streams|http|net|dns))/],
  ['crypto (HMAC of tokens and internal signatures)', /^node:internal\/crypto/],
  ['garbage collector', /^\(garbage collector\)/],
  ['the service\'s own code and packages', /^(services|packages)\//],
];

function activityOf(place: string): string {
  return ACTIVITIES.find(([, pattern]) => pattern.test(place))?.[0] ?? 'other (Node internals, events, timers, ...)';
}

function main(): void {
  const [file, limit = '25'] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [functions]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|packages|services)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
  const stackOf = (id: number): ProfileNode[] => {
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const node = byId.get(at);
      if (node) stack.push(node);
    }
    return stack;
  };
  const self = new Map<number, number>();
  const inclusive = new Map<string, number>();
  let loading = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const stack = stackOf(id);
    if (stack.some((node) => node.callFrame.url.startsWith('node:internal/modules/') || node.callFrame.functionName === 'compileForInternalLoader')) {
      loading += delta;
      return;
    }
    self.set(id, (self.get(id) ?? 0) + delta);
    for (const key of new Set(stack.map(keyOf))) inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const busy = total - [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((sum, [, time]) => sum + time, 0);
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, time] of self) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    // Native code (socket writes, string encoding, hashing) is counted where it was called from.
    let place = placeOf(frame.url, frame.functionName);
    if (place === '(native)') {
      const caller = stackOf(id).find((node) => node.callFrame.url !== '');
      if (caller) place = `${placeOf(caller.callFrame.url, caller.callFrame.functionName)} (native)`;
    }
    places.set(place, (places.get(place) ?? 0) + time);
    const name = keyOf(byId.get(id) as ProfileNode);
    functions.set(name, (functions.get(name) ?? 0) + time);
  }
  const share = (time: number) => `${((100 * time) / busy).toFixed(1).padStart(5)} %`;
  const seconds = (time: number) => `${(time / 1e6).toFixed(1).padStart(6)} s`;
  process.stdout.write(`${file}\nsampled ${seconds(total + loading)}, module loading ${seconds(loading)} (left out), busy (not idle) ${seconds(busy)}; shares are of the busy time\n\nself time by place\n`);
  for (const [place, time] of [...places].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    if (place !== '(idle)') process.stdout.write(`${share(time)} ${seconds(time)}  ${place}\n`);
  }
  const activities = new Map<string, number>();
  for (const [place, time] of places) if (place !== '(idle)') activities.set(activityOf(place), (activities.get(activityOf(place)) ?? 0) + time);
  process.stdout.write('\nself time by kind of work\n');
  for (const [activity, time] of [...activities].sort((a, b) => b[1] - a[1])) process.stdout.write(`${share(time)} ${seconds(time)}  ${activity}\n`);
  process.stdout.write('\nfunctions with the most self time\n');
  for (const [name, time] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(limit))) {
    if (!name.startsWith('(idle)')) process.stdout.write(`${share(time)} ${seconds(time)}  ${name}\n`);
  }
  process.stdout.write('\nfunctions with the most total time (self and callees)\n');
  const skip = /^\((root|idle|program|garbage collector)\)/;
  for (const [name, time] of [...inclusive].filter(([name]) => !skip.test(name)).sort((a, b) => b[1] - a[1]).slice(0, 2 * Number(limit))) {
    process.stdout.write(`${share(time)} ${seconds(time)}  ${name}\n`);
  }
}

main();
