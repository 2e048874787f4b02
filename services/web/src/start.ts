/**
 * Serves the workspace frontend and the public site pages (the Vite build, static files) behind the
 * gateway. Config -> app (probes, logs, signature check) -> the guide's pages -> static site -> listen; stop() closes the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { listen, createServiceApp, type Logger } from '@pilot/platform';
import type { Config } from './config';
import { guidePages } from './http/guide-pages';
import { staticSite } from './http/static-site';

export interface RunningWeb {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The Vite build output: dist/site of this package (the same from src/ under tsx and from dist/). */
export const DEFAULT_SITE_ROOT = path.resolve(__dirname, '..', 'dist', 'site');

export async function start(config: Config, logger: Logger): Promise<RunningWeb> {
  const root = config.WEB_ROOT || DEFAULT_SITE_ROOT;
  const indexFile = path.join(root, 'index.html');
  const { app, finish } = createServiceApp({
    service: 'web',
    logger,
    internalSecret: config.INTERNAL_SECRET,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    readiness: {
      site: async () => {
        await fs.promises.access(indexFile, fs.constants.R_OK);
      },
    },
  });
  app.use(guidePages(root, config.PUBLIC_BASE_URL));
  app.use(staticSite(root));
  finish();
  const server = await listen(app, config.PORT, config.HOST);
  logger.info({ url: server.url, root }, 'web listening');
  return { url: server.url, port: server.port, stop: () => server.close() };
}
