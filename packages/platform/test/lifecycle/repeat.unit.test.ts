import { expect } from 'chai';
import { repeatEvery } from '../../src/lifecycle';

describe('repeatEvery', () => {
  it('never starts a run while the previous one is still going, however slow it is', async () => {
    let running = 0;
    let mostAtOnce = 0;
    let runs = 0;
    let finishFirst!: () => void;
    const firstHangs = new Promise<void>((resolve) => (finishFirst = resolve));
    const repeating = repeatEvery(
      5,
      async () => {
        runs += 1;
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        if (runs === 1) await firstHangs;
        running -= 1;
      },
      () => undefined,
    );
    // Many intervals pass while the first run hangs: the ticks are skipped, not queued.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(runs).to.equal(1);
    finishFirst();
    await waitUntil(() => runs >= 3);
    await repeating.stop();
    expect(mostAtOnce).to.equal(1);
  });

  it('reports a failed run and goes on at the next interval', async () => {
    const failures: string[] = [];
    let runs = 0;
    const repeating = repeatEvery(
      5,
      async () => {
        runs += 1;
        if (runs === 1) throw new Error('store unreachable');
      },
      (error) => failures.push(error.message),
    );
    await waitUntil(() => runs >= 3);
    await repeating.stop();
    expect(failures).to.deep.equal(['store unreachable']);
  });

  it('waits for the run in progress when stopped, and starts none after', async () => {
    let runs = 0;
    let finished = false;
    const repeating = repeatEvery(
      5,
      async () => {
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 30));
        finished = true;
      },
      () => undefined,
    );
    await waitUntil(() => runs === 1);
    await repeating.stop();
    expect(finished).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(runs).to.equal(1);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
