import { ServiceUnavailableError, withDeadline } from '@pilot/faults';

/** Runs a Redis call with a deadline; any failure of it is a fault of infrastructure (503), never a 500. */
export async function guardedRedis<T>(work: () => Promise<T>, timeoutMs: number, what: string): Promise<T> {
  try {
    return await withDeadline(work(), timeoutMs, 'redis');
  } catch (error) {
    if (error instanceof ServiceUnavailableError) throw error;
    throw new ServiceUnavailableError('redis', `${what}: ${(error as Error).message}`);
  }
}
