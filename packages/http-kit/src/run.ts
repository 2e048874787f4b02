/**
 * The life of a service process: load config (a bad setting stops it with a message naming the setting),
 * start, and on SIGTERM/SIGINT stop in reverse order and exit 0.
 */
import type { Logger } from '@pilot/logging';
import { asyncStdout, createLogger } from '@pilot/logging';

export interface Stoppable {
  stop(): Promise<void>;
}

export async function runService<C>(
  service: string,
  loadConfig: (env: NodeJS.ProcessEnv) => C,
  start: (config: C, logger: Logger) => Promise<Stoppable>,
): Promise<void> {
  let config: C;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`${service}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger({ service, level: process.env.LOG_LEVEL ?? 'info', destination: asyncStdout() });
  let running: Stoppable;
  try {
    running = await start(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'failed to start');
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    running
      .stop()
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'unclean stop');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
}
