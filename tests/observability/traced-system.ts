/**
 * A child process for tests/observability/tracing.test.ts: tracing started first (exporting over OTLP/HTTP
 * to OTEL_EXPORTER_OTLP_ENDPOINT, the test's receiver), then the whole system, then a campaign activation,
 * an ad request, its confirmation and its click. Prints one JSON line (the ids the test looks for, and
 * every log line with a trace id) and exits once the spans are flushed.
 */
// First: the instrumentations patch http, express, amqplib, ioredis and mongodb as they are loaded.
import { tracing } from './start-tracing';
import { waitFor } from '@pilot/testkit';
import { openLink, signedIn } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem } from '../e2e/support/system';

async function main(): Promise<void> {
  const logLines: string[] = [];
  const system = await startSystem({ logLevel: 'info', logSink: { write: (line: string) => void logLines.push(line) } });
  try {
    const admin = await signedIn(system, ADMIN_ID);
    const advertiser = await signedIn(system, '7301');
    const publisherOwner = await signedIn(system, '7302');
    const campaign = await activeCampaign(advertiser, admin);
    const { server } = await approvedPublisher(system, publisherOwner, admin);
    const ad = await waitFor(async () => {
      const answer = await server.ad('en');
      return answer.status === 200 ? answer : null;
    }, { timeoutMs: 5000, intervalMs: 100, message: 'an ad in en' });
    const body = ad.body as { delivery_token: string; click_url: string };
    const confirmation = await server.confirm(body.delivery_token);
    const click = await openLink(body.click_url);
    await new Promise((resolve) => setTimeout(resolve, 500)); // cache updates of the activation
    process.stdout.write(
      `${JSON.stringify({
        campaignId: campaign.id,
        clickToken: body.click_url.split('/').pop(),
        statuses: { ad: ad.status, confirmation: confirmation.status, click: click.status },
        logLines: logLines.filter((line) => line.includes('"trace_id"')),
      })}\n`,
    );
  } finally {
    await system.stop();
    await tracing?.shutdown();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
