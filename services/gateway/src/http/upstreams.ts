/**
 * The replicas of each upstream service, chosen round-robin. A replica that refused a connection is left
 * out for a short while (passive health), and a probe of /readyz every second brings it back (or keeps it
 * out), so when one of two replicas dies the traffic moves to the other, and a replica that was restarted
 * gets traffic once it is ready (allocation and tracking once their campaign snapshot is loaded), not as
 * soon as it listens. When no replica is ready, requests still go to one (it answers for itself).
 */
import { Agent } from 'node:http';
import { getJson } from '@pilot/platform';
import type { Upstream } from '../domain/routing';

const MARKED_DOWN_MS = 5000;
const PROBE_INTERVAL_MS = 1000;

class Replica {
  downUntil = 0;
  constructor(readonly url: string) {}
  isUp(now: number): boolean {
    return now >= this.downUntil;
  }
}

export class UpstreamPool {
  private readonly replicas: Replica[];
  private next = 0;

  constructor(
    readonly name: Upstream,
    urls: string[],
  ) {
    this.replicas = urls.map((url) => new Replica(url));
  }

  urls(): string[] {
    return this.replicas.map((replica) => replica.url);
  }

  /** The next healthy replica; if none is known healthy, the next one anyway (it may have come back). */
  pick(exclude?: string): string {
    const now = Date.now();
    for (let i = 0; i < this.replicas.length; i += 1) {
      const replica = this.replicas[(this.next + i) % this.replicas.length] as Replica;
      if (replica.isUp(now) && replica.url !== exclude) {
        this.next = (this.next + i + 1) % this.replicas.length;
        return replica.url;
      }
    }
    const fallback = this.replicas[this.next % this.replicas.length] as Replica;
    this.next = (this.next + 1) % this.replicas.length;
    return fallback.url;
  }

  hasOtherHealthy(url: string): boolean {
    const now = Date.now();
    return this.replicas.some((replica) => replica.url !== url && replica.isUp(now));
  }

  markDown(url: string): void {
    const replica = this.replicas.find((candidate) => candidate.url === url);
    if (replica) replica.downUntil = Date.now() + MARKED_DOWN_MS;
  }

  markUp(url: string): void {
    const replica = this.replicas.find((candidate) => candidate.url === url);
    if (replica) replica.downUntil = 0;
  }
}

export class Upstreams {
  readonly agent = new Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 512, maxFreeSockets: 64, scheduling: 'lifo' });
  private readonly pools: Map<Upstream, UpstreamPool>;
  private probe: NodeJS.Timeout | undefined;

  constructor(urls: Record<Upstream, string[]>) {
    this.pools = new Map((Object.keys(urls) as Upstream[]).map((name) => [name, new UpstreamPool(name, urls[name])]));
  }

  pool(name: Upstream): UpstreamPool {
    const pool = this.pools.get(name);
    if (!pool) throw new Error(`no upstream ${name}`);
    return pool;
  }

  all(): UpstreamPool[] {
    return [...this.pools.values()];
  }

  startProbing(): void {
    this.probe = setInterval(() => void this.probeAll(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private async probeAll(): Promise<void> {
    await Promise.all(
      this.all().flatMap((pool) =>
        pool.urls().map(async (url) => {
          try {
            const response = await getJson(`${url}/readyz`, { headers: {}, timeoutMs: 800, agent: this.agent });
            if (response.ok) pool.markUp(url);
            else pool.markDown(url);
          } catch {
            pool.markDown(url);
          }
        }),
      ),
    );
  }

  stop(): void {
    if (this.probe) clearInterval(this.probe);
    this.agent.destroy();
  }
}
