import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';

/** What this process's sends share: its name as the holder of claims, the messages it is sending now, the other replicas' run-out claims it saw, and the stop that ends their waits. */
export interface SendingProcess {
  /** This process, as the holder of its claims. */
  readonly holder: string;
  /** Messages this process is sending now: a second delivery of the same event waits for the first. */
  readonly inFlight: Map<string, Promise<void>>;
  /** Claims of other replicas found with their lease run out (`<claim id>@<leaseUntil>`), and when first found so. */
  readonly runOutClaims: Map<string, number>;
  readonly stopping: AbortController;
}

/** A process's sends, named `holder` (random by default). */
export function sendingProcess(holder: string = randomUUID()): SendingProcess {
  const stopping = new AbortController();
  // Every message being sent (up to the prefetch, and more while some wait on the limit) listens to it.
  setMaxListeners(0, stopping.signal);
  return { holder, inFlight: new Map(), runOutClaims: new Map(), stopping };
}

/** Ends the waits of messages being sent; their events stay unacknowledged and are delivered again. */
export function stopSending(sending: SendingProcess): void {
  sending.stopping.abort();
}
