/**
 * The soak's checks (issue 21), each PASS or MISS with what it saw.
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

/** The endpoints each restarted process serves: their refusals while it is down are counted apart. */
const SERVED_BY: Record<string, string[]> = {
  allocation: ['network ad'],
  tracking: ['network delivery', 'network click', 'workspace stats (admin)'],
};
/** A request sent this long after the process answered ready again may still meet the gateway's view of it as down. */
const RESTART_GRACE_MS = 2000;
const P99_RATIO = 1.5;
const RSS_RATIO = 1.2;
const MIN_SAMPLES = 20;

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
    const into = inRestart(figures.restarts, outcome.endpoint, outcome.sentAt) ? during : outside;
    into.set(label, (into.get(label) ?? 0) + 1);
  }
  const list = (counts: Map<string, number>) => (counts.size === 0 ? 'none' : [...counts].map(([label, count]) => `${label}: ${count}`).join(', '));
  return {
    name: 'no 5xx (nor unanswered request) outside the restarts',
    pass: outside.size === 0,
    detail: `outside: ${list(outside)}; while a single replica was restarting (counted apart): ${list(during)}`,
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
      unjudged.push(`${endpoint} (${first.count}/${final.count} samples)`);
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

/** Warm-up is the first minute: memory of minute 2 is the reference (minute 1 when the run is shorter than 3). */
function memoryFlat(figures: SoakFigures): Check {
  const reference = figures.rss[figures.rss.length >= 3 ? 1 : 0] ?? {};
  const final = figures.rss[figures.rss.length - 1] ?? {};
  const grown: string[] = [];
  const held: string[] = [];
  for (const [name, start] of Object.entries(reference)) {
    const end = final[name];
    if (end === undefined || !Number.isFinite(end) || !Number.isFinite(start)) continue;
    const restarted = figures.restarts.some((window) => window.name === name) ? ' (restarted)' : '';
    const line = `${name} ${start.toFixed(0)} -> ${end.toFixed(0)} MB${restarted}`;
    (end <= RSS_RATIO * start ? held : grown).push(line);
  }
  return {
    name: `memory flat after warm-up: RSS of each process in the last minute within ${RSS_RATIO}x of minute ${figures.rss.length >= 3 ? 2 : 1}`,
    pass: grown.length === 0,
    detail: `grown: ${grown.join('; ') || 'none'}; held: ${held.join('; ')}`,
  };
}

export function judge(figures: SoakFigures, recorder: Recorder): Check[] {
  return [validKeys(figures), noServerErrors(figures, recorder), ...totalsMatch(figures), latencyHeld(figures, recorder), memoryFlat(figures)];
}
