/**
 * The report page against the whole running system (GET /api/workspace/stats/report, API.md "Workspace:
 * totals and audit"): dimensions, period and filters chosen on the page and kept in the address, a table
 * with a totals row sorted by any column's heading (`aria-sort`), campaign names and platform links beside
 * their ids, the CSV of every row as the service writes it, a chart when the first dimension is time, and
 * each account its own figures. Screenshots go to test-artifacts/browser/report-*.png.
 */
import fs from 'node:fs';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { openLink, signedIn, type Ad, type Browser as ApiBrowser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, type Publisher } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { expectFitsPhone, reloadUntil, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '7701';
const OWNER_ID = '7702';
const OTHER_ADVERTISER_ID = '7703';

async function text(locator: ReturnType<Page['locator']>): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

describe('the report page (browser, whole system)', function () {
  this.timeout(240_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let advertiser: Person;
  let campaignIds: number[] = [];
  let publisher: Publisher;

  before(async function () {
    this.timeout(300_000);
    stack = await startBrowserSystem({ settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '100' } } });
    const [adminApi, ownerApi] = await Promise.all([signedIn(stack.system, ADMIN_ID), signedIn(stack.system, OWNER_ID)]);
    advertiserApi = await signedIn(stack.system, ADVERTISER_ID);
    campaignIds = [(await activeCampaign(advertiserApi, adminApi, { name: 'Report one', language: 'en' })).id, (await activeCampaign(advertiserApi, adminApi, { name: 'Report two', language: 'de' })).id];
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisher = approved.publisher;
    const { server } = approved;
    for (const language of ['en', 'de']) await waitFor(async () => (await server.ad(language)).status === 200, { message: `a ${language} campaign is served` });
    for (const language of ['en', 'en', 'de']) {
      const answer = await server.ad(language);
      expect(answer.status, answer.text).to.equal(200);
      const ad = answer.body as unknown as Ad;
      expect((await server.confirm(ad.delivery_token)).status).to.equal(200);
      if (language === 'en') expect((await openLink(ad.click_url)).status).to.equal(302);
    }
    advertiser = await stack.signIn(ADVERTISER_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('crosses day, campaign and language with a totals row, names beside ids, sorting by a heading and the CSV of every row', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/report?by=day,campaign,language&period=today');
    const table = page.getByTestId('report-table');
    const totals = page.getByTestId('report-totals');
    // The figures are counted a moment after the events: read until both campaigns' rows are there.
    await reloadUntil(page, async () => ((await table.locator('tbody tr').count().catch(() => 0)) >= 2 && (await text(totals.locator('td[data-label="Clicked links"]')).catch(() => '')) === '2' ? true : null), 'the events counted');
    const headers = (await table.locator('thead th').allTextContents()).map((cell) => cell.replace(/[▼▲↕]/g, '').replace(/,.*$/, '').trim());
    expect(headers).to.deep.equal(['Day (UTC)', 'Campaign', 'Language', 'Ad requests', 'Confirmed deliveries', 'Clicked links']);
    expect(await text(totals.locator('td[data-label="Confirmed deliveries"]'))).to.equal('3');
    for (const [index, id] of campaignIds.entries()) await table.getByRole('link', { name: `#${id} Report ${index === 0 ? 'one' : 'two'}` }).waitFor();
    expect(await page.getByTestId('report-chart').count(), 'a chart when the first dimension is the day').to.equal(1);

    // Sorting by a figure's heading: the service's order, highest first, kept in the address.
    await table.getByRole('button', { name: /^Clicked links/ }).click();
    await page.waitForURL(/sort=clickedLinks/);
    expect(await text(table.locator('thead th[aria-sort="descending"]'))).to.match(/^Clicked links/);
    await waitFor(async () => (await text(table.locator('tbody tr').first().locator('td[data-label="Clicked links"]'))) === '2', { message: 'most clicks first' });
    await page.reload();
    await table.locator('tbody tr').first().waitFor();
    expect(await text(table.locator('thead th[aria-sort="descending"]'))).to.match(/^Clicked links/);

    // The CSV is every row the service has for what the table shows.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-csv').click()]);
    const csv = fs.readFileSync(await download.path(), 'utf8');
    const today = new Date().toISOString().slice(0, 10);
    const direct = await advertiserApi.get(`/api/workspace/stats/report?by=day,campaign,language&from=${today}&to=${today}&sort=clickedLinks&format=csv`);
    expect(direct.status).to.equal(200);
    expect(csv).to.equal(direct.text);
    expect(csv.split(/\r?\n/).filter(Boolean).length, 'a header and one line per row').to.equal((await table.locator('tbody tr').count()) + 1);
    await stack.screenshot(page, 'report-01-day-campaign-language');
    await expectFitsPhone(stack, page, 'report-02-375');
  });

  it('changes dimensions, period and filters on the page, kept in the address, and shows another account nothing of these records', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/report');
    await page.getByLabel('First dimension').selectOption('publisher');
    await page.waitForURL(/by=publisher/);
    await page.getByLabel('Period').selectOption('custom');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From (UTC)').fill(today);
    await page.getByLabel('To (UTC)').fill(today);
    await page.getByLabel('Campaign id').fill(String(campaignIds[0]));
    await page.waitForURL(new RegExp(`campaign=${campaignIds[0]}`));
    const table = page.getByTestId('report-table');
    await waitFor(async () => (await text(table.locator('tbody tr').first().locator('th')).catch(() => '')) === `#${publisher.id}`, { message: 'the platform, by id: the advertiser cannot open it' });
    // Three ad requests of campaign one: the one that found it served, then two more.
    await waitFor(async () => (await text(page.getByTestId('report-totals').locator('td[data-label="Ad requests"]')).catch(() => '')) === '3', { message: "campaign one's ad requests alone" });
    expect(await page.getByTestId('report-chart').count(), 'no chart when the first dimension is not time').to.equal(0);
    await page.reload();
    await table.locator('tbody tr').first().waitFor();
    expect(await page.getByLabel('First dimension').inputValue()).to.equal('publisher');
    expect(await page.getByLabel('Campaign id').inputValue()).to.equal(String(campaignIds[0]));
    expect(await text(page.getByTestId('report-shown'))).to.equal('Page 1: 1 row, all of them');

    const other = await stack.signIn(OTHER_ADVERTISER_ID);
    await other.page.goto('/workspace/report?by=campaign&period=today');
    await other.page.getByTestId('report-empty').waitFor();
  });
});
