/**
 * The workspace's lists as work tables, in a real browser against the whole running system: a row per
 * record with its status, its figures of the period and its dates; sorting by a column's heading
 * (`aria-sort`), the filters, order and period in the address (a reload keeps the view), the number of
 * records that match, pages back and forth; and an administrator's decisions on several records of the
 * review queue at once, each record's outcome listed (done, or refused with the reason).
 * Screenshots go to test-artifacts/browser/tables-*.png.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { signedIn, type Ad, type Browser as ApiBrowser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, draftCampaign } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { expectFitsPhone, reloadUntil, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '7601';
const OWNER_ID = '7602';
const DRAFTS = 27;

async function text(locator: ReturnType<Page['locator']>): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

/** The ids of the rows shown, in order. */
async function rowIds(page: Page, testId: string): Promise<number[]> {
  return (await page.getByTestId(testId).locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-row-id')))).map(Number);
}

describe('work tables and decisions on several records (browser, whole system)', function () {
  this.timeout(240_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let advertiser: Person;
  let admin: Person;
  let activeId = 0;
  const drafts: number[] = [];

  before(async function () {
    this.timeout(300_000);
    stack = await startBrowserSystem({ settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '100' } } });
    [advertiserApi, adminApi] = await Promise.all([signedIn(stack.system, ADVERTISER_ID), signedIn(stack.system, ADMIN_ID)]);
    const ownerApi = await signedIn(stack.system, OWNER_ID);
    activeId = (await activeCampaign(advertiserApi, adminApi, { name: 'Tables served' })).id;
    for (let n = 1; n <= DRAFTS; n += 1) drafts.push((await draftCampaign(advertiserApi, { name: `Tables draft ${String(n).padStart(2, '0')}` })).id);
    const { server } = await approvedPublisher(stack.system, ownerApi, adminApi);
    await waitFor(async () => (await server.ad('en')).status === 200, { message: 'the campaign is served' });
    const answer = await server.ad('en');
    expect((await server.confirm((answer.body as unknown as Ad).delivery_token)).status).to.equal(200);
    advertiser = await stack.signIn(ADVERTISER_ID);
    admin = await stack.signIn(ADMIN_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('lists campaigns as a table: columns, figures of the period, the count of matches, pages, sorting and filters kept in the address', async () => {
    const { page } = advertiser;
    // The figures of a page sorted by creation are asked for its own rows, by their ids.
    const figureCalls: URLSearchParams[] = [];
    const listen = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/workspace/stats/breakdown') figureCalls.push(url.searchParams);
    };
    page.on('request', listen);
    await page.goto('/workspace/campaigns');
    const table = page.getByTestId('campaign-list');
    await table.locator('tbody tr').first().waitFor();
    const headers = (await table.locator('thead th').allTextContents()).map((cell) => cell.replace(/[▼▲↕]/g, '').replace(/,.*$/, '').trim());
    expect(headers).to.deep.equal(['Choose every campaign of this page that a move applies to', 'Campaign', 'Status', 'Format · language', 'Requests', 'Confirmed deliveries', 'Clicks', 'Created', 'Last change']);
    expect(await table.locator('thead th[aria-sort="descending"]').allTextContents()).to.have.length(1);
    expect(await text(table.locator('thead th[aria-sort="descending"]'))).to.match(/^Created/);
    // 28 campaigns: 25 on the first page, newest first, and the count of what matches.
    expect(await rowIds(page, 'campaign-list')).to.deep.equal([...drafts].reverse().slice(0, 25));
    await waitFor(() => figureCalls.some((call) => call.get('ids') === [...drafts].reverse().slice(0, 25).join(',')), { message: "the figures asked by the page's ids" });
    page.off('request', listen);
    await waitFor(async () => (await text(page.getByTestId('table-matched'))).startsWith(`${DRAFTS + 1} campaigns in all`), { message: 'the count said' });
    const pages = page.getByRole('navigation', { name: 'Pages of campaigns' });
    const shown = pages.getByTestId('shown-count');
    expect(await text(shown)).to.equal(`Page 1: 25 campaigns of ${DRAFTS + 1} campaigns`);
    expect(await pages.getByRole('button', { name: 'Previous page' }).isDisabled()).to.equal(true);
    await pages.getByRole('button', { name: 'Next page' }).click();
    await waitFor(async () => (await text(shown)) === `Page 2: 3 campaigns of ${DRAFTS + 1} campaigns`, { message: 'the second page' });
    expect(await rowIds(page, 'campaign-list')).to.deep.equal([drafts[1], drafts[0], activeId]);
    expect(await pages.getByRole('button', { name: 'Next page' }).isDisabled()).to.equal(true);
    await pages.getByRole('button', { name: 'Previous page' }).click();
    await waitFor(async () => (await rowIds(page, 'campaign-list'))[0] === drafts[DRAFTS - 1], { message: 'back on the first page' });

    // The Created heading sorts oldest first: the order is the service's, kept in the address and after a reload.
    await table.getByRole('button', { name: /^Created/ }).click();
    await page.waitForURL(/sort=oldest/);
    await waitFor(async () => (await rowIds(page, 'campaign-list'))[0] === activeId, { message: 'oldest first' });
    expect(await table.locator('thead th[aria-sort="ascending"]').count()).to.equal(1);
    await page.reload();
    await waitFor(async () => (await rowIds(page, 'campaign-list').catch(() => []))[0] === activeId, { message: 'still oldest first after a reload' });
    expect(await text(table.locator('thead th[aria-sort="ascending"]'))).to.match(/^Created/);

    // The figures of the period beside each record; the Requests heading sorts by them, highest first.
    const servedRow = table.locator(`tbody tr[data-row-id="${activeId}"]`);
    await reloadUntil(page, async () => ((await text(servedRow.locator('td[data-label="Confirmed deliveries"]')).catch(() => '')) === '1' ? true : null), 'the delivery counted');
    expect(await text(servedRow.locator('td[data-label="Requests"]'))).to.match(/^[1-9]/);
    expect(await text(table.locator(`tbody tr[data-row-id="${drafts[0]}"] td[data-label="Requests"]`))).to.equal('0');
    await table.getByRole('button', { name: /^Requests/ }).click();
    await page.waitForURL(/sort=adRequests/);
    await waitFor(async () => (await rowIds(page, 'campaign-list')).join() === String(activeId), { message: 'only the campaign with figures, by requests' });
    expect(await text(table.locator('thead th[aria-sort="descending"]'))).to.match(/^Requests/);
    await stack.screenshot(page, 'tables-01-campaigns-by-requests');

    // Filters in the address: a status and a search survive a reload, with their count.
    await page.goto('/workspace/campaigns');
    await page.getByLabel('Status').selectOption('draft');
    await page.getByLabel('Search').fill('draft 0');
    await page.waitForURL(/status=draft/);
    await page.waitForURL(/q=draft/);
    await waitFor(async () => (await text(page.getByTestId('table-matched'))).startsWith('9 campaigns match the filters'), { message: 'nine drafts match' });
    await page.reload();
    await waitFor(async () => (await text(page.getByTestId('table-matched')).catch(() => '')).startsWith('9 campaigns match the filters'), { message: 'the filters kept' });
    expect(await page.getByLabel('Search').inputValue()).to.equal('draft 0');
    expect(await page.getByLabel('Status').inputValue()).to.equal('draft');
    expect((await rowIds(page, 'campaign-list')).length).to.equal(9);
    expect(await text(shown)).to.equal('9 campaigns shown, all of them');
    await expectFitsPhone(stack, page, 'tables-02-campaigns-375');
  });

  it('lists platforms as a table for an administrator, filtered by owner in the address', async () => {
    const { page } = admin;
    await page.goto(`/workspace/publishers?owner=${OWNER_ID}`);
    const table = page.getByTestId('publisher-list');
    await table.locator('tbody tr').first().waitFor();
    expect(await table.getByTestId('row-owner').allTextContents()).to.deep.equal([OWNER_ID]);
    await waitFor(async () => (await text(page.getByTestId('table-matched'))).startsWith('1 platform matches the filters'), { message: 'one platform of that owner' });
    expect(await text(table.locator('tbody tr td[data-label="Status"]'))).to.equal('Approved');
  });

  it('approves and rejects several records of the review queue at once, each outcome listed, a refusal with its reason', async () => {
    const submitted: number[] = [];
    for (const id of drafts.slice(0, 3)) {
      expect([200, 202]).to.include((await advertiserApi.post(`/api/workspace/campaigns/${id}/submit`, {})).status);
      submitted.push(id);
    }
    const [one, two, three] = submitted as [number, number, number];
    const { page } = admin;
    await page.goto('/workspace/review');
    const item = (id: number) => page.locator(`[data-queue-key="campaigns:${id}"]`);
    await item(three).waitFor();
    await page.getByRole('heading', { name: 'Campaigns in review (3)' }).waitFor();
    for (const id of [one, two]) await item(id).getByRole('checkbox').check();
    // Someone else decides on one of them meanwhile: its outcome is a refusal, the other is approved.
    expect([200, 202]).to.include((await adminApi.post(`/api/workspace/campaigns/${two}/reject`, { reason: 'Decided elsewhere.' })).status);
    const bulk = page.getByTestId('bulk-bar');
    await bulk.getByRole('button', { name: 'Approve selected (2)' }).click();
    const outcomes = page.getByTestId('review-news');
    await outcomes.getByText(`Campaign #${one} approved.`).waitFor();
    expect(await text(outcomes)).to.contain(`Campaign #${two} not approved:`);
    expect(await outcomes.locator('li').count(), 'one line per record').to.equal(2);
    expect((await adminApi.get<{ status: string }>(`/api/workspace/campaigns/${one}`)).body.status).to.equal('approved');

    // A rejection of several campaigns offers the campaigns' common reasons, editable.
    await item(three).getByRole('checkbox').check();
    await bulk.getByRole('button', { name: 'Reject selected (1)…' }).click();
    const reasons = bulk.getByRole('group', { name: /common reasons/i });
    await reasons.getByRole('button').first().click();
    const field = bulk.getByLabel('Reason for the owner');
    const preset = await field.inputValue();
    expect(preset.length).to.be.greaterThan(10);
    await field.fill(`${preset} See the guide.`);
    await bulk.getByRole('button', { name: 'Reject', exact: true }).click();
    await outcomes.getByText(`Campaign #${three} rejected.`).waitFor();
    expect((await adminApi.get<{ rejectionReason: string }>(`/api/workspace/campaigns/${three}`)).body.rejectionReason).to.equal(`${preset} See the guide.`);
    await stack.screenshot(page, 'tables-03-review-outcomes');
  });

  it('filters the audit by record, action and period in the address, and names who acted', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/audit');
    const table = page.getByTestId('audit-table');
    await table.locator('tbody tr').first().waitFor();
    await page.getByLabel('Action').selectOption('submitted');
    await page.waitForURL(/action=submitted/);
    await waitFor(async () => (await table.locator('td[data-label="Action"]').allTextContents()).every((words) => words === 'Submitted for review'), { message: 'only submissions' });
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From (UTC)').fill(today);
    await page.getByLabel('To (UTC)').fill(today);
    await page.waitForURL(new RegExp(`to=${today}`));
    await page.reload();
    await table.locator('tbody tr').first().waitFor();
    expect(await page.getByLabel('Action').inputValue()).to.equal('submitted');
    expect(await page.getByLabel('From (UTC)').inputValue()).to.equal(today);
    const records = await table.locator('td[data-label="Record"]').allTextContents();
    expect(records.length, 'the served campaign\'s submission and the three of the queue test').to.equal(4);
    // Who acted: the advertiser's name beside its id.
    const who = await table.locator('td[data-label="Who"]').allTextContents();
    expect(who.every((words) => words.endsWith(`(${ADVERTISER_ID})`) && words.length > ADVERTISER_ID.length + 3), who.join()).to.equal(true);
    // The administrator's approval of the advertiser's campaign: "an administrator", as in the record's history.
    await page.getByLabel('Action').selectOption('approved');
    await waitFor(
      async () => {
        const cells = await table.locator('td[data-label="Who"]').allTextContents();
        return cells.length > 0 && cells.every((words) => words === 'an administrator');
      },
      { message: 'the approval, by an administrator' },
    );
    await page.getByLabel('Action').selectOption('submitted');
    await page.waitForURL(/action=submitted/);
    await page.getByLabel('Record id').fill(String(drafts[0]));
    await waitFor(async () => (await table.locator('td[data-label="Record"]').allTextContents()).join() === `Campaign #${drafts[0]}`, { message: 'one record' });
    await page.getByLabel('From (UTC)').fill('2020-01-01');
    await page.getByLabel('To (UTC)').fill('2020-01-02');
    await page.getByText('No entries match the filters.').waitFor();
    await stack.screenshot(page, 'tables-04-audit-filters');
  });
});
