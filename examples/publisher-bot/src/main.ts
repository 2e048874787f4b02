/**
 * Runs the example bot with long polling:
 *   BOT_TOKEN=... PILOT_BASE_URL=https://pilot.example PILOT_API_KEY=... node dist/main.js
 * TELEGRAM_API_ROOT points it at another Bot API server (default https://api.telegram.org).
 */
import { NetworkClient } from '@pilot/network-client';
import { createPublisherBot, type AdOutcome } from './bot';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

function logOutcome(outcome: AdOutcome): void {
  const { kind } = outcome;
  const line: Record<string, unknown> = { at: new Date().toISOString(), event: 'ad', kind };
  if ('ad' in outcome) line.campaignId = outcome.ad.campaign_id;
  if ('error' in outcome) line.error = outcome.error instanceof Error ? `${outcome.error.name}: ${outcome.error.message}` : String(outcome.error);
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function main(): Promise<void> {
  const client = new NetworkClient({ baseUrl: required('PILOT_BASE_URL'), apiKey: required('PILOT_API_KEY') });
  const apiRoot = process.env.TELEGRAM_API_ROOT;
  const bot = createPublisherBot({
    token: required('BOT_TOKEN'),
    client,
    onOutcome: logOutcome,
    botConfig: apiRoot ? { client: { apiRoot } } : undefined,
  });
  const stop = () => void bot.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await bot.start({
    onStart: (info) => {
      process.stdout.write(`${JSON.stringify({ event: 'started', bot: info.username })}\n`);
    },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
