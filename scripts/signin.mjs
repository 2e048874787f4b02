#!/usr/bin/env node
// Plays the messaging platform for a local sign-in: posts the webhook update that the sign-in bot would
// receive when the person sends `/start <code>`, prints the bot's question (which browser, address and
// time asked), then presses its first button, Confirm (or Cancel with --cancel).
// Usage: pnpm signin <code> [accountId] [displayName] [--cancel]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const cancel = args.includes('--cancel');
const [code, accountArg, nameArg] = args.filter((arg) => arg !== '--cancel');
if (!code || !/^[A-Za-z0-9_-]{1,64}$/.test(code)) {
  console.error('usage: pnpm signin <code> [accountId] [displayName] [--cancel]   (the code is shown on the sign-in page)');
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
const chat = { id: Number(accountId), type: 'private' };
const from = { id: Number(accountId), is_bot: false, first_name: nameArg ?? `Local ${accountId}`, username: nameArg ?? `local_${accountId}` };
let updateId = Math.floor(Date.now() / 1000) * 1000 + Math.floor(Math.random() * 1000);

async function deliver(update) {
  const response = await fetch(`${local.publicBaseUrl}/api/auth/telegram-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': local.telegramWebhookSecret },
    body: JSON.stringify({ update_id: (updateId += 1), ...update }),
  });
  const text = await response.text();
  if (!response.ok) {
    console.error(`webhook answered ${response.status}${text ? `: ${text}` : ''}`);
    process.exit(1);
  }
  return text ? JSON.parse(text) : null;
}

const now = Math.floor(Date.now() / 1000);
const question = await deliver({ message: { message_id: 1, date: now, chat, from, text: `/start ${code}` } });
console.log(`bot: ${question?.text ?? '(no answer)'}`);
const button = question?.reply_markup?.inline_keyboard?.[0]?.[cancel ? 1 : 0];
if (!button) process.exit(1);
console.log(`pressing "${button.text}"`);
const answer = await deliver({ callback_query: { id: String(updateId), from, message: { message_id: 1, date: now, chat }, chat_instance: String(accountId), data: button.callback_data } });
console.log(`bot: ${answer?.text ?? '(no answer)'}`);
