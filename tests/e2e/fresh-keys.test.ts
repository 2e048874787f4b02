/**
 * Issue "Freshly generated keys that never work": every key the workspace hands out works on its next ad
 * request, when platforms are set up in parallel, and also when Redis still holds the key read model of an
 * earlier run whose database is gone (a fresh local start against the machine's long-lived Redis). The
 * earlier run's entries had higher versions for the same publisher ids and silently blocked the new writes.
 */
import { expect } from 'chai';
import { PublisherServer, signedIn, type Browser } from './support/clients';
import { activeCampaign, approvedPublisher } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

const PLATFORMS = 100;
const IN_PARALLEL = 8;

/** Runs `work` for 0..count-1, at most `limit` at a time, keeping the results in order. */
async function inBatches<T>(count: number, limit: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += limit) {
    const batch = Array.from({ length: Math.min(limit, count - start) }, (_, offset) => work(start + offset));
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

describe('freshly generated keys (through the gateway)', function () {
  this.timeout(240_000);
  let earlier: System | undefined;
  let system: System | undefined;

  after(async () => {
    await earlier?.stop();
    await system?.stop();
  });

  it('works on the next request for each of 100 platforms set up 8 at a time, over the read model an earlier database left in Redis', async () => {
    // An earlier run: platforms whose records reached higher versions (rotated keys) than a new
    // platform's first key generation will have, under the same Redis prefix.
    earlier = await startSystem();
    const earlierAdmin = await signedIn(earlier, ADMIN_ID);
    const earlierOwner = await signedIn(earlier, '7100');
    const earlierKeys: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const { publisher, server } = await approvedPublisher(earlier, earlierOwner, earlierAdmin);
      for (let rotation = 0; rotation < 3; rotation += 1) {
        const rotated = await earlierOwner.post<{ key: string }>(`/api/workspace/publishers/${publisher.id}/keys`);
        expect(rotated.status, rotated.text).to.equal(201);
        server.key = rotated.body.key;
      }
      earlierKeys.push(server.key);
    }
    const redisPrefix = earlier.infra.redisPrefix;
    await earlier.stop();
    earlier = undefined;

    // A fresh start: new databases, the same Redis and prefix.
    system = await startSystem({ redisPrefix });
    const fresh = system;
    const admin = await signedIn(fresh, ADMIN_ID);
    const owners: Browser[] = [];
    for (const accountId of ['7201', '7202', '7203', '7204']) owners.push(await signedIn(fresh, accountId));
    const advertiser = await signedIn(fresh, '7300');
    await activeCampaign(advertiser, admin);

    const servers = await inBatches(PLATFORMS, IN_PARALLEL, async (index) => {
      const { publisher, server } = await approvedPublisher(fresh, owners[index % owners.length]!, admin);
      const next = await server.ad();
      return { id: publisher.id, status: next.status, code: (next.body as { code?: string } | null)?.code };
    });
    const refused = servers.filter((answer) => answer.status !== 200 && answer.status !== 204);
    expect(refused, `platforms whose fresh key was refused: ${JSON.stringify(refused)}`).to.deep.equal([]);
    expect(servers.map((answer) => answer.id)).to.include.members([1, 2, 3, 12]);

    // And nothing the earlier database issued opens the new system.
    for (const key of earlierKeys) {
      const answer = await new PublisherServer(fresh, key).ad();
      expect(answer.status).to.equal(401);
      expect((answer.body as { code?: string }).code).to.equal('invalid_key');
    }
  });
});
