import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@pilot/platform';
import { uniqueName } from '@pilot/testkit';
import { loadConfig } from '../src/config';
import { start, type RunningGateway, type StartOptions } from '../src/start';

export interface StandIn {
  url: string;
  requests: IncomingMessage[];
  close(): Promise<void>;
}

/** A plain HTTP server standing in for an upstream service, answering with `handler`. */
export async function standIn(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<StandIn> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const SECRET = 'gateway-test-secret-0123456789abcdef';

export async function startGateway(urls: Partial<Record<string, string>>, extra: Record<string, string> = {}, options: StartOptions = {}): Promise<RunningGateway> {
  const fallback = 'http://127.0.0.1:1';
  const config = loadConfig({
    NODE_ENV: 'test',
    GATEWAY_PORT: '0',
    INTERNAL_SECRET: SECRET,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    IDENTITY_URLS: urls.identity ?? fallback,
    CAMPAIGN_URLS: urls.campaign ?? fallback,
    ALLOCATION_URLS: urls.allocation ?? fallback,
    TRACKING_URLS: urls.tracking ?? fallback,
    PLACEMENT_URLS: urls.placement ?? fallback,
    NOTIFICATION_URLS: urls.notification ?? fallback,
    WEB_URLS: urls.web ?? fallback,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `${uniqueName('gateway')}:`,
    ...extra,
  });
  return start(config, createLogger({ service: 'gateway', level: 'silent' }), options);
}
