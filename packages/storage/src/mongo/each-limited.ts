/**
 * Runs `work` on every item, at most `limit` at a time; stops at the first failure. For database work over
 * many items (grains) that must not all hit the store at once: FerretDB serializes its writers.
 */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
