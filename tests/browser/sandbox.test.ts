/**
 * The sandbox and the platform page in a real browser against the whole running system:
 * the owner of a platform not yet approved makes a test key on the platform's page (shown once, next to
 * the base URL and the guide link), its server gets the test ad, whose button leads to the site's sandbox
 * page; the fill figures show the platform's 204s; the test key is revoked; a rejection shows its reason.
 * Screenshots go to test-artifacts/browser/.
 */
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { openLink, PublisherServer } from '../e2e/support/clients';
import { ADMIN_ID } from '../e2e/support/system';
import { startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const OWNER_ID = '5202';

async function registerDraft(page: Page, link: string): Promise<number> {
  await page.goto('/workspace/publishers');
  await page.getByLabel('Public link').fill(link);
  await page.getByRole('button', { name: 'Register as draft' }).click();
  await page.waitForURL(/\/workspace\/publishers\/\d+$/);
  return Number(/(\d+)$/.exec(page.url())?.[1]);
}

describe('the sandbox on the platform page, in a browser against the whole system', function () {
  this.timeout(120_000);
  let stack: BrowserSystem;
  let owner: Person;

  before(async function () {
    this.timeout(240_000);
    stack = await startBrowserSystem();
    owner = await stack.signIn(OWNER_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('lets the owner of a draft platform make a test key shown once, next to the base URL and the guide', async () => {
    const { page } = owner;
    const id = await registerDraft(page, '@sandbox_browser_bot');
    expect(id).to.be.greaterThan(0);
    expect(await page.getByTestId('api-base-url').textContent()).to.equal(stack.system.baseUrl);
    expect(await page.getByTestId('test-key-state').textContent()).to.contain('no test key');
    await page.getByRole('button', { name: 'Create test key' }).click();
    const field = page.getByTestId('new-test-key');
    await field.waitFor();
    const key = await field.inputValue();
    expect(key).to.match(/^pilot_pk_test_/);
    await stack.screenshot(page, 'sandbox-01-test-key');
    const stored = await page.evaluate<string>('JSON.stringify([Object.values(localStorage), Object.values(sessionStorage), location.href, document.cookie])');
    expect(stored).to.not.contain(key);

    // The publisher's server uses it at once: the test ad, whose button leads to the site's sandbox page.
    const server = new PublisherServer(stack.system, key);
    const ad = await server.ad('en');
    expect(ad.status, ad.text).to.equal(200);
    expect(ad.body).to.include({ sponsored: true });
    const click = await openLink(String(ad.body.click_url));
    expect(click.status).to.equal(302);
    const sandboxPage = click.headers.get('location') ?? '';
    expect(sandboxPage).to.equal(`${stack.system.baseUrl}/sandbox`);
    const visitor = await stack.open();
    await visitor.page.goto(sandboxPage);
    await visitor.page.getByRole('heading', { name: 'This was a test ad' }).waitFor();
    await stack.screenshot(visitor.page, 'sandbox-02-page');

    // Hidden once stored; the page says the key exists; the guide link opens the same explanation.
    await page.getByRole('button', { name: 'I have stored the test key; hide it' }).click();
    expect(await page.getByTestId('test-key-state').textContent()).to.contain('A test key exists since');
    expect(await page.content()).to.not.contain(key);
    await page.getByRole('link', { name: 'How the sandbox and the network API work' }).click();
    await page.waitForURL('**/sandbox');
    await page.goBack();
    await page.waitForURL(/\/workspace\/publishers\/\d+$/);
    // The guide itself (docs/publishers.md) is a page of the site, with its in-page links working.
    await page.getByRole('link', { name: 'Publishers guide' }).click();
    await page.waitForURL('**/guide');
    await page.getByRole('heading', { level: 1, name: 'Publishers: from a key to your first sponsored message' }).waitFor();
    await page.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.waitForURL('**/guide#sandbox-test-keys');
    expect(await page.getByRole('heading', { name: 'Sandbox (test keys)' }).isVisible()).to.equal(true);
    expect(await page.title()).to.equal('Publishers guide · Publisher pilot');
    await stack.screenshot(page, 'sandbox-03-guide');
    await page.goBack();
    await page.goBack();
    await page.waitForURL(/\/workspace\/publishers\/\d+$/);

    // Revoked: the key stops working.
    await page.getByRole('button', { name: 'Revoke test key…' }).click();
    await page.getByRole('button', { name: 'Yes, revoke the test key' }).click();
    await page.getByText('This platform has no test key.').waitFor();
    expect((await server.ad('en')).body).to.include({ code: 'invalid_key' });
  });

  it('shows the fill of an approved platform (its 200s and 204s) and a rejection\'s reason', async () => {
    const { page } = owner;
    const admin = await stack.signIn(ADMIN_ID);
    // No campaign is active: every ad call of the platform answers 204.
    const id = await registerDraft(page, '@sandbox_fill_bot');
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.locator('h1 .badge', { hasText: 'In review' }).waitFor();
    await admin.page.goto(`/workspace/publishers/${id}`);
    await admin.page.getByRole('button', { name: 'Approve' }).click();
    await admin.page.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Generate key' }).click();
    const server = new PublisherServer(stack.system, await page.getByTestId('new-key').inputValue());
    for (let i = 0; i < 3; i += 1) expect((await server.ad('en')).status).to.equal(204);
    // A key shown once makes leaving the page ask first; the owner has stored it.
    await page.getByRole('button', { name: 'I have stored the key; hide it' }).click();
    await page.reload();
    await page.getByTestId('platform-fill').waitFor();
    expect(await page.getByTestId('fill-200').textContent()).to.equal('0');
    expect(await page.getByTestId('fill-204').textContent()).to.equal('3');
    expect(await page.getByTestId('fill-rate').textContent()).to.equal('0.0%');
    await stack.screenshot(page, 'sandbox-03-fill');

    // The administrator rejects it with a reason; the owner reads the reason on the platform's page.
    await admin.page.reload();
    await admin.page.getByRole('button', { name: 'Reject…' }).click();
    await admin.page.getByLabel('Reason for the owner').fill('The bot does not link to its owner');
    await admin.page.getByRole('button', { name: 'Reject', exact: true }).click();
    await admin.page.locator('h1 .badge', { hasText: 'Rejected' }).waitFor();
    await page.reload();
    // The reason is also in the page's history: the notice of the rejection is the one read here.
    await page.locator('.reason', { hasText: 'The bot does not link to its owner' }).waitFor();
    await stack.screenshot(page, 'sandbox-04-rejected');
  });

  it('lands a problem\'s type on its code\'s explanation, and links the guide to its changelog and the client downloads', async () => {
    const { page } = owner;
    const answer = await fetch(`${stack.system.baseUrl}/api/network/ad?language=en`);
    const problem = (await answer.json()) as { type: string; code: string };
    expect(problem.code).to.equal('missing_key');
    await page.goto(problem.type);
    const heading = page.getByRole('heading', { level: 3, name: 'missing_key' });
    await heading.waitFor();
    expect(await heading.isVisible()).to.equal(true);
    expect(await page.evaluate<number>('window.scrollY'), 'scrolled to the code').to.be.greaterThan(0);
    expect(await page.title()).to.equal('Error codes · Publisher pilot');
    await stack.screenshot(page, 'sandbox-05-error-code');
    await page.goto('/guide');
    await page.getByRole('link', { name: 'Changelog and compatibility' }).first().click();
    await page.waitForURL('**/guide/changelog');
    await page.getByRole('heading', { level: 2, name: 'Compatibility policy' }).waitFor();
    await page.goto('/guide');
    const download = await page.getByRole('link', { name: '/downloads/network-client.tgz' }).getAttribute('href');
    expect(download).to.equal('/downloads/network-client.tgz');
    expect(await page.locator('article.guide').textContent()).to.not.contain('%NETWORK_CLIENT_');
  });
});
