import { Bus } from '@pilot/messaging';
import type { KnownEvent } from '@pilot/contracts';
import { signedHeaders, createLogger } from '@pilot/platform';
import { infraEnv, ManualClock, signedWhenSent, testInfra, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { start, type RunningPlacement } from '../src/start';

export const ADMIN = { accountId: '1001', admin: true };
export const MEMBER = { accountId: '2002', admin: false };

export type Who = { accountId: string; admin: boolean } | null;

export interface Harness {
  infra: TestInfra;
  clock: ManualClock;
  service: RunningPlacement;
  /** Events seen on the bus by an observer queue bound to every event type. */
  events: KnownEvent[];
  call(method: 'get' | 'put' | 'post', path: string, who: Who, clientIp?: string): request.Test;
  stop(): Promise<void>;
}

/** `beforeStart` runs against the run's infrastructure before the service starts (data left by an earlier version). */
export async function startHarness(extra: Record<string, string> = {}, beforeStart?: (infra: TestInfra) => Promise<void>): Promise<Harness> {
  const infra = testInfra();
  await beforeStart?.(infra);
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z').getTime());
  const logger = createLogger({ service: 'placement-test', level: 'silent' });
  const events: KnownEvent[] = [];
  const observer = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger });
  await observer.ready();
  await observer.subscribeDurable({
    name: 'observer',
    eventTypes: ['placement.changed', 'allocation.created', 'campaign.activated', 'publisher.approved'],
    handler: async (event) => {
      events.push(event);
    },
  });
  const service = await start(loadConfig({ ...infraEnv(infra, 'placement'), ...extra }), logger, { clock });
  return {
    infra,
    clock,
    service,
    events,
    call(method, path, who, clientIp) {
      const sign = (body: string | Buffer | null) =>
        signedHeaders(infra.internalSecret, {
          method,
          url: path,
          accountId: who?.accountId ?? null,
          admin: who?.admin ?? false,
          clientIp: clientIp ?? null,
          body,
        });
      return signedWhenSent(request(service.url)[method](path), sign);
    },
    async stop() {
      await service.stop();
      await observer.close();
    },
  };
}
