/**
 * Redis must never evict: the counts not folded yet, the counted-once sets, the key read model and the
 * limits all live there, and an evicted key is a count lost, a fact counted twice, a key refused or a
 * limit forgotten. Only `noeviction` keeps them (a full Redis then refuses writes: 503s, nothing lost).
 * Each service checks the policy at start: in production it refuses to start otherwise, elsewhere it warns.
 */
import type { Redis } from 'ioredis';

export const REQUIRED_EVICTION_POLICY = 'noeviction';

export class EvictionPolicyError extends Error {
  constructor(readonly policy: string) {
    super(`Redis maxmemory-policy is ${policy}; set it to ${REQUIRED_EVICTION_POLICY} (docs/operations.md): an evicted key loses counts, limits or keys`);
    this.name = 'EvictionPolicyError';
  }
}

/** The server's maxmemory-policy, from INFO (which managed Redis services answer even where CONFIG is disabled). */
export async function evictionPolicyOf(redis: Redis): Promise<string | null> {
  const info = await redis.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

export interface EvictionCheckOptions {
  production: boolean;
  logger: { warn(details: object, message: string): void };
}

/**
 * Throws EvictionPolicyError in production when the policy is not `noeviction`; outside production warns.
 * A policy that cannot be read is warned about, never a reason to refuse.
 */
export async function checkEvictionPolicy(redis: Redis, { production, logger }: EvictionCheckOptions): Promise<void> {
  let policy: string | null;
  try {
    policy = await evictionPolicyOf(redis);
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'Redis maxmemory-policy could not be read; it must be noeviction');
    return;
  }
  if (policy === REQUIRED_EVICTION_POLICY) return;
  if (policy === null) {
    logger.warn({}, 'Redis did not say its maxmemory-policy; it must be noeviction');
    return;
  }
  if (production) throw new EvictionPolicyError(policy);
  logger.warn({ policy }, `REDIS MAY EVICT KEYS: maxmemory-policy is ${policy}, not noeviction; counts, limits and keys can be lost (refused in production)`);
}
