/**
 * Serves the workspace frontend and the public site pages (static files) behind the gateway.
 * Unknown paths under the workspace fall back to the single-page app's index.
 */
import path from 'node:path';
import { createServiceApp, listen } from '@pilot/http-kit';
import type { Logger } from '@pilot/logging';
import express from 'express';
import type { Config } from './config';

export interface RunningWeb {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function start(config: Config, logger: Logger): Promise<RunningWeb> {
  const root = config.WEB_ROOT || path.resolve(__dirname, '..', 'public');
  const { app, finish } = createServiceApp({ service: 'web', logger, internalSecret: config.INTERNAL_SECRET, readiness: {} });
  app.use(express.static(root, { index: 'index.html', maxAge: '5m', fallthrough: true }));
  app.get('/{*page}', (req, res, next) => {
    if (req.path.startsWith('/api/') || path.extname(req.path)) {
      next();
      return;
    }
    res.sendFile(path.join(root, 'index.html'));
  });
  finish();
  const server = await listen(app, config.PORT, config.HOST);
  logger.info({ url: server.url }, 'web listening');
  return { url: server.url, port: server.port, stop: () => server.close() };
}
