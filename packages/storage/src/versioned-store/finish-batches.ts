/**
 * The finishes of the changes a writer has answered, done in batches: the first change answered opens a
 * batch, and after `delayMs` every change answered meanwhile is finished together, in one lookup and one
 * update however many there are (VersionedStore.finishAll). On a busy writer a change then costs two writes
 * on the path people wait on and a share of one after it, and the finishes take the database's write lock
 * once a batch instead of once a change. Batches run one after another; a batch that fails leaves its
 * entries pending for the outbox relay, which finishes them after OUTBOX_PENDING_GRACE_MS (seconds, far
 * beyond `delayMs`).
 */
export class FinishBatches<T> {
  private queued: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private inFlight = 0;

  /** `finishAll` leaves to the relay whatever it could not finish; a batch that rejects is left to it the same way. */
  constructor(
    private readonly finishAll: (items: T[]) => Promise<void>,
    private readonly delayMs: number,
    private readonly maxBatch = 500,
  ) {}

  add(item: T): void {
    this.queued.push(item);
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
  }

  /** Finishes now whatever is queued, and waits until no batch is left (tests, and a process that stops). */
  async settled(): Promise<void> {
    while (this.queued.length > 0 || this.inFlight > 0) await this.flush();
  }

  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.queued.splice(0, this.maxBatch);
    if (items.length === 0) return this.running;
    if (this.queued.length > 0) this.timer = setTimeout(() => void this.flush(), 0);
    this.inFlight += 1;
    this.running = this.running
      .then(() => this.finishAll(items))
      .catch(() => undefined)
      .finally(() => (this.inFlight -= 1));
    return this.running;
  }
}
