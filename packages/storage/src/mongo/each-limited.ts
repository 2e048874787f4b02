/**
 * Runs `work` on every item, at most `limit` at a time, for database work over many items (grains) that must
 * not all hit the store at once: FerretDB serializes its writers. It returns only once every item taken has
 * ended: after a failure no further item is taken, the ones running finish, and the first failure is thrown.
 * So no write started here lands after the caller has moved on (a folder's next pass, say).
 */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next;
      next += 1;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
