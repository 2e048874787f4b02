/**
 * The soak's checks, each PASS or MISS with what it saw.
 */
import type { Recorder } from './recorder';
import type { Counted, RefusedKey } from './traffic';

export interface RestartWindow {
  name: string;
  from: number;
  to: number;
}

export interface SoakFigures {
  minutes: number;
  /** When the traffic started (epoch ms): minute m is sampled at startedAt + (m + 1) * 60 s. */
  startedAt: number;
  /** Replicas of allocation and of tracking. */
  replicas: number;
  publishers: number;
  counted: Counted;
  totals: { adRequests: number; confirmedDeliveries: number; clickedLinks: number };
  impressionsRead: number;
  foldingFinished: boolean;
  refusedValidKeys: RefusedKey[];
  restarts: RestartWindow[];
  /** Resident memory (MB) of each process, per minute. */
  rss: Array<Record<string, number>>;
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

/** The endpoints each restarted process serves: with one replica, their refusals while it is down are counted apart. */
const SERVED_BY: Record<string, string[]> = {
  allocation: ['network ad'],
  tracking: ['network delivery', 'network click', 'workspace stats (admin)'],
};
/** A request sent this long after the process answered ready again may still meet the gateway's view of it as down. */
const RESTART_GRACE_MS = 2000;
const P99_RATIO = 1.5;
const RSS_RATIO = 1.2;
/** Below 100 samples the 99th percentile is the single slowest answer of the minute. */
const MIN_SAMPLES = 100;

function inRestart(restarts: RestartWindow[], endpoint: string, sentAt: number): boolean {
  return restarts.some((window) => (SERVED_BY[window.name] ?? []).includes(endpoint) && sentAt >= window.from && sentAt <= window.to + RESTART_GRACE_MS);
}

function validKeys(figures: SoakFigures): Check {
  const refused = figures.refusedValidKeys;
  const byCode = new Map<string, number>();
  for (const refusal of refused) byCode.set(`${refusal.endpoint} ${refusal.code}`, (byCode.get(`${refusal.endpoint} ${refusal.code}`) ?? 0) + 1);
  return {
    name: 'no 401 for a key that was valid when sent',
    pass: refused.length === 0,
    detail: refused.length === 0 ? 'none' : `${refused.length} (${[...byCode].map(([label, count]) => `${label}: ${count}`).join(', ')}), publishers ${[...new Set(refused.map((refusal) => refusal.publisherId))].join(', ')}`,
  };
}

function noServerErrors(figures: SoakFigures, recorder: Recorder): Check {
  const outside = new Map<string, number>();
  const during = new Map<string, number>();
  for (const outcome of recorder.outcomes) {
    if (outcome.status !== 0 && outcome.status < 500) continue;
    const label = `${outcome.endpoint} ${outcome.status}${outcome.code ? ` ${outcome.code}` : ''}`;
    const into = figures.replicas < 2 && inRestart(figures.restarts, outcome.endpoint, outcome.sentAt) ? during : outside;
    into.set(label, (into.get(label) ?? 0) + 1);
  }
  const list = (counts: Map<string, number>) => (counts.size === 0 ? 'none' : [...counts].map(([label, count]) => `${label}: ${count}`).join(', '));
  return {
    name: figures.replicas < 2 ? 'no 5xx (nor unanswered request) outside the restarts of the single replicas' : 'no 5xx (nor unanswered request), restarts of one of two replicas included',
    pass: outside.size === 0,
    detail: figures.replicas < 2 ? `outside: ${list(outside)}; while the single replica was restarting (counted apart): ${list(during)}` : list(outside),
  };
}

function totalsMatch(figures: SoakFigures): Check[] {
  const pairs: Array<[string, number, number]> = [
    ['ad requests = 200 answers of the ad endpoint', figures.totals.adRequests, figures.counted.adAnswers],
    ['confirmed deliveries = first confirmations', figures.totals.confirmedDeliveries, figures.counted.firstConfirmations],
    ['clicked links = first counted clicks (302)', figures.totals.clickedLinks, figures.counted.clicks],
  ];
  const folded = figures.foldingFinished ? 'folder done' : 'folder NOT done within the wait';
  return pairs.map(([name, read, counted]) => ({ name: `totals: ${name}`, pass: read === counted, detail: `read ${read}, counted ${counted} (${folded})` }));
}

function latencyHeld(figures: SoakFigures, recorder: Recorder): Check {
  const last = figures.minutes - 1;
  const judged: string[] = [];
  const missed: string[] = [];
  const unjudged: string[] = [];
  for (const endpoint of recorder.endpoints()) {
    const first = recorder.latency(0, endpoint);
    const final = recorder.latency(last, endpoint);
    if (first.count < MIN_SAMPLES || final.count < MIN_SAMPLES) {
      unjudged.push(`${endpoint} ${first.p99.toFixed(0)} -> ${final.p99.toFixed(0)} ms (${first.count}/${final.count} samples)`);
      continue;
    }
    const line = `${endpoint} ${first.p99.toFixed(0)} -> ${final.p99.toFixed(0)} ms`;
    (final.p99 <= P99_RATIO * first.p99 ? judged : missed).push(line);
  }
  return {
    name: `p99 of every endpoint in the last minute within ${P99_RATIO}x of the first`,
    pass: missed.length === 0,
    detail: `over: ${missed.join('; ') || 'none'}; within: ${judged.join('; ')}; not judged (fewer than ${MIN_SAMPLES} samples in a minute): ${unjudged.join('; ') || 'none'}`,
  };
}

const WARM_UP_MS = 60_000;
/** Printed, not judged: the load generator keeps every answer it got; Redis and RabbitMQ serve other runs too. */
const NOT_THE_SYSTEM = new Set(['bench', 'redis', 'rabbitmq']);

/**
 * Each process is judged by its role (its name) over the whole run: the reference is the role's first warm
 * minute (the first minute ending a minute or more after the process started, minute 2 at the earliest),
 * in its first process when that one had such a minute before it was restarted, else in the process that
 * replaced it. A restarted Node process takes minutes to grow its heap to where it settles, so a restarted
 * process's own first warm minute would read its warm-up as growth; a leak still shows, in the replica that
 * is not restarted and in the restarted one alike.
 */
function memoryFlat(figures: SoakFigures): Check {
  const last = figures.rss.length - 1;
  const final = figures.rss[last] ?? {};
  const sampledAt = (minute: number) => figures.startedAt + (minute + 1) * 60_000;
  const grown: string[] = [];
  const held: string[] = [];
  const unjudged: string[] = [];
  const firstWarmMinute = (startedAt: number, from = 1) => {
    let minute = from;
    while (minute < last && sampledAt(minute) - startedAt < WARM_UP_MS) minute += 1;
    return minute;
  };
  for (const [name, end] of Object.entries(final)) {
    if (NOT_THE_SYSTEM.has(name)) continue;
    const restarts = figures.restarts.filter((window) => window.name === name).map((window) => window.to);
    let reference = firstWarmMinute(figures.startedAt);
    if (restarts.length > 0 && sampledAt(reference) > Math.min(...restarts)) reference = firstWarmMinute(Math.max(...restarts), reference);
    const start = figures.rss[reference]?.[name];
    if (reference >= last || start === undefined || !Number.isFinite(start) || !Number.isFinite(end)) {
      unjudged.push(`${name} (no warm sample before the last minute)`);
      continue;
    }
    const line = `${name} ${start.toFixed(0)} (minute ${reference + 1}) -> ${end.toFixed(0)} MB`;
    (end <= RSS_RATIO * start ? held : grown).push(line);
  }
  return {
    name: `memory flat after warm-up: the peak RSS of each process of the system and of its FerretDB in the last minute within ${RSS_RATIO}x of its role's peak in its first warm minute (a minute or more after its first process started, minute 2 at the earliest)`,
    pass: grown.length === 0,
    detail: `grown: ${grown.join('; ') || 'none'}; held: ${held.join('; ')}; not judged: ${unjudged.join('; ') || 'none'}`,
  };
}

export function judge(figures: SoakFigures, recorder: Recorder): Check[] {
  return [validKeys(figures), noServerErrors(figures, recorder), ...totalsMatch(figures), latencyHeld(figures, recorder), memoryFlat(figures)];
}
