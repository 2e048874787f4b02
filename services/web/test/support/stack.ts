/**
 * The stack browser tests run against: the real web service (serving a fresh build of the site), a fake of
 * the API in front of it (see fake-api.ts), and Debian's chromium driven by playwright-core.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@pilot/platform';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { start, type RunningWeb } from '../../src/start';
import { launchChromium } from './chromium';
import { FakeApi, type Account } from './fake-api';
import { builtSite } from './site';

export const SECRET = 'web-test-internal-secret-0123456789abcdef';
export const ARTIFACTS = path.resolve(__dirname, '..', '..', '..', '..', 'test-artifacts', 'web');

export const ADMIN: Account = { accountId: '1001', displayName: 'admin_ayla', admin: true };
export const OWNER: Account = { accountId: '2002', displayName: 'owner_deniz', admin: false };

export async function startWeb(root: string): Promise<RunningWeb> {
  return start(loadConfig({ NODE_ENV: 'test', PORT: '0', INTERNAL_SECRET: SECRET, WEB_ROOT: root, LOG_LEVEL: 'silent' }), createLogger({ service: 'web', level: 'silent' }));
}

export interface Stack {
  web: RunningWeb;
  api: FakeApi;
  browser: Browser;
  /** page errors and console errors seen in any page (a CSP violation shows up here) */
  problems: string[];
  /** a fresh browser profile (context) at this viewport, optionally signed in as `account` */
  open(options?: { account?: Account; width?: number; height?: number }): Promise<{ context: BrowserContext; page: Page }>;
  screenshot(page: Page, name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  const root = await builtSite();
  const web = await startWeb(root);
  const api = await new FakeApi(web.url, SECRET).start();
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return {
    web,
    api,
    browser,
    problems,
    async open(options = {}) {
      // Each context is a fresh profile: no cookies, no storage.
      const context = await browser.newContext({
        baseURL: api.url,
        viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
      });
      contexts.push(context);
      if (options.account) {
        await context.addCookies([{ name: 'pilot_session', value: api.sessionFor(options.account), url: api.url, httpOnly: true, sameSite: 'Lax' }]);
      }
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !/status of (401|403|404|409|422)/.test(message.text())) problems.push(`console: ${message.text()}`);
      });
      page.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      return { context, page };
    },
    async screenshot(page, name) {
      // Fields that show a key are masked: keys are never in screenshots (SPEC.md, Authentication 4).
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true, mask: [page.locator('[data-secret]')] });
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await api.stop();
      await web.stop();
    },
  };
}
