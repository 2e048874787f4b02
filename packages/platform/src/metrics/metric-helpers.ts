import { Counter, Gauge, type Registry } from 'prom-client';

/** The counter named `name` in `registry`, registered at the first call (several owners may ask for it). */
export function counterIn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

/** A gauge whose value is read at scrape time; a failed read leaves the series out of that scrape. */
export function gaugeIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: (gauge: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        await read(this);
      } catch {
        // An unreachable dependency must not fail the whole scrape; the missing series is the signal.
      }
    },
  });
}
