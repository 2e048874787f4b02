import { ManualClock } from '@pilot/testkit';

/**
 * The real time plus an offset that a test moves forward: the services go on with the time passing (rate
 * windows, sessions, folding), and a test can jump over a wait such as a sign-in request's 5 minutes.
 */
export class ShiftedClock extends ManualClock {
  private offsetMs = 0;

  override now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  override advance(ms: number): void {
    this.offsetMs += ms;
  }

  override set(at: Date | string): void {
    this.offsetMs = new Date(at).getTime() - Date.now();
  }
}
