/**
 * What users of ad dashboards expect, in a real browser against the whole running system
 * (gateway, every service, the web service serving a fresh build) on real RabbitMQ, Redis and FerretDB:
 * a campaign's and a platform's own totals with click-through and confirmation rates, date presets, every
 * day of the range and its CSV; the status history from the audit record; search, status and paging in
 * the lists, answered by the service; next to a platform's keys the example request and answer, "Send a test
 * request" with the test key and when each key was last used. Every page at 375 px, the controls by
 * keyboard. Records the tests only start from are made through the API as the same people.
 * Screenshots go to test-artifacts/browser/dashboards-*.png.
 */
import fs from 'node:fs';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { openLink, signedIn, type Ad, type Browser as ApiBrowser } from '../e2e/support/clients';
import { formatDate } from '../../services/web/frontend/src/format';
import { activeCampaign, approvedPublisher, draftCampaign } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { atPhoneWidth, expectFitsPhone, isoDay, reloadUntil, scrollWidth, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '7101';
const OWNER_ID = '7102';
const DRAFTS = 27;

async function text(locator: ReturnType<Page['locator']>): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

describe('ad dashboards: totals, rates, presets, CSV, history, lists and the key facts, in a browser against the whole system', function () {
  this.timeout(180_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let ownerApi: ApiBrowser;
  let advertiser: Person;
  let owner: Person;
  let admin: Person;
  let campaignId = 0;
  let publisherId = 0;
  let liveKey = '';

  before(async function () {
    this.timeout(300_000);
    stack = await startBrowserSystem();
    [advertiserApi, adminApi, ownerApi] = await Promise.all([signedIn(stack.system, ADVERTISER_ID), signedIn(stack.system, ADMIN_ID), signedIn(stack.system, OWNER_ID)]);
    campaignId = (await activeCampaign(advertiserApi, adminApi, { name: 'Dashboards campaign' })).id;
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisherId = approved.publisher.id;
    liveKey = approved.server.key;

    // Today: 4 ads served, 2 deliveries confirmed, 1 link opened (click-through 50.0 %, confirmation 50.0 %).
    const server = approved.server;
    const ads: Ad[] = [];
    await waitFor(async () => (await server.ad('en')).status === 200, { message: 'the campaign is served' });
    for (let i = 0; i < 3; i += 1) {
      const answer = await server.ad('en');
      expect(answer.status, answer.text).to.equal(200);
      ads.push(answer.body as unknown as Ad);
    }
    const [first, second] = ads;
    if (!first || !second) throw new Error('no ads');
    expect((await server.confirm(first.delivery_token)).status).to.equal(200);
    expect((await server.confirm(second.delivery_token)).status).to.equal(200);
    expect((await openLink(first.click_url)).status).to.equal(302);

    advertiser = await stack.signIn(ADVERTISER_ID);
    owner = await stack.signIn(OWNER_ID);
    admin = await stack.signIn(ADMIN_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('1-2: shows a campaign\'s own totals with both rates, presets by keyboard, every day of the range and its CSV, at 375 px too', async () => {
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${campaignId}`);
    const stats = page.getByTestId('record-stats');
    await reloadUntil(page, async () => ((await text(stats.getByTestId('rate-ctr'))) === '50.0%' ? true : null), 'the click in the campaign\'s totals');
    expect(await text(stats.getByTestId('total-adRequests'))).to.equal('4');
    expect(await text(stats.getByTestId('total-confirmedDeliveries'))).to.equal('2');
    expect(await text(stats.getByTestId('total-clickedLinks'))).to.equal('1');
    expect(await text(stats.getByTestId('rate-confirmation'))).to.equal('50.0%');
    expect(await stats.getByRole('button', { name: 'All time' }).getAttribute('aria-pressed')).to.equal('true');
    await stack.screenshot(page, 'dashboards-01-campaign-totals');

    // "Last 7 days" by keyboard: six quiet days and today, in the table and the CSV.
    await stats.getByRole('button', { name: 'Last 7 days' }).focus();
    await page.keyboard.press('Enter');
    await waitFor(async () => (await stats.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')) === 'true', { message: 'the preset pressed' });
    await stats.getByText('Per day (7 days)').waitFor();
    await stats.getByText('Per day (7 days)').focus();
    await page.keyboard.press('Enter');
    const rows = stats.getByTestId('day-table').locator('tbody tr');
    await rows.first().waitFor();
    const dates = await rows.locator('th').allTextContents();
    expect(dates, 'the days written out, UTC').to.deep.equal([-6, -5, -4, -3, -2, -1, 0].map((day) => formatDate(isoDay(day))));
    expect(await rows.last().locator('td').allTextContents()).to.deep.equal(['4', '2', '1']);
    expect(await rows.first().locator('td').allTextContents()).to.deep.equal(['0', '0', '0']);
    expect(await text(stats.getByTestId('rate-ctr')), 'the rates of the range').to.equal('50.0%');

    const [download] = await Promise.all([page.waitForEvent('download'), stats.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).to.equal(`pilot-campaign-${campaignId}-${isoDay(-6)}-to-${isoDay(0)}.csv`);
    const file = await download.path();
    const csv = fs.readFileSync(file, 'utf8').split('\r\n');
    expect(csv[0]).to.equal('date,ad_requests,confirmed_deliveries,clicked_links');
    expect(csv.slice(1, 8)).to.deep.equal([-6, -5, -4, -3, -2, -1, 0].map((day) => (day === 0 ? `${isoDay(0)},4,2,1` : `${isoDay(day)},0,0,0`)));
    await stack.screenshot(page, 'dashboards-02-campaign-7-days');

    // "Today" holds all of it; at 375 px nothing is wider than the screen.
    await stats.getByRole('button', { name: 'Today' }).click();
    await waitFor(async () => (await stats.getByText('Per day (1 day)').count()) === 1, { message: 'one day shown' });
    expect(await text(stats.getByTestId('total-adRequests'))).to.equal('4');
    await expectFitsPhone(stack, page, 'dashboards-03-campaign-375');
  });

  it('1-2: gives the dashboard the rates, the presets (kept in the address) and the CSV of every day of the period', async () => {
    const { page } = advertiser;
    await page.goto('/workspace');
    await page.getByTestId('totals').waitFor();
    expect(await text(page.getByTestId('rate-ctr'))).to.equal('50.0%');
    expect(await text(page.getByTestId('rate-confirmation'))).to.equal('50.0%');
    await page.getByRole('button', { name: 'Last 30 days' }).focus();
    await page.keyboard.press('Space');
    await page.waitForURL(`**/workspace?from=${isoDay(-29)}&to=${isoDay(0)}`);
    await waitFor(async () => (await page.getByLabel('From (UTC date)').inputValue()) === isoDay(-29), { message: `the From field shows ${isoDay(-29)}` });
    expect(await page.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed')).to.equal('true');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).to.equal(`pilot-dashboard-${isoDay(-29)}-to-${isoDay(0)}.csv`);
    const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\r\n');
    expect(csv).to.have.length(31);
    expect(csv[30]).to.equal(`${isoDay(0)},4,2,1`);
    expect(csv.slice(1, 30).every((line) => line.endsWith(',0,0,0'))).to.equal(true);
    await atPhoneWidth(page, async () => {
      // The chart follows the new width on its ResizeObserver's next call, after the resize itself.
      await waitFor(async () => (await scrollWidth(page)) <= 375, { message: 'the dashboard fits 375 px once the chart has followed the resize' });
      await stack.screenshot(page, 'dashboards-09-dashboard-30-days-375');
    });
    await page.getByRole('button', { name: 'All time' }).click();
    await page.waitForURL(/\/workspace$/);
  });

  it('5: next to the keys: when each was last used, the example request and answer, and a test request sent with the test key', async () => {
    const { page } = owner;
    await page.goto(`/workspace/publishers/${publisherId}`);
    const tryIt = page.getByTestId('try-it');
    await tryIt.waitFor();
    // The live key was used for the ads above: noted (to the minute) and shown, as a date.
    await reloadUntil(page, async () => ((await text(tryIt.getByTestId('key-last-used'))).match(/\d/) ? true : null), 'the live key\'s last use');
    expect(await text(tryIt.getByTestId('test-key-last-used'))).to.equal('no key');
    expect(await text(tryIt.getByLabel('Example request'))).to.equal(
      `curl -H "Authorization: Bearer $PILOT_KEY" "${stack.system.baseUrl}/api/network/ad?language=en"`,
    );
    expect(await text(tryIt.getByLabel('Example answer'))).to.contain('"sponsored": true');

    // The platform's own totals and rates are on its page as well.
    const stats = page.getByTestId('record-stats');
    expect(await text(stats.getByTestId('total-adRequests'))).to.equal('4');
    expect(await text(stats.getByTestId('rate-ctr'))).to.equal('50.0%');

    // A live key is never sent from the page.
    await tryIt.getByTestId('try-key').fill(liveKey);
    await tryIt.getByRole('button', { name: 'Send a test request' }).click();
    await tryIt.getByText('This is a live key: its requests are counted. Use the test key here.').waitFor();
    expect(await text(tryIt.getByTestId('try-answer'))).to.equal('');

    // A test key made on the page is filled in; Enter in the language field sends the request.
    await page.getByRole('button', { name: 'Create test key' }).click();
    const testKey = await page.getByTestId('new-test-key').inputValue();
    expect(await tryIt.getByTestId('try-key').inputValue()).to.equal(testKey);
    expect(await text(tryIt.getByTestId('test-key-last-used')), 'a key just made').to.equal('not used yet');
    await tryIt.getByTestId('try-language').focus();
    await page.keyboard.press('Enter');
    await tryIt.getByText('HTTP 200: an ad').waitFor();
    expect(await text(tryIt.getByTestId('try-body'))).to.contain('"sponsored": true');
    // Every answer header the guide documents is shown, in its spelling.
    const shown = await text(tryIt.getByTestId('try-answer'));
    for (const header of ['X-Pilot-Test: true', 'RateLimit-Limit: 60', 'RateLimit-Remaining: ', 'RateLimit-Reset: ', 'RateLimit-Policy: 60;w=60', 'X-Request-Id: ', 'Cache-Control: no-store']) {
      expect(shown, header).to.contain(header);
    }
    await stack.screenshot(page, 'dashboards-04-test-request');
    await tryIt.getByTestId('try-forced').selectOption('204');
    await tryIt.getByRole('button', { name: 'Send a test request' }).click();
    await tryIt.getByText('HTTP 204: no ad available').waitFor();
    expect(await text(tryIt.getByTestId('try-answer'))).to.contain('Pilot-No-Fill-Reason: no_active_campaign');


    // Test requests are never counted; the test key's use is shown after the page is read again.
    await page.getByRole('button', { name: 'I have stored the test key; hide it' }).click();
    await reloadUntil(page, async () => ((await text(tryIt.getByTestId('test-key-last-used'))).match(/\d/) ? true : null), 'the test key\'s last use');
    expect(await text(stats.getByTestId('total-adRequests'))).to.equal('4');
    await expectFitsPhone(stack, page, 'dashboards-05-platform-375');
  });

  it('4: never reads a whole list on an administrator\'s dashboard: every list call asks for one page', async () => {
    const { page } = admin;
    const listCalls: URL[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      const url = new URL(request.url());
      if (request.method() === 'GET' && /^\/api\/workspace\/(campaigns|publishers)$/.test(url.pathname)) listCalls.push(url);
    };
    page.on('request', onRequest);
    try {
      await page.goto('/workspace');
      await page.getByTestId('totals').waitFor();
      await waitFor(() => listCalls.length >= 2, { message: 'both lists asked for' });
      await page.waitForLoadState('networkidle');
      const limits = listCalls.map((url) => Number(url.searchParams.get('limit')));
      expect(limits.every((limit) => limit >= 1 && limit <= 100), `limits ${limits.join(', ')}`).to.equal(true);
      expect(listCalls.every((url) => !url.searchParams.has('cursor')), 'no further page read unasked').to.equal(true);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('4: lets an administrator search, filter and page the whole network\'s campaigns and platforms, the service answering each', async () => {
    for (let n = 1; n <= DRAFTS; n += 1) await draftCampaign(advertiserApi, { name: `Batch ${String(n).padStart(2, '0')}` });
    const { page } = admin;
    const listCalls: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'GET' && url.pathname === '/api/workspace/campaigns') listCalls.push(url);
    });
    await page.goto('/workspace/campaigns');

    // 25 a page, newest first; the next page by keyboard, with its cursor.
    const cards = page.getByTestId('campaign-list').locator('tbody tr');
    await cards.first().waitFor();
    expect(await cards.count()).to.equal(25);
    expect(await text(cards.first().getByRole('link'))).to.contain(`Batch ${DRAFTS}`);
    const more = page.getByRole('navigation', { name: 'Pages of campaigns' });
    await more.getByText(`Page 1: 25 campaigns of ${DRAFTS + 1} campaigns`).waitFor();
    await more.getByRole('button', { name: 'Next page' }).focus();
    await page.keyboard.press('Enter');
    await more.getByText(`Page 2: ${DRAFTS + 1 - 25} campaigns of ${DRAFTS + 1} campaigns`).waitFor();
    expect(await cards.count()).to.equal(DRAFTS + 1 - 25);
    expect(listCalls.some((url) => url.searchParams.has('cursor')), 'the second page asked with a cursor').to.equal(true);

    // Search by typing: the service searches (q); the search survives a reload.
    await page.getByLabel('Search').focus();
    await page.keyboard.type('batch 07');
    await waitFor(async () => (await cards.count()) === 1, { message: 'one campaign found' });
    expect(await text(cards.first().getByRole('link'))).to.contain('Batch 07');
    expect(listCalls.some((url) => url.searchParams.get('q') === 'batch 07'), 'the search asked of the service').to.equal(true);
    await page.reload();
    await cards.first().waitFor();
    expect(await page.getByLabel('Search').inputValue()).to.equal('batch 07');

    // Status: the one active campaign, filtered by the service.
    await page.getByLabel('Search').fill('');
    await waitFor(async () => (await cards.count()) > 1, { message: 'the search cleared' });
    await page.getByLabel('Status').selectOption('active');
    await waitFor(async () => (await cards.count()) === 1 && (await text(cards.first().getByRole('link'))).includes('Dashboards campaign'), { message: 'the active campaign' });
    expect(listCalls.some((url) => url.searchParams.get('status') === 'active')).to.equal(true);
    await page.getByLabel('Status').selectOption('');
    await expectFitsPhone(stack, page, 'dashboards-06-campaign-list-375');

    // The platforms of the network: one message when nothing matches.
    await page.goto('/workspace/publishers');
    await page.getByTestId('publisher-list').waitFor();
    await page.getByLabel('Search').fill('nothing-like-this');
    await page.getByText('No platform matches. Change the search or the status.').waitFor();
    expect(await page.getByTestId('list-empty').count()).to.equal(1);
  });

  it('3: shows a campaign\'s and a platform\'s status history from the audit record, with who and why', async () => {
    const paused = await adminApi.post(`/api/workspace/campaigns/${campaignId}/pause`, { reason: 'Budget review this week.' });
    expect(paused.status, paused.text).to.equal(200);
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${campaignId}`);
    const history = page.getByTestId('status-history');
    await history.locator('li').first().waitFor();
    expect(await history.locator('li strong').allTextContents()).to.deep.equal(['Paused', 'Activated', 'Approved', 'Submitted for review', 'Created']);
    const newest = await text(history.locator('li').first());
    expect(newest).to.contain('(Active → Paused)');
    expect(newest).to.contain('by an administrator');
    expect(newest).to.contain('Budget review this week.');
    expect(await text(history.locator('li').last())).to.contain('by you');
    await expectFitsPhone(stack, page, 'dashboards-07-campaign-history-375');

    await admin.page.goto(`/workspace/publishers/${publisherId}`);
    const platformHistory = admin.page.getByTestId('status-history');
    await platformHistory.locator('li').first().waitFor();
    const actions = await platformHistory.locator('li strong').allTextContents();
    expect(actions).to.deep.equal(['Test key generated', 'Server key generated', 'Approved', 'Submitted for review', 'Created']);
    expect(await text(platformHistory.locator('li').nth(2))).to.contain('by you');
    expect(await text(platformHistory.locator('li').last())).to.contain(`the owner (account ${OWNER_ID})`);
    await stack.screenshot(admin.page, 'dashboards-08-platform-history');
  });
});
