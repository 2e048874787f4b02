/**
 * Benchmark (prints figures, asserts nothing): how long after a campaign service publishes
 * `campaign.activated` / `campaign.paused` does a running allocation replica select / stop selecting the
 * campaign? Measured from the moment the event is handed to the broker until the replica's selection
 * index reflects it, against real RabbitMQ and Redis, in one process. The bus-to-index part of the
 * propagation that tests/bench/run.ts (scripts/bench.sh) measures end to end through the API.
 *
 *   node --import tsx tests/bench/propagation-index.bench.ts [rounds=300]
 */
import { performance } from 'node:perf_hooks';
import { testInfra } from '@pilot/testkit';
import { activeCampaign, campaignSnapshot, startAllocation, TestWorld, untilReady } from '../../services/allocation/test/support';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, rank)] as number;
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('not propagated within the deadline');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const fmt = (value: number) => value.toFixed(2).padStart(8);
  return `${name.padEnd(12)} n=${sorted.length}  p50=${fmt(percentile(sorted, 50))} ms  p95=${fmt(percentile(sorted, 95))} ms  p99=${fmt(percentile(sorted, 99))} ms  max=${fmt(sorted[sorted.length - 1] ?? Number.NaN)} ms`;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 300);
  const infra = testInfra();
  const world = new TestWorld(infra);
  await world.ready();
  // A realistic index: 5000 active campaigns in the snapshot.
  const background = Array.from({ length: 5000 }, (_, i) =>
    activeCampaign({ campaignId: 1_000_000 + i, language: ['en', 'tr', 'ru', 'ar', 'zh', 'all'][i % 6] as string, ownerAccountId: String(10_000 + (i % 700)) }),
  );
  const snapshot = await campaignSnapshot(infra, background);
  const service = await startAllocation(infra, snapshot.url);
  await untilReady(service);

  const activation: number[] = [];
  const pause: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const campaign = activeCampaign({ version: 3 });
    let startedAt = performance.now();
    await world.activated(campaign);
    await until(() => service.index.has(campaign.campaignId));
    activation.push(performance.now() - startedAt);

    startedAt = performance.now();
    await world.paused(campaign, 4);
    await until(() => !service.index.has(campaign.campaignId));
    pause.push(performance.now() - startedAt);
  }

  process.stdout.write(`campaign event -> allocation selection index (${service.index.size()} active campaigns)\n`);
  process.stdout.write(`${summary('activation', activation)}\n${summary('pause', pause)}\n`);
  process.stdout.write('(each sample includes the publisher confirm round trip of the sending side)\n');

  await service.stop();
  await snapshot.close();
  await world.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
