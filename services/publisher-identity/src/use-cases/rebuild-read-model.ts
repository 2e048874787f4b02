import type { IdentityDeps } from './deps';

/**
 * Rewrites the whole read model from the database (at start: Redis may have lost it or hold another
 * database's entries; then as repair), then sweeps out what the database does not hold. A change
 * interrupted before its projection was written shows once the outbox relay rolls it forward.
 */
export async function rebuildReadModel(deps: Pick<IdentityDeps, 'publishers' | 'readModel'>): Promise<number> {
  let count = 0;
  for await (const batch of deps.publishers.batches()) {
    for (const record of batch) await deps.readModel.write(record);
    count += batch.length;
  }
  await deps.readModel.sweep();
  return count;
}
