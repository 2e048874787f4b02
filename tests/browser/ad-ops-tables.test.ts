/**
 * The ad-ops workspace in a real browser against the whole running system (gateway, every service, the web
 * service serving a fresh build) on real RabbitMQ, Redis and FerretDB: figure tables from the breakdown
 * report (sorted by the service, CTR, the change against the previous period), hourly figures for today,
 * the review queue that shows the ad and its owner, with approve-and-activate, bulk decisions and keyboard
 * shortcuts, and lists and the audit paged by the service. Each at 1280 and 375 px where layout matters.
 * Records and events the tests start from are made through the API as the same people.
 * Screenshots go to test-artifacts/browser/ad-ops-*.png.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { openLink, signedIn, type Ad, type Browser as ApiBrowser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, draftCampaign } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { atPhoneWidth, expectFitsPhone, isoDay, reloadUntil, scrollWidth, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '7401';
const OWNER_ID = '7402';
const QUEUE_OWNER_ID = '7403';

async function text(locator: ReturnType<Page['locator']>): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

/** Every audit entry the account can read, page after page through the service's cursors. */
async function auditCount(api: ApiBrowser): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const path: string = `/api/workspace/audit?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api.get<{ items: unknown[]; nextCursor?: string | null }>(path);
    expect(answer.status, answer.text).to.equal(200);
    count += answer.body.items.length;
    cursor = answer.body.nextCursor ?? null;
  } while (cursor);
  return count;
}

/** The figures of a breakdown table's row, as shown: "#id name", then the cells' text. */
async function rowTexts(page: Page, testId: string): Promise<string[][]> {
  const rows = page.getByTestId(`${testId}-table`).locator('tbody tr');
  const result: string[][] = [];
  for (let index = 0; index < (await rows.count()); index += 1) result.push((await rows.nth(index).locator('th, td').allTextContents()).map((cell) => cell.trim()));
  return result;
}

describe('the ad-ops workspace: figure tables, hourly figures, a review queue to trust, paging at network scale (browser, whole system)', function () {
  this.timeout(240_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let ownerApi: ApiBrowser;
  let queueOwnerApi: ApiBrowser;
  let advertiser: Person;
  let owner: Person;
  let admin: Person;
  let english = 0;
  let german = 0;
  let publisherId = 0;

  before(async function () {
    this.timeout(300_000);
    stack = await startBrowserSystem({ settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '100' } } });
    [advertiserApi, adminApi, ownerApi, queueOwnerApi] = await Promise.all([
      signedIn(stack.system, ADVERTISER_ID),
      signedIn(stack.system, ADMIN_ID),
      signedIn(stack.system, OWNER_ID),
      signedIn(stack.system, QUEUE_OWNER_ID),
    ]);
    english = (await activeCampaign(advertiserApi, adminApi, { name: 'Ad-ops English', language: 'en' })).id;
    german = (await activeCampaign(advertiserApi, adminApi, { name: 'Ad-ops German', language: 'de' })).id;
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisherId = approved.publisher.id;
    const server = approved.server;

    // Today: the English campaign 3 ads, 2 confirmed, 1 clicked; the German one 1 ad (4 requests in all).
    const served = async (language: string): Promise<Ad> => {
      const answer = await server.ad(language);
      expect(answer.status, answer.text).to.equal(200);
      return answer.body as unknown as Ad;
    };
    await waitFor(async () => (await server.ad('en')).status === 200, { message: 'the English campaign is served' });
    const first = await served('en');
    const second = await served('en');
    expect([first.campaign_id, second.campaign_id]).to.deep.equal([english, english]);
    expect((await served('de')).campaign_id).to.equal(german);
    expect((await server.confirm(first.delivery_token)).status).to.equal(200);
    expect((await server.confirm(second.delivery_token)).status).to.equal(200);
    expect((await openLink(first.click_url)).status).to.equal(302);

    advertiser = await stack.signIn(ADVERTISER_ID);
    owner = await stack.signIn(OWNER_ID);
    admin = await stack.signIn(ADMIN_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('shows the campaigns as a table of figures for the period, sorted by the service, with CTR and the change against the previous period (1280, 375)', async () => {
    const { page } = advertiser;
    const breakdownCalls: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/workspace/stats/breakdown') breakdownCalls.push(url);
    });
    await page.goto('/workspace/campaigns');
    const figures = page.getByTestId('campaign-figures');
    const period = figures.getByRole('combobox', { name: /^Period/ });
    await period.waitFor();
    expect(await period.inputValue(), 'the last 7 days first').to.equal('7d');
    // Events are counted asynchronously: read again until both campaigns have their figures.
    const rows = await reloadUntil(page, async () => {
      const shown = await rowTexts(page, 'campaign-figures').catch(() => []);
      return shown.length === 2 && shown[0]?.[1]?.startsWith('3') ? shown : null;
    }, 'both campaigns\' figures');
    // Highest requests first: the English campaign (3 requests), then the German one (1).
    expect(rows[0]?.[0]).to.equal(`#${english} Ad-ops English`);
    expect(rows[1]?.[0]).to.equal(`#${german} Ad-ops German`);
    // Figures with their change: nothing the 7 days before, all of them read, so each is new.
    expect(rows[0]?.slice(1)).to.deep.equal(['3new', '2new', '1new', '50.0%']);
    expect(rows[1]?.slice(1)).to.deep.equal(['1new', '0–', '0–', '–']);
    const current = breakdownCalls.find((url) => url.searchParams.get('to') === isoDay(0));
    const previous = breakdownCalls.find((url) => url.searchParams.get('to') === isoDay(-7));
    expect(current?.searchParams.get('by')).to.equal('campaign');
    expect(current?.searchParams.get('from')).to.equal(isoDay(-6));
    expect(previous?.searchParams.get('from'), 'the previous period of equal length asked for too').to.equal(isoDay(-13));

    // Sorting by clicks is the service's order (sort=clickedLinks), shown on the heading.
    await figures.getByRole('button', { name: /^Clicks/ }).click();
    await waitFor(() => breakdownCalls.some((url) => url.searchParams.get('sort') === 'clickedLinks'), { message: 'sorted by the service' });
    expect(await figures.locator('th[aria-sort="descending"]').textContent()).to.match(/^Clicks/);
    await stack.screenshot(page, 'ad-ops-01-campaign-figures-1280');
    // At 375 px each row is a labelled block and the order is a select: nothing scrolls sideways.
    await expectFitsPhone(stack, page, 'ad-ops-01-campaign-figures-375');
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      await figures.getByLabel('Highest first by').selectOption('adRequests');
      await figures.locator('td[data-label="Requests"]').first().waitFor();
      expect(await figures.locator('thead').evaluate((head) => head.getBoundingClientRect().width)).to.be.at.most(1);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows an advertiser its campaign by platform, and a platform owner its platform by campaign', async () => {
    await advertiser.page.goto(`/workspace/campaigns/${english}`);
    const byPlatform = await reloadUntil(advertiser.page, async () => {
      const shown = await rowTexts(advertiser.page, 'campaign-platforms').catch(() => []);
      return shown.length === 1 ? shown : null;
    }, 'the campaign by platform');
    // The advertiser cannot read another account's platform: it is named by its id.
    expect(byPlatform[0]?.[0]).to.equal(`#${publisherId}`);
    expect(byPlatform[0]?.[1]).to.match(/^3/);
    await expectFitsPhone(stack, advertiser.page, 'ad-ops-02-campaign-by-platform-375');

    await owner.page.goto(`/workspace/publishers/${publisherId}`);
    const byCampaign = await reloadUntil(owner.page, async () => {
      const shown = await rowTexts(owner.page, 'platform-campaigns').catch(() => []);
      return shown.length === 2 ? shown : null;
    }, 'the platform by campaign');
    expect(byCampaign.map((row) => row[0])).to.deep.equal([`#${english}`, `#${german}`]);
    expect(byCampaign[0]?.[3]).to.match(/^1/);
    await stack.screenshot(owner.page, 'ad-ops-03-platform-by-campaign-1280');
    await expectFitsPhone(stack, owner.page, 'ad-ops-03-platform-by-campaign-375');
  });

  it('shows today hour by hour on the dashboard (granularity=hour), every hour with quiet ones as zeros', async () => {
    const { page } = advertiser;
    await page.goto('/workspace');
    await page.getByRole('button', { name: 'Today' }).click();
    const hourly = page.getByTestId('hourly-figures');
    await hourly.waitFor();
    const table = page.getByTestId('hour-table');
    expect(await table.locator('tbody tr').count()).to.equal(24);
    // This hour's row (the table is in the page, folded): 4 requests once the events are counted.
    const hour = `${String(new Date().getUTCHours()).padStart(2, '0')}:00`;
    const requests = await reloadUntil(page, async () => {
      const row = page.getByTestId('hour-table').locator('tbody tr', { has: page.locator('th', { hasText: hour }) });
      await row.waitFor({ state: 'attached' });
      const cell = await text(row.locator('td').first());
      return cell === '4' ? cell : null;
    }, 'this hour\'s requests');
    expect(requests).to.equal('4');
    const hourCalls = await page.evaluate<number>("performance.getEntriesByType('resource').filter((entry) => entry.name.includes('granularity=hour')).length");
    expect(hourCalls, 'the hourly figures asked of the service').to.be.at.least(1);
    await hourly.getByText('Per hour (24 hours)').click();
    await stack.screenshot(page, 'ad-ops-04-today-by-hour-1280');
    await atPhoneWidth(page, async () => {
      // The chart follows the new width on its ResizeObserver's next call, after the resize itself.
      await waitFor(async () => (await scrollWidth(page)) <= 375, { message: 'the hourly figures fit 375 px once the chart has followed the resize' });
      await stack.screenshot(page, 'ad-ops-04-today-by-hour-375');
    });
  });

  it('shows each ad in the review queue as the bot renders it, with its destination host and its owner\'s history; decides by keyboard, approve-and-activate and in bulk (1280, 375)', async () => {
    const ids: number[] = [];
    for (const name of ['Queue one', 'Queue two', 'Queue three', 'Queue four']) {
      const draft = await draftCampaign(queueOwnerApi, { name, title: `${name} title`, destinationUrl: 'https://shop.example.net/landing?from=pilot' });
      expect((await queueOwnerApi.post(`/api/workspace/campaigns/${draft.id}/submit`)).status).to.equal(200);
      ids.push(draft.id);
    }
    const [one, two, three, four] = ids as [number, number, number, number];
    const { page } = admin;
    await page.goto('/workspace/review');
    const list = page.getByTestId('review-campaigns');
    const item = (id: number) => page.locator(`[data-queue-key="campaigns:${id}"]`);
    await item(one).waitFor();
    // The ad as the bot will render it, where the button leads, and who is behind it.
    expect(await text(item(one).getByTestId('preview-title'))).to.equal('Queue one title');
    expect(await text(item(one).getByTestId('destination-host'))).to.equal('shop.example.net');
    await waitFor(async () => /4 campaigns: In review 4/.test(await text(item(one).getByTestId('owner-history'))), { message: 'the owner\'s history read' });
    expect(await text(item(one).getByTestId('owner-history'))).to.equal(`Owner: account ${QUEUE_OWNER_ID} · 4 campaigns: In review 4; no platforms`);
    // The shortcuts are documented on the page.
    await page.getByText('Keyboard shortcuts').click();
    expect(await page.getByTestId('shortcuts').locator('kbd').allTextContents()).to.deep.equal(['j', 'k', 'a', 'r', 'x']);
    await stack.screenshot(page, 'ad-ops-05-review-queue-1280');

    // j moves to the oldest item, a approves it.
    const order = (await list.locator('[data-queue-key]').evaluateAll((items) => items.map((li) => li.getAttribute('data-queue-key')))).map((key) => Number(key?.split(':')[1]));
    const mine = order.filter((id) => ids.includes(id));
    expect(mine).to.deep.equal(ids);
    await page.evaluate('document.activeElement instanceof HTMLElement && document.activeElement.blur()');
    const firstIndex = order.indexOf(one);
    for (let i = 0; i <= firstIndex; i += 1) await page.keyboard.press('j');
    expect(await item(one).getAttribute('aria-current')).to.equal('true');
    await page.keyboard.press('a');
    await page.getByTestId('review-news').getByText(`Campaign #${one} approved.`).waitFor();
    expect((await adminApi.get<{ status: string }>(`/api/workspace/campaigns/${one}`)).body.status).to.equal('approved');

    // Approve and activate in one go: both steps, said in one line.
    await item(two).getByRole('button', { name: `Approve and activate #${two}, campaign` }).click();
    await page.getByTestId('review-news').getByText(`Campaign #${two} approved and activated.`).waitFor();
    expect((await adminApi.get<{ status: string }>(`/api/workspace/campaigns/${two}`)).body.status).to.equal('active');

    // Bulk: x selects the current item, a box the other; one reason rejects both. Typing the reason
    // ("a", "r", "x" among its letters) fires no shortcut.
    await item(three).focus();
    await page.keyboard.press('x');
    await item(four).getByRole('checkbox').check();
    const bulk = page.getByTestId('bulk-bar');
    await bulk.getByText('2 selected').waitFor();
    await expectFitsPhone(stack, page, 'ad-ops-06-review-bulk-375');
    await bulk.getByRole('button', { name: 'Reject selected (2)…' }).click();
    await page.keyboard.type('Destination does not match the ad; please review and resubmit.');
    expect(await item(three).count(), 'no shortcut fired while typing').to.equal(1);
    await bulk.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.getByTestId('review-news').getByText(`Campaign #${four} rejected.`).waitFor();
    expect(await text(page.getByTestId('review-news'))).to.contain(`Campaign #${three} rejected.`);
    for (const id of [three, four]) expect((await adminApi.get<{ status: string; rejectionReason: string }>(`/api/workspace/campaigns/${id}`)).body.rejectionReason).to.equal('Destination does not match the ad; please review and resubmit.');
    // The rows decided leave the queue (at once, from the page's cache; the refetch confirms it).
    for (const id of [three, four]) await item(id).waitFor({ state: 'detached', timeout: 5_000 });
    await stack.screenshot(page, 'ad-ops-07-review-after-1280');
  });

  it('pages the lists and the audit with the service\'s cursors down to the oldest entry, one message when a list is empty (1280, 375)', async () => {
    const { page } = owner;
    await page.goto('/workspace/audit');
    const table = page.getByTestId('audit-table');
    await table.waitFor();
    const more = page.getByRole('navigation', { name: 'More entries' });
    // Older entries until the oldest: the count says so, and no total of 500 is claimed.
    for (let round = 0; round < 20 && (await more.getByRole('button', { name: 'Older entries' }).count()) > 0; round += 1) {
      const before = await table.locator('tbody tr').count();
      await more.getByRole('button', { name: 'Older entries' }).click();
      await waitFor(async () => (await table.locator('tbody tr').count()) > before || (await more.getByRole('button', { name: 'Older entries' }).count()) === 0, { message: 'older entries added' });
    }
    await more.getByText(/entries shown, all of them/).waitFor();
    expect(await table.locator('tbody tr').count(), 'every entry down to the oldest').to.equal(await auditCount(ownerApi));
    expect(await page.getByText(/of 500/).count()).to.equal(0);
    await expectFitsPhone(stack, page, 'ad-ops-08-audit-oldest-375');

    await page.goto('/workspace/campaigns');
    await page.getByTestId('list-empty').waitFor();
    expect(await page.getByText('No campaigns here yet.').count(), 'one message for an empty list').to.equal(1);
    await page.getByLabel('Search').fill('nothing');
    await page.getByText('No campaign matches. Change the search or the status.').waitFor();
    expect(await page.getByTestId('list-empty').count()).to.equal(1);
  });
});
