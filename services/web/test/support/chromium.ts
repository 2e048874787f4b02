/**
 * Debian's chromium (installed by scripts/ensure-chromium.sh) driven by playwright-core; Playwright's own
 * browser download does not work here. Each launch runs with a fresh temporary profile (user data dir)
 * that Playwright creates and removes. Usable by any browser test, the end-to-end journey included.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** The driver's types, for browser tests outside this package (tests/browser) that cannot resolve playwright-core themselves. */
export type { Browser, BrowserContext, Dialog, Page, Route } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run services/web/scripts/ensure-chromium.sh first`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
