#!/usr/bin/env node
// Starts every service (and the requested replicas) as its own process on local infrastructure, waits
// until the gateway reports every upstream ready, prints where to open it, and stops everything on Ctrl-C.
// Usage: node scripts/run-system.mjs [--replicas allocation=2,tracking=2] [--bot-stand-in]
// Without TELEGRAM_BOT_TOKEN the notification service sends nothing (it says so at start). With
// --bot-stand-in a local stand-in of the Bot API (packages/testkit) takes the bot's messages instead:
// read what an account was told at http://127.0.0.1:8081/stand-in/chats/<account id>.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = [
  { name: 'publisher-identity', port: 8101, gatewayVar: 'IDENTITY_URLS', db: 'publisher_identity' },
  { name: 'campaign', port: 8102, gatewayVar: 'CAMPAIGN_URLS', db: 'campaign' },
  // A small young generation, as deployed (decision 0058): allocation's RSS stays under 150 MB.
  { name: 'allocation', port: 8103, gatewayVar: 'ALLOCATION_URLS', db: 'allocation', nodeOptions: '--max-semi-space-size=4' },
  { name: 'tracking', port: 8104, gatewayVar: 'TRACKING_URLS', db: 'tracking' },
  { name: 'placement', port: 8105, gatewayVar: 'PLACEMENT_URLS', db: 'placement' },
  { name: 'notification', port: 8107, gatewayVar: 'NOTIFICATION_URLS', db: 'notification' },
  { name: 'web', port: 8106, gatewayVar: 'WEB_URLS', db: 'web' },
];

function parseReplicas(argv) {
  const replicas = Object.fromEntries(SERVICES.map((service) => [service.name, 1]));
  const index = argv.indexOf('--replicas');
  if (index >= 0) {
    for (const item of (argv[index + 1] ?? '').split(',').filter(Boolean)) {
      const [name, count] = item.split('=');
      if (!(name in replicas) || !/^[1-9]$/.test(count ?? '')) {
        console.error(`--replicas: "${item}" is not <service>=<1..9>; services: ${Object.keys(replicas).join(', ')}`);
        process.exit(2);
      }
      replicas[name] = Number(count);
    }
  }
  return replicas;
}

const replicas = parseReplicas(process.argv.slice(2));
const botStandIn = process.argv.includes('--bot-stand-in');
const BOT_STAND_IN_PORT = 8081;
const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${process.env.GATEWAY_PORT ?? 8080}`;
const secrets = {
  INTERNAL_SECRET: process.env.INTERNAL_SECRET ?? randomBytes(32).toString('base64url'),
  TOKEN_SECRET: process.env.TOKEN_SECRET ?? randomBytes(32).toString('base64url'),
  TELEGRAM_WEBHOOK_SECRET: process.env.TELEGRAM_WEBHOOK_SECRET ?? randomBytes(24).toString('base64url'),
};
const shared = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  PUBLIC_BASE_URL: publicBaseUrl,
  ADMIN_ACCOUNT_IDS: process.env.ADMIN_ACCOUNT_IDS ?? '1000',
  MONGO_URL: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/',
  AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  CAMPAIGN_URL: 'http://127.0.0.1:8102',
  IDENTITY_URL: 'http://127.0.0.1:8101',
  ...(botStandIn
    ? { TELEGRAM_BOT_TOKEN: '100000:local-stand-in-token', TELEGRAM_API_BASE_URL: `http://127.0.0.1:${BOT_STAND_IN_PORT}` }
    : {}),
  ...secrets,
};

// What `pnpm signin` needs to play the messaging platform locally.
mkdirSync(path.join(root, '.data'), { recursive: true });
writeFileSync(
  path.join(root, '.data', 'local.json'),
  JSON.stringify({ publicBaseUrl, telegramWebhookSecret: secrets.TELEGRAM_WEBHOOK_SECRET, adminAccountIds: shared.ADMIN_ACCOUNT_IDS }, null, 2),
  { mode: 0o600 },
);

const children = [];
let stopping = false;

function launch(name, entry, env) {
  const child = spawn(process.execPath, [entry], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const label = `[${name}] `;
  const relay = (stream, out) => {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) out.write(label + line + '\n');
    });
  };
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${label}exited (${signal ?? code}); stopping the system`);
      void stopAll(1);
    }
  });
  children.push(child);
}

if (botStandIn) {
  launch('bot-api-stand-in', path.join(root, 'packages', 'testkit', 'dist', 'bot-api-stand-in.js'), { ...process.env, BOT_API_STAND_IN_PORT: String(BOT_STAND_IN_PORT) });
}

const gatewayEnv = {
  ...shared,
  GATEWAY_PORT: String(new URL(publicBaseUrl).port || 8080),
  GATEWAY_OPERATOR_PORT: process.env.GATEWAY_OPERATOR_PORT ?? '8090',
};
for (const service of SERVICES) {
  const urls = [];
  for (let replica = 0; replica < replicas[service.name]; replica += 1) {
    const port = service.port + replica * 100;
    urls.push(`http://127.0.0.1:${port}`);
    const name = replicas[service.name] > 1 ? `${service.name}#${replica + 1}` : service.name;
    const nodeOptions = service.nodeOptions ? { NODE_OPTIONS: [shared.NODE_OPTIONS, service.nodeOptions].filter(Boolean).join(' ') } : {};
    launch(name, path.join(root, 'services', service.name, 'dist', 'main.js'), { ...shared, PORT: String(port), MONGO_DB: service.db, ...nodeOptions });
  }
  gatewayEnv[service.gatewayVar] = urls.join(',');
}
launch('gateway', path.join(root, 'services', 'gateway', 'dist', 'main.js'), gatewayEnv);

async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  const deadline = Date.now() + 15_000;
  while (children.some((child) => child.exitCode === null && child.signalCode === null) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  process.exit(exitCode);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

// The gateway's operator port reports every upstream replica: the system is up when each one is ready.
const readyUrl = `http://127.0.0.1:${gatewayEnv.GATEWAY_OPERATOR_PORT}/readyz`;
const deadline = Date.now() + 90_000;
let last = '';
while (!stopping) {
  try {
    const response = await fetch(readyUrl, { signal: AbortSignal.timeout(3000) });
    last = await response.text();
    if (response.ok && Object.values(JSON.parse(last).checks ?? {}).every((check) => check === 'ok')) break;
  } catch (error) {
    last = error.message;
  }
  if (Date.now() > deadline) {
    console.error(`The system did not become ready within 90 s: ${last}`);
    await stopAll(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}

console.log(`
  Publisher pilot is running.
  Open ${publicBaseUrl}/            (each service's readiness and the metrics: ${readyUrl}, /metrics)

  Sign in locally (there is no real bot here): click "Sign in" on the site, then run
      pnpm signin <code> [accountId]
  with the code the page shows (it sends /start <code> as that account and presses Confirm in the bot's question). Account ${shared.ADMIN_ACCOUNT_IDS.split(',')[0]} is an administrator in local runs; any other
  numeric id is an ordinary account.

${botStandIn ? `  The sign-in bot's messages go to a local stand-in of the Bot API: what account 1000 was told is at
      http://127.0.0.1:${BOT_STAND_IN_PORT}/stand-in/chats/1000
` : `  No bot token (TELEGRAM_BOT_TOKEN): the notification service sends nothing. Start with --bot-stand-in
  to see the messages people would get.
`}
  Press Ctrl-C to stop everything.
`);
