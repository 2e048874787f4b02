/**
 * What a service opens at start (database, Redis, broker, relays, timers, its server), closed in the
 * reverse order: on stop, and also when the start fails halfway, so a failed start leaves no connection
 * or timer behind.
 */
type Closer = () => Promise<void> | void;

export class Resources {
  private readonly closers: Closer[] = [];

  /** Registers what was just opened, with how to close it; returns it. */
  add<T>(resource: T, close: (resource: T) => Promise<void> | void): T {
    this.closers.push(() => close(resource));
    return resource;
  }

  /** Closes everything, the last opened first; every closer runs, then the first failure is thrown. */
  async closeAll(): Promise<void> {
    let failure: unknown;
    for (let closer = this.closers.pop(); closer; closer = this.closers.pop()) {
      try {
        await closer();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** Runs a start; when it fails, closes what it had opened and passes the failure on. */
  async openOrClose<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.closeAll().catch(() => undefined);
      throw error;
    }
  }
}
