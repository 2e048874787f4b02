#!/usr/bin/env node
// Plays the messaging platform for a local sign-in: posts the webhook update that the sign-in bot would
// receive when the person sends `/start <code>`. Usage: pnpm signin <code> [accountId] [displayName]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [code, accountArg, nameArg] = process.argv.slice(2);
if (!code || !/^[A-Za-z0-9_-]{1,64}$/.test(code)) {
  console.error('usage: pnpm signin <code> [accountId] [displayName]   (the code is shown on the sign-in page)');
  process.exit(2);
}
let local;
try {
  local = JSON.parse(readFileSync(path.join(root, '.data', 'local.json'), 'utf8'));
} catch {
  console.error('No local system found (.data/local.json). Start it first with the first command of README.md.');
  process.exit(1);
}
const accountId = accountArg ?? local.adminAccountIds.split(',')[0];
if (!/^[0-9]{1,20}$/.test(accountId)) {
  console.error('accountId must be numeric');
  process.exit(2);
}
const update = {
  update_id: Math.floor(Date.now() / 1000) * 1000 + Math.floor(Math.random() * 1000),
  message: {
    message_id: 1,
    date: Math.floor(Date.now() / 1000),
    chat: { id: Number(accountId), type: 'private' },
    from: { id: Number(accountId), is_bot: false, first_name: nameArg ?? `Local ${accountId}`, username: nameArg ?? `local_${accountId}` },
    text: `/start ${code}`,
  },
};
const response = await fetch(`${local.publicBaseUrl}/api/auth/telegram-webhook`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': local.telegramWebhookSecret },
  body: JSON.stringify(update),
});
const body = await response.text();
console.log(`webhook answered ${response.status}${body ? `: ${body}` : ''}`);
process.exit(response.ok ? 0 : 1);
