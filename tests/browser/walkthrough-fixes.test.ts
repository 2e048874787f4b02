/**
 * The bugs of the walk-through, each in a real browser against the whole running
 * system (gateway, every service, the web service serving a fresh build) on real RabbitMQ, Redis and
 * FerretDB. Records that a test only needs as a starting point are made through the API as the same
 * people (their own sessions); what the issue is about is done through the pages. The services run on a
 * clock that follows the real time and that the last test moves past a sign-in request's 5 minutes.
 * Screenshots go to test-artifacts/browser/fixes-*.png.
 */
import zlib from 'node:zlib';
import { startUpdate, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { rawGet } from '../../services/web/test/support/raw-get';
import { botConfirms, botUpdate, openLink, signedIn, type PublisherServer, type Browser as ApiBrowser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { atPhoneWidth, isoDay, reloadUntil, scrollWidth, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';
import { formatDate } from '../../services/web/frontend/src/format';
import { ShiftedClock } from './support/shifted-clock';

const ADVERTISER_ID = '6101';
const OWNER_ID = '6102';
const VISITOR_ID = '6103';
const SITE_NAME = 'Publisher pilot';
/** Bytes a first visit to the home page may transfer (HTML, scripts, styles, favicon; compressed as served). */
const FIRST_SCREEN_BUDGET_BYTES = 150_000;

interface Ad {
  campaign_id: number;
  click_url: string;
  delivery_token: string;
}

/** What the focused element is, as a person with a screen reader would hear it named. */
async function focused(page: Page): Promise<string> {
  return page.evaluate<string>(
    `(() => { const el = document.activeElement; if (!el || el === document.body) return 'body';
      const label = el.id ? document.querySelector('label[for="' + el.id + '"]')?.textContent : null;
      return el.tagName.toLowerCase() + ':' + (el.getAttribute('aria-label') || label || el.textContent || '').trim(); })()`,
  );
}

describe('the walk-through bugs, in a browser against the whole system', function () {
  this.timeout(180_000);
  const clock = new ShiftedClock();
  let stack: BrowserSystem;
  let advertiser: Person;
  let admin: Person;
  let owner: Person;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let ownerApi: ApiBrowser;
  let campaignId = 0;
  let publisherId = 0;
  let server: PublisherServer;

  /** The sign-in page's code confirmed by the bot for `accountId`. */
  async function confirmShownCode(page: Page, accountId: string): Promise<string> {
    const code = ((await page.getByTestId('signin-code').textContent()) ?? '').trim();
    expect(code).to.match(/^\S{4,}$/);
    const confirmed = await botConfirms(stack.system, code, accountId);
    expect(confirmed.status, confirmed.text).to.equal(200);
    return code;
  }

  before(async function () {
    this.timeout(300_000);
    stack = await startBrowserSystem({ clock });
    [advertiserApi, adminApi, ownerApi] = await Promise.all([signedIn(stack.system, ADVERTISER_ID), signedIn(stack.system, ADMIN_ID), signedIn(stack.system, OWNER_ID)]);
    campaignId = (await activeCampaign(advertiserApi, adminApi, { name: 'Fixes campaign' })).id;
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisherId = approved.publisher.id;
    server = approved.server;
    advertiser = await stack.signIn(ADVERTISER_ID);
    admin = await stack.signIn(ADMIN_ID);
    owner = await stack.signIn(OWNER_ID, { width: 375, height: 740 });
  });

  stopAndWatchForProblems(() => stack);

  it('9: keeps the deep link through sign-in: a signed-out /workspace/campaigns/<id> opens that campaign after sign-in', async () => {
    const { page } = await stack.open({ width: 375, height: 740 });
    await page.goto(`/workspace/campaigns/${campaignId}`);
    await page.waitForURL('**/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    await confirmShownCode(page, ADVERTISER_ID);
    await page.waitForURL(`**/workspace/campaigns/${campaignId}`, { timeout: 20_000 });
    await page.getByRole('heading', { level: 1, name: new RegExp(`Campaign #${campaignId}`) }).waitFor();
    await stack.screenshot(page, 'fixes-09-deep-link-kept');
  });

  it('11: moves focus into the Reject and Rotate key steps and back, so typing goes somewhere', async () => {
    const review = await advertiserApi.post<{ id: number }>('/api/workspace/campaigns', {
      name: 'To be rejected',
      format: 'bot',
      title: 'Rejected title',
      text: 'Text.',
      destinationUrl: 'https://advertiser.example/r',
      buttonText: 'Go',
      language: 'en',
    });
    expect((await advertiserApi.post(`/api/workspace/campaigns/${review.body.id}/submit`)).status).to.equal(200);
    const { page } = admin;
    await page.goto(`/workspace/campaigns/${review.body.id}`);
    await page.getByRole('button', { name: 'Reject…' }).click();
    expect(await focused(page)).to.equal('textarea:Reason for the owner');
    await page.keyboard.type('Typed straight away.');
    expect(await page.getByLabel('Reason for the owner').inputValue()).to.equal('Typed straight away.');
    await page.keyboard.press('Escape');
    expect(await focused(page), 'Escape closes the step and gives focus back').to.equal('button:Reject…');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Not allowed.');
    await page.getByRole('form', { name: 'Reject' }).getByRole('button', { name: 'Reject', exact: true }).click();
    await page.locator('h1 .badge', { hasText: 'Rejected' }).waitFor();
    expect(await focused(page), 'the pressed button is gone; focus is on the heading').to.match(/^h1:/);

    const ownerPage = owner.page;
    await ownerPage.goto(`/workspace/publishers/${publisherId}`);
    await ownerPage.getByRole('button', { name: 'Rotate key…' }).click();
    expect(await focused(ownerPage)).to.equal('div:Confirm rotation');
    await ownerPage.keyboard.press('Tab');
    expect(await focused(ownerPage), 'how long the current key keeps working').to.match(/^select:/);
    await ownerPage.keyboard.press('Tab');
    expect(await focused(ownerPage)).to.equal('button:Yes, rotate the key');
    await ownerPage.keyboard.press('Escape');
    expect(await focused(ownerPage)).to.equal('button:Rotate key…');
    await stack.screenshot(ownerPage, 'fixes-11-focus-after-rotate-cancel');
  });

  it('3: asks before a pause, says what it does, records the reason and shows it; only an administrator resumes', async () => {
    const { page } = advertiser;
    await atPhoneWidth(page, async () => {
      await page.goto(`/workspace/campaigns/${campaignId}`);
      await page.getByRole('button', { name: 'Pause…' }).click();
      const form = page.getByRole('form', { name: 'Pause' });
      expect(await form.locator('.warning').textContent()).to.contain('only an administrator can activate it again');
      expect(await focused(page)).to.equal('textarea:Reason (optional, kept in the audit record)');
      await page.keyboard.type('The offer ended early.');
      expect(await scrollWidth(page), 'the open pause step fits 375 px').to.be.at.most(375);
      await stack.screenshot(page, 'fixes-03-pause-confirm-375');
      await form.getByRole('button', { name: 'Pause the campaign' }).click();
      await page.locator('h1 .badge', { hasText: 'Paused' }).waitFor();
      const notice = page.getByTestId('paused-notice');
      await notice.getByText('Reason: The offer ended early.').waitFor();
      await notice.getByText(/paused by you/).waitFor();
      expect(await notice.textContent()).to.contain('Only an administrator can activate it again');
      expect(await page.getByRole('button', { name: /Pause|Activate|Resume/ }).count(), 'the owner has no resume button').to.equal(0);
      await stack.screenshot(page, 'fixes-03-campaign-paused-375');
      await page.goto('/workspace/audit');
      await page.getByTestId('audit-table').getByRole('cell', { name: 'The offer ended early.' }).waitFor();

      // The administrator sees the same reason and can activate it again.
      await admin.page.goto(`/workspace/campaigns/${campaignId}`);
      await admin.page.getByTestId('paused-notice').getByText('Reason: The offer ended early.').waitFor();
      await admin.page.getByRole('button', { name: 'Activate' }).click();
      await admin.page.locator('h1 .badge', { hasText: 'Active' }).waitFor();
    });
  });

  it('3 and 4: pauses a platform with a reason the owner reads, and tells the owner the key is refused, kept, and works again on approval', async () => {
    await waitFor(async () => (await server.ad('en')).status === 200, { message: 'the key works before the pause (the campaign active again)' });
    const adminPage = admin.page;
    await adminPage.goto(`/workspace/publishers/${publisherId}`);
    await adminPage.getByRole('button', { name: 'Pause…' }).click();
    const form = adminPage.getByRole('form', { name: 'Pause' });
    expect(await form.locator('.warning').textContent()).to.contain("server key is refused from its next ad request");
    await adminPage.getByLabel('Reason for the owner (optional)').fill('Ads were sent without the Sponsored label.');
    await form.getByRole('button', { name: 'Pause the platform' }).click();
    await adminPage.locator('h1 .badge', { hasText: 'Paused' }).waitFor();
    expect((await server.ad('en')).status, 'the key is refused at once').to.equal(401);

    const ownerPage = owner.page;
    await ownerPage.goto(`/workspace/publishers/${publisherId}`);
    const notice = ownerPage.getByTestId('paused-notice');
    await notice.getByText('Reason: Ads were sent without the Sponsored label.').waitFor();
    // The reason comes with the platform; who paused it and when, with the audit entry a moment later.
    await notice.getByText(/paused by an administrator/).waitFor();
    const keyStatus = await ownerPage.getByTestId('key-status').textContent();
    expect(keyStatus).to.contain('refused while the platform is paused').and.to.contain('works again, unchanged');
    expect(await ownerPage.locator('main').textContent()).to.not.contain('can be generated once the platform is approved');
    expect(await scrollWidth(ownerPage)).to.be.at.most(375);
    await stack.screenshot(ownerPage, 'fixes-04-platform-paused-owner-375');

    await adminPage.getByRole('button', { name: 'Approve' }).click();
    await adminPage.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    await waitFor(async () => (await server.ad('en')).status === 200, { message: 'the same key works again after approval' });
  });

  it('8: recovers from an outage of the session check by itself, with backoff, and offers a button meanwhile', async () => {
    const { page } = admin;
    const identity = stack.system.replicasOf('publisher-identity')[0];
    if (!identity?.running) throw new Error('no publisher-identity replica');
    await identity.running.stop();
    identity.running = null;
    try {
      await page.goto('/workspace/audit');
      const panel = page.getByTestId('retry-panel');
      await panel.waitFor({ timeout: 20_000 });
      await panel.getByText(/Trying again by itself in \d+ s/).waitFor({ timeout: 20_000 });
      const button = panel.getByRole('button', { name: 'Try again' });
      await button.focus();
      expect(await focused(page)).to.equal('button:Try again');
      await stack.screenshot(page, 'fixes-08-outage-retry');
    } finally {
      await identity.restart();
    }
    // Nobody touches the page: it tries again by itself and shows the workspace once the service is back.
    await page.getByRole('heading', { level: 1, name: 'Audit record' }).waitFor({ timeout: 45_000 });
    // The browser reported the failed calls of the outage as console errors; they were the point here.
    const outage = stack.problems.filter((line) => /status of 50[23]/.test(line));
    stack.problems.splice(0, stack.problems.length, ...stack.problems.filter((line) => !outage.includes(line)));
    expect(outage.length, 'the outage was seen by the page').to.be.greaterThan(0);
  });

  it('5 and 6: shows Scheduled, Live and Ended from the schedule; an unchanged save keeps the impressions, a new placement says it starts again', async () => {
    const { page } = admin;
    await page.goto('/workspace/placements');
    const editor = page.locator('form[data-slot="home-feature"]');
    await editor.getByLabel('Title').fill('Tomorrow only');
    await editor.getByLabel('Button label').fill('See');
    await editor.getByLabel('Destination (https)').fill('https://pilot.example/tomorrow');
    await editor.getByLabel('Status').selectOption('active');
    await editor.getByLabel('Starts at (UTC, optional)').fill(`${isoDay(1)}T00:00`);
    await editor.getByRole('button', { name: 'Save home-feature' }).click();
    await editor.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await editor.locator('h2 .badge', { hasText: 'Scheduled' }).waitFor();
    expect((await openLink(`${stack.system.baseUrl}/api/site/placements/home-feature`)).status, 'not shown before its start').to.equal(204);
    await stack.screenshot(page, 'fixes-05-placement-scheduled');

    await editor.getByLabel('Starts at (UTC, optional)').fill('');
    await editor.getByRole('button', { name: 'Save home-feature' }).click();
    await editor.getByRole('status').filter({ hasText: 'This is a new placement: its impressions count from 0' }).waitFor();
    await editor.locator('h2 .badge', { hasText: 'Live' }).waitFor();
    const shown = await openLink(`${stack.system.baseUrl}/api/site/placements/home-feature`);
    expect(shown.status).to.equal(200);
    const impression = await fetch(`${stack.system.baseUrl}/api/site/placements/home-feature/impressions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.system.origin },
      body: JSON.stringify({ placementId: (shown.body as { placementId: string }).placementId }),
    });
    expect(impression.status).to.equal(204);
    await page.reload();
    await editor.getByText('Impressions of the current placement: 1').waitFor();

    // Saved again without a change: the same placement, its impression kept.
    await editor.getByRole('button', { name: 'Save home-feature' }).click();
    await editor.getByRole('status').filter({ hasText: 'Nothing changed' }).waitFor();
    await page.reload();
    await editor.getByText('Impressions of the current placement: 1').waitFor();
    expect((await openLink(`${stack.system.baseUrl}/api/site/placements/home-feature`)).body).to.deep.include({ placementId: (shown.body as { placementId: string }).placementId });

    // Ended yesterday.
    await editor.getByLabel('Ends at (UTC, optional)').fill(`${isoDay(-1)}T00:00`);
    await editor.getByRole('button', { name: 'Save home-feature' }).click();
    await editor.getByRole('status').filter({ hasText: 'the previous placement had 1' }).waitFor();
    await editor.locator('h2 .badge', { hasText: 'Ended' }).waitFor();
    await stack.screenshot(page, 'fixes-06-placement-ended');
  });

  it('10 and 11: says refusals in the words of the form, once per field, focuses the first invalid field; a reversed date range keeps the totals', async () => {
    const { page } = admin;
    await atPhoneWidth(page, async () => {
      await page.goto('/workspace/placements');
      const editor = page.locator('form[data-slot="tr-footer"]');
      await editor.getByLabel('Title').fill('   ');
      await editor.getByLabel('Button label').fill('Aç');
      await editor.getByLabel('Destination (https)').fill('http://pilot.example/tr');
      await editor.getByRole('button', { name: 'Save tr-footer' }).click();
      const title = editor.locator('.field', { has: page.getByLabel('Title') });
      await title.getByRole('alert').waitFor();
      expect(await title.getByRole('alert').textContent()).to.equal('Enter some text, not only spaces.');
      const destination = editor.locator('.field', { has: page.getByLabel('Destination (https)') });
      expect(await destination.locator('.error, .hint:not(:empty)').count(), 'one message for one problem').to.equal(1);
      const words = (await editor.textContent()) ?? '';
      expect(words).to.not.match(/destinationUrl|buttonText|title must|character\(s\)/);
      expect(await focused(page), 'the first invalid field has focus').to.equal('input:Title');
      const inView = await page.evaluate<boolean>(
        `(() => { const box = document.activeElement.getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight; })()`,
      );
      expect(inView, 'and is scrolled into view on a phone').to.equal(true);
      await stack.screenshot(page, 'fixes-10-placement-refused-375');

      await page.goto('/workspace');
      await page.getByTestId('totals').waitFor();
      // The totals "before" are those of the range up to 2026-02-01, once they replaced the earlier ones on
      // screen (networkidle, reached once per navigation, does not wait for a request made after it).
      const rangeAnswered = page.waitForResponse((response) => {
        const url = new URL(response.url());
        return url.pathname === '/api/workspace/stats' && url.searchParams.get('to') === '2026-02-01' && !url.searchParams.has('from');
      });
      await page.getByLabel('To (UTC date)').fill('2026-02-01');
      const before = String(((await (await rangeAnswered).json()) as { adRequests: number }).adRequests);
      await waitFor(async () => (await page.getByTestId('total-adRequests').textContent()) === before, { message: 'the totals up to 2026-02-01 shown' });
      await page.getByLabel('From (UTC date)').fill('2026-02-10');
      const problem = page.getByTestId('range-problem');
      await problem.waitFor();
      expect(await problem.textContent()).to.contain('The "From" date is after the "To" date');
      expect(await problem.textContent()).to.not.contain('from must not be after to');
      expect(await page.getByTestId('totals').isVisible(), 'the totals stay').to.equal(true);
      expect(await page.getByTestId('total-adRequests').textContent()).to.equal(before);
      await stack.screenshot(page, 'fixes-10-reversed-range-375');
    });
  });

  it('12: draws the chart as a timeline (zero days included), legend in bar order, small values visible', async () => {
    // 54 ad requests, one confirmed delivery and one click today.
    let ad: Ad | null = null;
    for (let i = 0; i < 54; i += 1) {
      const answer = await server.ad('en');
      expect(answer.status, answer.text).to.equal(200);
      ad ??= answer.body as unknown as Ad;
    }
    if (!ad) throw new Error('no ad');
    expect((await server.confirm(ad.delivery_token)).status).to.equal(200);
    expect((await openLink(ad.click_url)).status).to.equal(302);

    const { page } = advertiser;
    await page.goto('/workspace');
    await reloadUntil(page, async () => ((await page.getByTestId('total-clickedLinks').textContent()) === '1' ? true : null), 'the click in the totals');
    // The range from the address: a date typed while the page still reloads can be lost.
    await page.goto(`/workspace?from=${isoDay(-2)}&to=${isoDay(0)}`);
    expect(await page.getByLabel('From (UTC date)').inputValue()).to.equal(isoDay(-2));
    const days = [isoDay(-2), isoDay(-1), isoDay(0)].map(formatDate);
    // The x-axis ticks are the dates among the chart's tick labels (the y-axis ones are counts).
    const xTicks = async () => (await page.locator('.chart .recharts-cartesian-axis-tick-value').allTextContents()).filter((text) => /^\d{1,2} [A-Z][a-z]{2} \d{4}$/.test(text));
    // Every day of the range, the two without events too.
    await waitFor(async () => JSON.stringify(await xTicks()) === JSON.stringify(days), { message: `x-axis ticks ${days.join(', ')}` }).catch(() => undefined);
    expect(await xTicks()).to.deep.equal(days);
    expect(await page.locator('table tbody tr').count(), 'the table lists the days with events').to.equal(1);
    const legend = await page.locator('.chart .recharts-legend-item-text').allTextContents();
    expect(legend).to.deep.equal(['Ad requests', 'Confirmed deliveries', 'Clicked links']);
    // The bars grow in an animation: measured once it is over.
    const barHeights = () =>
      page.evaluate<number[]>(
        `Array.from(document.querySelectorAll('.chart .recharts-bar-rectangle path')).map((bar) => bar.getBoundingClientRect().height).filter((h) => h > 0)`,
      );
    await waitFor(async () => (await barHeights()).length === 3 && Math.min(...(await barHeights())) >= 4, { message: 'three bars today, none below 4 px' }).catch(() => undefined);
    const heights = await barHeights();
    expect(heights, 'three bars today').to.have.length(3);
    expect(Math.min(...heights), 'the one click next to 54 requests is visible').to.be.at.least(4);
    await stack.screenshot(page, 'fixes-12-chart-timeline');
  });

  it('2: clips a title of one letter and 400 combining marks to its own box in the preview, the header untouched', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/campaigns/new');
    await page.getByLabel('Title').fill('Plain');
    const header = page.locator('header.site-header');
    const clean = await header.screenshot();
    await page.getByLabel('Title').fill(`a${'\u0301'.repeat(400)}`);
    await page.getByTestId('preview-title').waitFor();
    const after = await header.screenshot();
    expect(Buffer.compare(clean, after), 'the header looks the same with the marks in the preview').to.equal(0);
    const clips = await page.evaluate<string[]>(`['h1', '.creative', '.creative-title'].map((s) => getComputedStyle(document.querySelector(s)).overflowY)`);
    expect(clips).to.deep.equal(['clip', 'clip', 'clip']);
    await stack.screenshot(page, 'fixes-02-combining-marks-clipped');
  });

  it('13: answers 404 for a page that does not exist, serves /favicon.ico, and titles every page', async () => {
    const { page } = await stack.open();
    const missing = await page.goto('/no-such-page');
    expect(missing?.status()).to.equal(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.title()).to.equal(`Page not found · ${SITE_NAME}`);
    const favicon = await page.request.get('/favicon.ico');
    expect(favicon.status()).to.equal(200);
    expect(favicon.headers()['content-type']).to.match(/icon/);
    expect((await page.goto('/signin'))?.status()).to.equal(200);
    expect(await page.title()).to.equal(`Sign in · ${SITE_NAME}`);

    const titles: Array<[string, string]> = [
      ['/workspace', `Dashboard · ${SITE_NAME}`],
      ['/workspace/campaigns', `Your campaigns · ${SITE_NAME}`],
      ['/workspace/campaigns/new', `New campaign · ${SITE_NAME}`],
      [`/workspace/campaigns/${campaignId}`, `Campaign #${campaignId}: Fixes campaign · ${SITE_NAME}`],
      ['/workspace/audit', `Audit record · ${SITE_NAME}`],
    ];
    for (const [path, title] of titles) {
      await advertiser.page.goto(path);
      await waitFor(async () => (await advertiser.page.title()) === title, { message: `${path} titled ${title}` });
    }
  });

  it('7: shows a loading state, serves the site compressed without source maps, and keeps the first screen within its budget', async () => {
    const { page } = await stack.open();
    const responses: Array<{ url: string; encoding: string | undefined }> = [];
    page.on('response', (response) => responses.push({ url: response.url(), encoding: response.headers()['content-encoding'] }));
    await page.goto('/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    const bytes = await page.evaluate<number>(
      `performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).reduce((sum, entry) => sum + entry.transferSize, 0)`,
    );
    const scripts = responses.filter((response) => /\/assets\/.*\.(js|css)$/.test(response.url));
    expect(scripts.length).to.be.greaterThan(0);
    // Chromium asks for brotli only over HTTPS; here, on plain HTTP, it gets gzip.
    for (const script of scripts) expect(script.encoding, script.url).to.be.oneOf(['br', 'gzip']);
    expect(bytes, `the first screen transferred ${bytes} bytes`).to.be.at.most(FIRST_SCREEN_BUDGET_BYTES);
    expect(responses.some((response) => /recharts|DashboardPage/i.test(response.url)), 'no chart code on the home page').to.equal(false);
    // No source maps: none named by the scripts, none served.
    const main = scripts.find((script) => script.url.endsWith('.js'));
    if (!main) throw new Error('no script');
    const brotli = await rawGet(main.url, { 'accept-encoding': 'br' });
    expect(brotli.headers['content-encoding']).to.equal('br');
    expect(brotli.headers.vary).to.match(/accept-encoding/i);
    const text = zlib.brotliDecompressSync(brotli.body).toString('utf8');
    expect(text).to.not.contain('sourceMappingURL');
    const plain = await rawGet(main.url, { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding'], 'a client that accepts no compression gets the file as it is').to.equal(undefined);
    expect(plain.body.toString('utf8')).to.equal(text);
    expect((await rawGet(`${main.url}.map`, {})).status).to.equal(404);

    // The dashboard says it is loading while its chart code and its totals are on the way.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await advertiser.page.route('**/api/workspace/stats*', async (route) => {
      await gate;
      await route.continue();
    });
    try {
      await advertiser.page.goto('/workspace');
      await advertiser.page.getByRole('status').filter({ hasText: 'Loading totals…' }).waitFor();
      await stack.screenshot(advertiser.page, 'fixes-07-dashboard-loading');
      release();
      await advertiser.page.getByTestId('totals').waitFor();
    } finally {
      release();
      await advertiser.page.unroute('**/api/workspace/stats*');
    }
  });

  it('1: answers an expired sign-in request with "expired", and the page offers a new code that signs in (375 px, keyboard)', async () => {
    const visitor = await stack.open({ width: 375, height: 740 });
    const { page, context } = visitor;
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    const firstCode = ((await page.getByTestId('signin-code').textContent()) ?? '').trim();

    // Five minutes pass: the services' clock jumps, and the browser drops what it would have dropped by then.
    clock.advance(5 * 60 * 1000 + 1000);
    const later = Date.now() / 1000 + 5 * 60 + 1;
    const cookies = await context.cookies();
    for (const cookie of cookies) {
      if (cookie.expires !== -1 && cookie.expires < later) await context.clearCookies({ name: cookie.name });
    }
    expect(cookies.find((cookie) => cookie.name === 'pilot_login')?.expires, 'the binding cookie outlives the request').to.be.greaterThan(later);

    await page.getByText('This sign-in code expired before it was confirmed').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('signin-code').count(), 'the dead code is gone').to.equal(0);
    expect(await page.locator('svg title', { hasText: 'QR code of the bot link' }).count(), 'and its QR code').to.equal(0);
    expect(await page.locator('main').textContent()).to.not.contain('Not found');
    await stack.screenshot(page, 'fixes-01-signin-expired-375');
    // The expired code pressed Start on late: the bot says it expired and asks nothing.
    const late = await botUpdate(stack.system, startUpdate(firstCode, VISITOR_ID));
    expect(late.status).to.equal(200);
    expect(late.body.text).to.match(/expired/i);

    await page.getByRole('button', { name: 'Get a new code' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('signin-code').waitFor();
    const secondCode = await confirmShownCode(page, VISITOR_ID);
    expect(secondCode).to.not.equal(firstCode);
    await page.waitForURL('**/workspace', { timeout: 20_000 });
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await scrollWidth(page)).to.be.at.most(375);
  });
});
