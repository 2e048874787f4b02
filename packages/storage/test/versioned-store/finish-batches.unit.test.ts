import { expect } from 'chai';
import { FinishBatches } from '../../src/versioned-store/finish-batches';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FinishBatches', () => {
  it('finishes together what was added within the delay, once the delay has passed', async () => {
    const batches: number[][] = [];
    const finishes = new FinishBatches<number>(async (items) => void batches.push(items), 200);
    finishes.add(1);
    finishes.add(2);
    await sleep(5);
    finishes.add(3);
    expect(batches, 'nothing before the delay').to.deep.equal([]);
    await sleep(400);
    expect(batches).to.deep.equal([[1, 2, 3]]);
    finishes.add(4);
    await sleep(400);
    expect(batches, 'the next addition opens the next batch').to.deep.equal([[1, 2, 3], [4]]);
  });

  it('finishes everything at once on settled(), without waiting for the delay', async () => {
    const batches: number[][] = [];
    const finishes = new FinishBatches<number>(async (items) => void batches.push(items), 60_000);
    finishes.add(1);
    finishes.add(2);
    await finishes.settled();
    expect(batches).to.deep.equal([[1, 2]]);
    await finishes.settled();
    expect(batches, 'nothing left to finish').to.have.length(1);
  });

  it('runs one batch at a time, in order, and settled() waits for the one running', async () => {
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const finishes = new FinishBatches<number>(async (items) => {
      log.push(`start ${items.join(',')}`);
      if (items[0] === 1) await held;
      log.push(`end ${items.join(',')}`);
    }, 60_000);
    finishes.add(1);
    const first = finishes.settled();
    await sleep(5);
    finishes.add(2);
    const second = finishes.settled();
    await sleep(5);
    expect(log, 'the second batch waits for the first').to.deep.equal(['start 1']);
    release();
    await Promise.all([first, second]);
    expect(log).to.deep.equal(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('cuts a long queue into batches of at most the given size', async () => {
    const batches: number[][] = [];
    const finishes = new FinishBatches<number>(async (items) => void batches.push(items), 60_000, 2);
    for (const item of [1, 2, 3, 4, 5]) finishes.add(item);
    await finishes.settled();
    expect(batches).to.deep.equal([[1, 2], [3, 4], [5]]);
  });

  it('goes on with the next batch after one that failed', async () => {
    const batches: number[][] = [];
    const finishes = new FinishBatches<number>(async (items) => {
      if (items.includes(1)) throw new Error('database away');
      batches.push(items);
    }, 60_000);
    finishes.add(1);
    await finishes.settled();
    finishes.add(2);
    await finishes.settled();
    expect(batches).to.deep.equal([[2]]);
  });
});
