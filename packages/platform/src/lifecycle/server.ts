import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes what is left. */
  close(graceMs?: number): Promise<void>;
}

export async function listen(app: Express | ((req: never, res: never) => void), port: number, host = '127.0.0.1'): Promise<RunningServer> {
  const { createServer } = await import('node:http');
  const server = createServer(app as Parameters<typeof createServer>[1]);
  // Longer than the gateway's upstream agent idle timeout, so the gateway never reuses a socket we closed.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    server,
    port: actualPort,
    url: `http://${host}:${actualPort}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        // A keep-alive socket (the gateway's agents, fetch) becomes idle when its in-flight response ends;
        // close it then instead of waiting out the whole grace period.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        sweep.unref();
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
