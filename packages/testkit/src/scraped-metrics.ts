/**
 * A scrape of a Prometheus text endpoint, for tests: the value of a series (summed over the series that
 * match the labels given), and the names of every metric family exposed.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export class ScrapedMetrics {
  constructor(
    readonly samples: Sample[],
    /** Metric families by `# TYPE` line (a labelled counter nothing incremented yet has no sample). */
    readonly families: Map<string, string> = new Map(),
  ) {}

  static parse(text: string): ScrapedMetrics {
    const samples: Sample[] = [];
    const families = new Map<string, string>();
    for (const line of text.split('\n')) {
      const type = /^# TYPE (\S+) (\S+)/.exec(line);
      if (type) families.set(type[1] as string, type[2] as string);
      if (line === '' || line.startsWith('#')) continue;
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!match) continue;
      const labels: Record<string, string> = {};
      for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] as string] = pair[2] as string;
      samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
    }
    return new ScrapedMetrics(samples, families);
  }

  /** The sum of the series of `name` whose labels include `labels`; 0 when none. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((sum, sample) => sum + sample.value, 0);
  }

  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.matching(name, labels).length > 0;
  }

  /** Whether a query may name `name`: a sample of it, or a family it belongs to (a histogram's `_bucket`, ...). */
  exposes(name: string): boolean {
    if (this.samples.some((sample) => sample.name === name)) return true;
    if (this.families.has(name)) return true;
    const family = name.replace(/_(bucket|sum|count)$/, '');
    return family !== name && ['histogram', 'summary'].includes(this.families.get(family) ?? '');
  }

  private matching(name: string, labels: Record<string, string>): Sample[] {
    return this.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  }
}

export async function scrapeMetrics(baseUrl: string): Promise<ScrapedMetrics> {
  const response = await fetch(`${baseUrl}/metrics`);
  if (!response.ok) throw new Error(`GET ${baseUrl}/metrics answered ${response.status}`);
  return ScrapedMetrics.parse(await response.text());
}
