import { expect } from 'chai';
import { eachLimited } from '../../src';

describe('eachLimited', () => {
  it('runs every item, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await eachLimited([1, 2, 3, 4, 5], 2, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      done.push(item);
    });
    expect(done.sort()).to.deep.equal([1, 2, 3, 4, 5]);
    expect(most).to.equal(2);
  });

  it('after a failure takes no further item, and rejects only once the running ones have ended', async () => {
    const ended: number[] = [];
    const outcome = await eachLimited([1, 2, 3, 4], 2, async (item) => {
      if (item === 1) throw new Error('first fails');
      await new Promise((resolve) => setTimeout(resolve, 20));
      ended.push(item);
    }).then(
      () => null,
      (error: Error) => ({ message: error.message, endedBefore: [...ended] }),
    );
    expect(outcome).to.deep.equal({ message: 'first fails', endedBefore: [2] });
    expect(ended, 'nothing ran after the rejection').to.deep.equal([2]);
  });
});
