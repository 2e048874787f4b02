/**
 * The life of a service process: load config (a bad setting stops it with a message naming the setting),
 * start, and on SIGTERM/SIGINT drain (probes answer 503 for SHUTDOWN_DRAIN_MS, default 2 s, while requests
 * are still served, so the gateway and Kubernetes stop sending new ones), then stop in reverse order and
 * exit 0.
 */
import type { Logger } from '../logging';
import { asyncStdout, createLogger, networkLogSampleRateOf } from '../logging';
import { beginDraining } from './draining';

const DEFAULT_DRAIN_MS = 2_000;

/** SHUTDOWN_DRAIN_MS: a whole number of milliseconds, 0 to skip draining. */
function drainMsOf(env: NodeJS.ProcessEnv): number {
  const raw = env.SHUTDOWN_DRAIN_MS;
  if (raw === undefined || raw === '') return DEFAULT_DRAIN_MS;
  if (!/^[0-9]{1,6}$/.test(raw)) throw new Error(`SHUTDOWN_DRAIN_MS: "${raw}" is not a number of milliseconds`);
  return Number(raw);
}

export interface Stoppable {
  stop(): Promise<void>;
}

export async function runService<C>(
  service: string,
  loadConfig: (env: NodeJS.ProcessEnv) => C,
  start: (config: C, logger: Logger) => Promise<Stoppable>,
): Promise<void> {
  let config: C;
  let drainMs: number;
  try {
    config = loadConfig(process.env);
    drainMs = drainMsOf(process.env);
    networkLogSampleRateOf(process.env); // a bad value stops the process here, with the setting's name
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
    logger.info({ signal, drainMs }, 'draining, then stopping');
    beginDraining();
    new Promise((resolve) => setTimeout(resolve, drainMs))
      .then(() => running.stop())
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
