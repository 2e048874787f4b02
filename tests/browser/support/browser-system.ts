/**
 * The whole running system (gateway, every service, the web service serving a fresh build of the site) and
 * Debian's chromium driven by playwright-core, for browser tests of the real product. Each person gets a
 * fresh browser profile (context); signing in goes through the page and the bot's webhook, as it does for
 * people. Screenshots go to test-artifacts/browser/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { launchChromium, type Browser, type BrowserContext, type Page } from '../../../services/web/test/support/chromium';
import { builtSite } from '../../../services/web/test/support/site';
import { botConfirms } from '../../e2e/support/clients';
import { startSystem, type System, type SystemOptions } from '../../e2e/support/system';

export const ARTIFACTS = path.resolve(__dirname, '..', '..', '..', 'test-artifacts', 'browser');

/** Console lines that are the browser reporting an answer the page expects and handles (e.g. 401 before sign-in, 204 slots). */
const EXPECTED_CONSOLE = /status of (401|403|404|409|410|422)/;

export interface Person {
  context: BrowserContext;
  page: Page;
}

/** The page marks every field that shows a key (the live key once generated, a test key, the test request's). */
const KEY_FIELDS = '[data-secret]';

export interface BrowserSystem {
  system: System;
  browser: Browser;
  /** page errors, console errors and dialogs seen in any page; a test asserts this stays empty */
  problems: string[];
  /** a fresh browser profile at this viewport, not signed in */
  open(options?: { width?: number; height?: number }): Promise<Person>;
  /** a fresh profile signed in as `accountId` through the sign-in page and the bot's confirmation */
  signIn(accountId: string, options?: { width?: number; height?: number; screenshot?: string }): Promise<Person>;
  /** A full-page PNG in test-artifacts/browser; every field that shows a key is masked (SPEC.md, Authentication 4). */
  screenshot(page: Page, name: string): Promise<string>;
  stop(): Promise<void>;
}

/** `options` go to startSystem (a clock, settings); the web service always serves the fresh build. */
export async function startBrowserSystem(options: SystemOptions = {}): Promise<BrowserSystem> {
  const root = await builtSite();
  const system = await startSystem({ ...options, settings: { ...options.settings, web: { ...options.settings?.web, WEB_ROOT: root } } });
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await system.stop();
    throw error;
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  const open = async (options: { width?: number; height?: number } = {}): Promise<Person> => {
    const context = await browser.newContext({
      baseURL: system.baseUrl,
      viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !EXPECTED_CONSOLE.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
      void dialog.dismiss();
    });
    return { context, page };
  };

  const screenshot = async (page: Page, name: string): Promise<string> => {
    const file = path.join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true, mask: [page.locator(KEY_FIELDS)] });
    return file;
  };

  return {
    system,
    browser,
    problems,
    open,
    screenshot,
    async signIn(accountId, options = {}) {
      const person = await open(options);
      const { page } = person;
      await page.goto('/signin');
      await page.getByRole('button', { name: 'Get a sign-in code' }).click();
      const codeText = page.getByTestId('signin-code');
      await codeText.waitFor();
      const code = (await codeText.textContent())?.trim() ?? '';
      expect(code, 'the sign-in code shown on the page').to.match(/^\S{4,}$/);
      if (options.screenshot) await screenshot(page, options.screenshot);
      // The messaging platform delivers "/start <code>" from this account, then its press of Confirm.
      const confirmed = await botConfirms(system, code, accountId);
      expect(confirmed.status, confirmed.text).to.equal(200);
      // The person comes back to the page from the messaging app (the tab shown again): it asks at once.
      await page.evaluate("window.dispatchEvent(new Event('visibilitychange'))");
      await page.waitForURL('**/workspace', { timeout: 20_000 });
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor({ timeout: 20_000 });
      return person;
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await system.stop();
    },
  };
}

/** Reloads `page` until `read` gives a value (the system's read models catch up through the bus). */
export async function reloadUntil<T>(page: Page, read: () => Promise<T | null>, message: string): Promise<NonNullable<T>> {
  return waitFor(
    async () => {
      const value = await read();
      if (value !== null) return value;
      await page.reload();
      return null;
    },
    { timeoutMs: 30_000, intervalMs: 500, message },
  );
}

/**
 * In the calling describe: the system stopped after its tests, and each test failed by the page errors,
 * console errors or dialogs it caused. `stackOf` is read when the hooks run (the system starts in before()).
 */
export function stopAndWatchForProblems(stackOf: () => BrowserSystem | undefined): void {
  after(async () => {
    await stackOf()?.stop();
  });
  afterEach(() => {
    const seen = stackOf()?.problems.splice(0) ?? [];
    expect(seen, 'page errors, console errors or dialogs').to.deep.equal([]);
  });
}

export const PHONE_VIEWPORT = { width: 375, height: 740 };
const DESKTOP_VIEWPORT = { width: 1280, height: 800 };

/** Runs `work` with `page` 375 px wide, then gives it back its size, also when `work` fails (later tests share the page). */
export async function atPhoneWidth<T>(page: Page, work: () => Promise<T>): Promise<T> {
  const size = page.viewportSize() ?? DESKTOP_VIEWPORT;
  await page.setViewportSize(PHONE_VIEWPORT);
  try {
    return await work();
  } finally {
    await page.setViewportSize(size);
  }
}

/** At 375 px the page has no sideways scrolling; a screenshot of it there as `name`. */
export async function expectFitsPhone(stack: BrowserSystem, page: Page, name: string): Promise<void> {
  await atPhoneWidth(page, async () => {
    expect(await scrollWidth(page), `${name} fits 375 px`).to.be.at.most(PHONE_VIEWPORT.width);
    await stack.screenshot(page, name);
  });
}

/** How wide the page lays out: more than the viewport means sideways scrolling. */
export async function scrollWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.scrollingElement.scrollWidth');
}

/** The UTC date `offsetDays` from today, as the date fields and the address show it (YYYY-MM-DD). */
export function isoDay(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}
