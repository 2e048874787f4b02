/**
 * Work on a timer (a repair, a rebuild) that never overlaps itself: when a run is still going at the next
 * tick, that tick is skipped rather than started beside it, so a run slower than its interval cannot pile up.
 */
export interface Repeating {
  /** Stops the timer and waits for the run in progress, if any. */
  stop(): Promise<void>;
}

export function repeatEvery(intervalMs: number, work: () => Promise<unknown>, onError: (error: Error) => void): Repeating {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = work()
      .then(() => undefined)
      .catch((error: unknown) => onError(error as Error))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
