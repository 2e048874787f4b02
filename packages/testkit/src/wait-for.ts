/** Waiting on a condition with a deadline: how every test waits for something to happen. */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

/** Polls `condition` until it returns a truthy value (which is returned) or the deadline passes. */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`${options.message ?? 'condition not met'} within ${options.timeoutMs ?? 10_000} ms${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
