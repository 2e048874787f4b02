import { Bus } from '@pilot/messaging';
import type { KnownEvent } from '@pilot/contracts';
import { signedHeaders, createLogger } from '@pilot/platform';
import { infraEnv, ManualClock, signedFor, testInfra, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { start, type RunningPlacement, type StartOptions } from '../src/start';

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
    call: callerOf(infra, service.url),
    async stop() {
      await service.stop();
      await observer.close();
    },
  };
}

/** A second replica of the harness's service: the same database, Redis namespace, bus and clock. */
export async function startReplica(h: Harness, options: Omit<StartOptions, 'clock'> = {}): Promise<Pick<Harness, 'service' | 'call'>> {
  const logger = createLogger({ service: 'placement-test-replica', level: 'silent' });
  const service = await start(loadConfig(infraEnv(h.infra, 'placement')), logger, { ...options, clock: h.clock });
  return { service, call: callerOf(h.infra, service.url) };
}

function callerOf(infra: TestInfra, url: string): Harness['call'] {
  return (method, path, who, clientIp) =>
    signedFor(request(url)[method](path), method, path, { accountId: who?.accountId ?? null, admin: who?.admin ?? false, clientIp }, (call) => signedHeaders(infra.internalSecret, call));
}
