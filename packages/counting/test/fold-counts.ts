import type { Redis } from 'ioredis';
import type { CountJournal, Fold } from '../src';

/** Every count of one claimed fold, read as the folder reads it. */
export async function foldCounts(redis: Redis, journal: CountJournal, seq: number): Promise<Fold['counts']> {
  const grains = await redis.smembers(`${journal.keys.foldPrefix(seq)}grains`);
  return (await journal.readGrains([seq], grains))[0]?.counts ?? new Map();
}
