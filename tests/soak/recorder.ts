/**
 * Every answer the soak's load generator got, by endpoint: status and problem code counts (per minute and
 * in all), and latencies per minute for p50/p99.
 */
import { percentile } from '../bench/load';

export interface Outcome {
  endpoint: string;
  status: number;
  /** The problem+json `code` of an error answer; '' for a success, 'network' when no answer came. */
  code: string;
  ms: number;
  /** When the request was sent (epoch ms). */
  sentAt: number;
}

interface MinuteBucket {
  latencies: Map<string, number[]>;
  answers: Map<string, Map<string, number>>;
}

export function answerLabel(status: number, code: string): string {
  return code ? `${status} ${code}` : String(status);
}

export class Recorder {
  private readonly minutes: MinuteBucket[] = [];
  readonly totals = new Map<string, Map<string, number>>();
  readonly outcomes: Outcome[] = [];

  constructor(private readonly startedAt: number) {}

  minuteOf(at: number): number {
    return Math.floor((at - this.startedAt) / 60_000);
  }

  add(outcome: Outcome): void {
    this.outcomes.push(outcome);
    const minute = this.minuteOf(outcome.sentAt);
    const bucket = (this.minutes[minute] ??= { latencies: new Map(), answers: new Map() });
    const latencies = bucket.latencies.get(outcome.endpoint) ?? [];
    latencies.push(outcome.ms);
    bucket.latencies.set(outcome.endpoint, latencies);
    const label = answerLabel(outcome.status, outcome.code);
    for (const answers of [bucket.answers, this.totals]) {
      const byLabel = answers.get(outcome.endpoint) ?? new Map<string, number>();
      byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
      answers.set(outcome.endpoint, byLabel);
    }
  }

  endpoints(): string[] {
    return [...this.totals.keys()].sort();
  }

  latency(minute: number, endpoint: string): { count: number; p50: number; p99: number } {
    const samples = this.minutes[minute]?.latencies.get(endpoint) ?? [];
    return { count: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99) };
  }

  answersIn(minute: number): Map<string, Map<string, number>> {
    return this.minutes[minute]?.answers ?? new Map();
  }
}

/** The `code` of a problem+json body, '' for anything else. */
export function problemCode(status: number, contentType: string | null, body: string): string {
  if (status < 400 || !/json/.test(contentType ?? '')) return '';
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : '';
  } catch {
    return '';
  }
}
