import { expect } from 'chai';
import { ShowingSlots } from '../src/data/showing-slots';
import type { SlotRecord } from '../src/data/placement-repository';

/** A store of slots that counts its reads. */
function countingStore(answers: Array<() => Promise<SlotRecord | null>>) {
  const store = {
    reads: 0,
    currentOf: () => {
      const answer = answers[Math.min(store.reads, answers.length - 1)]!;
      store.reads += 1;
      return answer();
    },
  };
  return store;
}

const RECORD = { _id: 'home-feature', version: 1 } as unknown as SlotRecord;

describe('the slots as the site shows them', () => {
  it('reads a slot from the store once for any number of page views within its age', async () => {
    const store = countingStore([async () => RECORD]);
    const showing = new ShowingSlots(store, 60_000);
    const views = await Promise.all(Array.from({ length: 50 }, () => showing.currentOf('home-feature')));
    expect(views.every((view) => view === RECORD)).to.equal(true);
    expect(store.reads).to.equal(1);
  });

  it('reads a slot again once it is forgotten, once every slot is, and once it is older than its age', async () => {
    const store = countingStore([async () => RECORD]);
    const showing = new ShowingSlots(store, 60_000);
    await showing.currentOf('home-feature');
    showing.forget('home-feature');
    await showing.currentOf('home-feature');
    await showing.currentOf('workspace-top');
    showing.forgetAll();
    await showing.currentOf('home-feature');
    await showing.currentOf('workspace-top');
    expect(store.reads).to.equal(5);

    const aged = new ShowingSlots(store, 0);
    await aged.currentOf('home-feature');
    await aged.currentOf('home-feature');
    expect(store.reads).to.equal(7);
  });

  it('does not keep a failed read: the next page view reads again', async () => {
    const store = countingStore([() => Promise.reject(new Error('store unavailable')), async () => RECORD]);
    const showing = new ShowingSlots(store, 60_000);
    const failed = await showing.currentOf('home-feature').catch((error: Error) => error.message);
    expect(failed).to.equal('store unavailable');
    expect(await showing.currentOf('home-feature')).to.equal(RECORD);
    expect(store.reads).to.equal(2);
  });
});
