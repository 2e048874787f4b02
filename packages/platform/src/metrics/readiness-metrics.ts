/**
 * Readiness as the probes see it: `pilot_ready` (1 or 0, as of the last /readyz) and
 * `pilot_readiness_changes_total`, which counts every flip; a replica flapping between ready and not ready
 * shows as a rate of changes, where a gauge scraped every 30 s could miss the flips between scrapes.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export function readinessMetrics(registry: Registry): { observe(ready: boolean): void } {
  const ready = new Gauge({ name: 'pilot_ready', help: '1 when the last readiness probe found the service ready, else 0', registers: [registry] });
  const changes = new Counter({ name: 'pilot_readiness_changes_total', help: 'Changes of readiness seen by the probes (ready to not ready and back)', registers: [registry] });
  let last: boolean | undefined;
  return {
    observe(now: boolean) {
      if (last !== undefined && last !== now) changes.inc();
      last = now;
      ready.set(now ? 1 : 0);
    },
  };
}
