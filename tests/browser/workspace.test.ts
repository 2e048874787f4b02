/**
 * The product in a real browser (Debian chromium through playwright-core) against the whole running
 * system: gateway, every service and the web service, on real RabbitMQ, Redis and FerretDB. People sign in
 * through the sign-in page and the bot's webhook, and do everything else through the pages; only the
 * publisher's server (a bearer key, no browser) calls the network API directly.
 * Screenshots go to test-artifacts/browser/.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { BrowserContext, Page } from '../../services/web/test/support/chromium';
import { PublisherServer } from '../e2e/support/clients';
import { ADMIN_ID } from '../e2e/support/system';
import { reloadUntil, scrollWidth, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

interface Ad {
  campaign_id: number;
  title: string;
  text: string;
  button_text: string;
  click_url: string;
  delivery_token: string;
  sponsored: boolean;
}

interface SlotState {
  slot: string;
  impressions: number;
}

const ADVERTISER_ID = '5101';
const PUBLISHER_OWNER_ID = '5102';
const DESTINATION = 'https://advertiser.example/landing?from=browser-journey';

/** Reads a number shown on the page (the dashboard's totals). */
async function numberIn(page: Page, testId: string): Promise<number> {
  return Number((await page.getByTestId(testId).textContent())?.trim());
}

/** How far the widest scrolling table box on the page is wider than the box itself (0: every table fits). */
async function hiddenTableWidth(page: Page): Promise<number> {
  return page.evaluate<number>('Math.max(0, ...Array.from(document.querySelectorAll(".table-wrap"), (box) => box.scrollWidth - box.clientWidth))');
}

/** Website placements as the administrator's session reads them from the API. */
async function slotImpressions(admin: BrowserContext, slot: string): Promise<number> {
  const answer = await admin.request.get('/api/workspace/placements');
  expect(answer.status(), await answer.text()).to.equal(200);
  const body = (await answer.json()) as { items: SlotState[] };
  const state = body.items.find((item) => item.slot === slot);
  if (!state) throw new Error(`no slot ${slot}`);
  return state.impressions;
}

describe('the product in a browser, against the whole system', function () {
  this.timeout(120_000);
  let stack: BrowserSystem;
  let admin: Person;
  let advertiser: Person;
  let publisherOwner: Person;
  let campaignId = 0;
  let publisherId = 0;
  let hostileId = 0;
  let server: PublisherServer;
  /** The later tests continue with the people and records of the journey. */
  let journeyDone = false;
  const afterJourney = () => expect(journeyDone, 'the whole journey (the first test) passed').to.equal(true);

  before(async function () {
    this.timeout(240_000);
    stack = await startBrowserSystem();
  });

  stopAndWatchForProblems(() => stack);

  it('runs the whole journey: campaign, review, platform, key, an ad served, confirmed and clicked, and the new totals', async () => {
    // The advertiser signs in (the page shows the code; the bot confirms it) and creates a campaign.
    advertiser = await stack.signIn(ADVERTISER_ID, { screenshot: 'journey-01-signin-code' });
    const { page: adPage } = advertiser;
    await adPage.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await adPage.getByRole('link', { name: 'New campaign' }).click();
    await adPage.waitForURL('**/workspace/campaigns/new');
    await adPage.getByLabel('Internal name').fill('Browser journey');
    await adPage.getByLabel('Title').fill('Learn Turkish in 10 minutes a day');
    await adPage.getByLabel('Message').fill('Short daily lessons. Free for the first week.');
    await adPage.getByLabel('Button label').fill('Try it');
    await adPage.getByLabel('Destination (https)').fill(DESTINATION);
    expect(await adPage.getByTestId('preview-title').textContent()).to.equal('Learn Turkish in 10 minutes a day');
    expect(await adPage.locator('.creative .sponsored').textContent()).to.equal('Sponsored');
    await stack.screenshot(adPage, 'journey-02-campaign-form');
    await adPage.getByRole('button', { name: 'Save draft' }).click();
    await adPage.waitForURL(/\/workspace\/campaigns\/\d+$/);
    campaignId = Number(/(\d+)$/.exec(adPage.url())?.[1]);
    expect(campaignId).to.be.greaterThan(0);
    await adPage.locator('h1 .badge', { hasText: 'Draft' }).waitFor();
    await adPage.getByRole('button', { name: 'Submit for review' }).click();
    await adPage.locator('h1 .badge', { hasText: 'In review' }).waitFor();

    // The administrator finds it in the review queue, approves it, then activates it.
    admin = await stack.signIn(ADMIN_ID);
    const { page: adminPage } = admin;
    expect(await adminPage.getByTestId('account').getByText('Administrator').isVisible()).to.equal(true);
    await adminPage.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await adminPage.getByRole('link', { name: 'Review queue' }).click();
    await adminPage.waitForURL('**/workspace/review');
    await adminPage.getByRole('link', { name: `#${campaignId} Browser journey` }).click();
    // The queue shows decision buttons of its own: act only once the campaign's page has replaced it.
    await adminPage.locator('h1', { hasText: 'Browser journey' }).waitFor();
    await adminPage.getByRole('button', { name: 'Approve' }).click();
    await adminPage.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    await adminPage.getByRole('button', { name: 'Activate' }).click();
    await adminPage.locator('h1 .badge', { hasText: 'Active' }).waitFor();
    await stack.screenshot(adminPage, 'journey-03-campaign-active');

    // A publisher owner registers a bot, submits it; the administrator approves it from the review queue.
    publisherOwner = await stack.signIn(PUBLISHER_OWNER_ID);
    const { page: ownerPage } = publisherOwner;
    await ownerPage.getByRole('link', { name: 'Platforms', exact: true }).click();
    await ownerPage.getByLabel('Public link').fill('@browser_journey_bot');
    await ownerPage.getByRole('button', { name: 'Register as draft' }).click();
    await ownerPage.waitForURL(/\/workspace\/publishers\/\d+$/);
    publisherId = Number(/(\d+)$/.exec(ownerPage.url())?.[1]);
    expect(publisherId).to.be.greaterThan(0);
    await ownerPage.getByRole('button', { name: 'Submit for review' }).click();
    await ownerPage.locator('h1 .badge', { hasText: 'In review' }).waitFor();

    // A fresh load: the administrator's list from before the registration may still be in the page's cache.
    await adminPage.goto('/workspace/publishers');
    await adminPage.getByLabel('Status').selectOption('submitted');
    await adminPage.getByRole('link', { name: `#${publisherId} https://t.me/browser_journey_bot` }).click();
    await adminPage.getByRole('button', { name: 'Approve' }).click();
    await adminPage.locator('h1 .badge', { hasText: 'Approved' }).waitFor();

    // The owner generates the key: shown once, with a copy button and the server-only warning.
    await ownerPage.reload();
    await ownerPage.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    await ownerPage.getByRole('button', { name: 'Generate key' }).click();
    const keyField = ownerPage.getByTestId('new-key');
    await keyField.waitFor();
    const key = await keyField.inputValue();
    expect(key).to.have.length.greaterThan(20);
    expect(await ownerPage.locator('.new-key .warning').textContent()).to.contain('Keep it on your server only');
    expect(await ownerPage.getByRole('button', { name: 'Copy key' }).isVisible()).to.equal(true);
    const stored = await ownerPage.evaluate<string>('JSON.stringify([Object.values(localStorage), Object.values(sessionStorage), location.href, document.cookie])');
    expect(stored).to.not.contain(key);

    // The publisher's server fetches that campaign from the ad endpoint through the gateway with the key.
    server = new PublisherServer(stack.system, key);
    const ad = await waitFor(
      async () => {
        const answer = await server.ad('en');
        return answer.status === 200 ? (answer.body as unknown as Ad) : null;
      },
      { timeoutMs: 15_000, message: 'the active campaign to be served' },
    );
    expect(ad).to.include({ campaign_id: campaignId, title: 'Learn Turkish in 10 minutes a day', button_text: 'Try it', sponsored: true });
    const confirmed = await server.confirm(ad.delivery_token);
    expect(confirmed.status, confirmed.text).to.equal(200);

    // Someone reading the message opens its link in a browser: the gateway redirects to the advertiser's page
    // (whose host does not exist here, so the browser stops there; the redirect is what counts).
    const reader = await stack.open({ width: 375, height: 700 });
    const landing = reader.page.waitForRequest((request) => request.url() === DESTINATION);
    await reader.page.goto(ad.click_url).catch(() => null);
    const followed = await landing;
    const hop = followed.redirectedFrom();
    expect(hop?.url()).to.equal(ad.click_url);
    expect((await hop?.response())?.status()).to.equal(302);

    // The advertiser's dashboard shows the new totals, per day too.
    await adPage.goto('/workspace');
    await reloadUntil(
      adPage,
      async () => ((await adPage.getByTestId('totals').isVisible()) && (await numberIn(adPage, 'total-clickedLinks')) === 1 ? true : null),
      'the click to reach the dashboard',
    );
    expect(await numberIn(adPage, 'total-adRequests')).to.equal(1);
    expect(await numberIn(adPage, 'total-confirmedDeliveries')).to.equal(1);
    expect(await numberIn(adPage, 'total-clickedLinks')).to.equal(1);
    await adPage.locator('.chart svg.recharts-surface').first().waitFor();
    expect(await adPage.locator('table tbody tr').count()).to.equal(1);
    await Promise.all([
      adPage.waitForResponse((response) => response.url().includes(`campaignId=${campaignId}`) && response.status() === 200),
      (async () => {
        await adPage.getByRole('combobox', { name: 'Campaign' }).click();
        await adPage.getByRole('option', { name: new RegExp(`^#${campaignId} `) }).click();
      })(),
    ]);
    await adPage.getByTestId('totals').waitFor();
    expect(await numberIn(adPage, 'total-adRequests')).to.equal(1);
    await stack.screenshot(adPage, 'journey-04-dashboard-totals');

    // The owner of the platform sees the same totals for it, once the key is stored (leaving with it shown asks first).
    await ownerPage.getByRole('button', { name: 'I have stored the key; hide it' }).click();
    await ownerPage.goto('/workspace');
    await reloadUntil(ownerPage, async () => ((await ownerPage.getByTestId('totals').isVisible()) && (await numberIn(ownerPage, 'total-clickedLinks')) === 1 ? true : null), 'the publisher owner’s totals');
    expect(await numberIn(ownerPage, 'total-confirmedDeliveries')).to.equal(1);
    journeyDone = true;
  });

  it('shows a campaign title like <img src=x onerror=alert(1)> as text everywhere and runs no script', async () => {
    afterJourney();
    const hostile = '<img src=x onerror=alert(1)>';
    const hostileText = '<script>alert(2)</script> and <b onmouseover=alert(3)>bold</b>';
    const { page } = advertiser;
    await page.goto('/workspace/campaigns/new');
    await page.getByLabel('Internal name').fill('<i>Hostile</i>');
    await page.getByLabel('Title').fill(hostile);
    await page.getByLabel('Message').fill(hostileText);
    await page.getByLabel('Button label').fill('<u>Go</u>');
    await page.getByLabel('Destination (https)').fill('https://advertiser.example/hostile');
    expect(await page.getByTestId('preview-title').textContent()).to.equal(hostile);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    hostileId = Number(/(\d+)$/.exec(page.url())?.[1]);
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.locator('h1 .badge', { hasText: 'In review' }).waitFor();
    expect(await page.getByTestId('preview-title').textContent()).to.equal(hostile);
    expect(await page.locator('.creative-text').textContent()).to.equal(hostileText);

    // The administrator reads it in the review queue and on its page; the audit record shows it too.
    const adminPage = admin.page;
    await adminPage.goto('/workspace/campaigns?status=submitted');
    const card = adminPage.locator('tbody tr', { has: adminPage.getByRole('link', { name: `#${hostileId} <i>Hostile</i>` }) });
    expect(await card.locator('.card-title').textContent()).to.equal(hostile);
    await stack.screenshot(adminPage, 'xss-review-queue');
    await card.getByRole('link').click();
    expect(await adminPage.getByTestId('preview-title').textContent()).to.equal(hostile);
    expect(await adminPage.locator('.creative .button').textContent()).to.equal('<u>Go</u>');
    await stack.screenshot(adminPage, 'xss-campaign-detail');

    for (const seen of [page, adminPage]) {
      // No element came out of the text: no image with src=x, no script, no <b> or <i> or <u> element.
      expect(await seen.locator('img[src="x"], main script, main b, main i, main u').count()).to.equal(0);
    }
    // Give an onerror handler every chance to run: the image would have failed to load by now.
    await adminPage.waitForLoadState('networkidle');
    expect(stack.problems.filter((problem) => problem.startsWith('dialog'))).to.deep.equal([]);
  });

  it('counts a website placement impression only once the placement is scrolled at least half into view', async () => {
    afterJourney();
    // The administrator publishes the home-feature placement in the placements editor.
    const adminPage = admin.page;
    await adminPage.getByRole('link', { name: 'Placements', exact: true }).click();
    const editor = adminPage.locator('form[data-slot="home-feature"]');
    await editor.waitFor();
    await editor.getByLabel('Title').fill('Meet the pilot');
    await editor.getByLabel('Button label').fill('Read more');
    await editor.getByLabel('Destination (https)').fill('https://pilot.example/about');
    await editor.getByLabel('Status').selectOption('active');
    await editor.getByRole('button', { name: 'Save home-feature' }).click();
    await editor.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await slotImpressions(admin.context, 'home-feature')).to.equal(0);

    // A visitor on a small screen opens the home page: the placement renders below the fold.
    const visitor = await stack.open({ width: 375, height: 480 });
    await visitor.page.goto('/');
    const placement = visitor.page.locator('aside[data-slot="home-feature"]');
    await placement.waitFor();
    expect(await placement.locator('.placement-title').textContent()).to.equal('Meet the pilot');
    expect(await placement.getByRole('link', { name: 'Read more' }).getAttribute('href')).to.equal('https://pilot.example/about');
    await waitFor(async () => (await placement.getAttribute('data-impression')) === 'waiting', { message: 'the observer to see the placement hidden' });
    const box = await placement.boundingBox();
    if (!box) throw new Error('the placement has no box');
    expect(box.y, 'the placement starts below the fold').to.be.greaterThan(480);
    await visitor.page.waitForLoadState('networkidle');
    expect(await slotImpressions(admin.context, 'home-feature'), 'before scrolling').to.equal(0);

    // Scrolled so that about a third of it is visible: still not counted.
    const top = box.y + (await visitor.page.evaluate<number>('window.scrollY'));
    await visitor.page.evaluate(`window.scrollTo(0, ${Math.round(top + box.height * 0.3 - 480)})`);
    const partly = await placement.boundingBox();
    if (!partly) throw new Error('the placement has no box');
    const visibleShare = (480 - partly.y) / partly.height;
    expect(visibleShare).to.be.within(0.1, 0.45);
    await visitor.page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 300))))');
    expect(await placement.getAttribute('data-impression')).to.equal('waiting');
    await visitor.page.waitForLoadState('networkidle');
    expect(await slotImpressions(admin.context, 'home-feature'), 'with a third in view').to.equal(0);
    await stack.screenshot(visitor.page, 'impression-1-partly-visible');

    // Scrolled fully into view: one impression, and only one however often it is seen again.
    await placement.scrollIntoViewIfNeeded();
    await waitFor(async () => (await placement.getAttribute('data-impression')) === 'reported', { message: 'the impression to be reported' });
    await waitFor(async () => (await slotImpressions(admin.context, 'home-feature')) === 1, { message: 'the impression to be counted' });
    await visitor.page.evaluate('window.scrollTo(0, 0)');
    await placement.scrollIntoViewIfNeeded();
    await visitor.page.waitForLoadState('networkidle');
    expect(await slotImpressions(admin.context, 'home-feature'), 'one per page view').to.equal(1);
    await stack.screenshot(visitor.page, 'impression-2-visible');

    // The editor shows the count.
    await adminPage.reload();
    await adminPage.locator('form[data-slot="home-feature"]').getByText('Impressions of the current placement: 1').waitFor();
  });

  it('rotates the key only after a confirmation step; the old key stops at once and the new one is served', async () => {
    afterJourney();
    const { page } = publisherOwner;
    await page.goto(`/workspace/publishers/${publisherId}`);
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm rotation' });
    expect(await confirm.locator('.warning').textContent()).to.contain('will stop working immediately');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await server.ad('en')).status, 'cancelling keeps the key').to.equal(200);
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    await stack.screenshot(page, 'key-rotation-confirm');
    await page.getByRole('button', { name: 'Yes, rotate the key' }).click();
    const fresh = await page.getByTestId('new-key').inputValue();
    expect(fresh).to.not.equal(server.key);
    expect((await server.ad('en')).status, 'the old key').to.equal(401);
    server.key = fresh;
    expect((await server.ad('en')).status, 'the new key').to.equal(200);
    await page.getByRole('button', { name: 'I have stored the key; hide it' }).click();
    await page.getByTestId('new-key').waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Rotate key…' }).isVisible(), 'the key is gone; only rotation is offered').to.equal(true);
    await page.goto('/workspace/audit');
    await page.getByLabel('Record type').selectOption('publisher');
    await page.getByTestId('audit-table').getByRole('cell', { name: 'Server key rotated' }).waitFor();
  });

  it('counts characters as the campaign service does and shows its refusals next to the fields', async () => {
    afterJourney();
    const { page } = advertiser;
    await page.goto('/workspace/campaigns/new');
    const title = '👨‍👩‍👧'.repeat(100);
    await page.getByLabel('Internal name').fill('Families');
    await page.getByLabel('Title').fill(title);
    const titleField = page.locator('.field', { has: page.getByLabel('Title') });
    expect(await titleField.locator('.counter').textContent()).to.equal('100 / 100');
    expect(await titleField.locator('.hint').textContent()).to.equal('');
    await page.getByLabel('Message').fill('For the whole family.');
    await page.getByLabel('Button label').fill('Look');
    // A backslash: browsers read it as a slash, so only the service can refuse it.
    await page.getByLabel('Destination (https)').fill('https://advertiser.example\\families');
    await page.getByRole('button', { name: 'Save draft' }).click();
    const destination = page.locator('.field', { has: page.getByLabel('Destination (https)') });
    await destination.getByTestId('server-errors').getByRole('alert').waitFor();
    expect(await destination.getByTestId('server-errors').textContent()).to.contain('backslashes');
    expect(await page.getByLabel('Destination (https)').getAttribute('aria-invalid')).to.equal('true');
    expect(await page.getByText('Some fields need changes; see the messages next to them.').isVisible()).to.equal(true);
    await stack.screenshot(page, 'campaign-refused-field');
    await page.getByLabel('Destination (https)').fill('https://advertiser.example/families');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    expect(await page.getByTestId('preview-title').textContent()).to.equal(title);
  });

  it('lets the administrator reject with a reason the owner reads, and the owner create a replacement draft', async () => {
    afterJourney();
    expect(hostileId, 'the hostile-title test created its campaign').to.be.greaterThan(0);
    const adminPage = admin.page;
    await adminPage.goto(`/workspace/campaigns/${hostileId}`);
    await adminPage.getByRole('button', { name: 'Reject…' }).click();
    await adminPage.getByLabel('Reason for the owner').fill('Markup is not allowed in the title; use plain words.');
    await adminPage.getByRole('form', { name: 'Reject' }).getByRole('button', { name: 'Reject', exact: true }).click();
    await adminPage.locator('h1 .badge', { hasText: 'Rejected' }).waitFor();

    const { page } = advertiser;
    await page.goto('/workspace/campaigns?status=rejected');
    const card = page.locator('tbody tr', { has: page.getByRole('link', { name: `#${hostileId} ` }) });
    expect(await card.locator('.reason').textContent()).to.equal('Rejected: Markup is not allowed in the title; use plain words.');
    await card.getByRole('link').click();
    await page.getByRole('button', { name: 'Create a replacement draft' }).click();
    await page.getByRole('heading', { name: `Replacement draft for campaign #${hostileId}` }).waitFor();
    await waitFor(async () => (await page.getByLabel('Title').inputValue()) === '<img src=x onerror=alert(1)>', { message: 'the form filled from the original' });
    await page.getByLabel('Title').fill('A plain title');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    await page.locator('.facts').getByRole('link', { name: `#${hostileId}` }).waitFor();

    await page.goto('/workspace/audit');
    await page.getByLabel('Record type').selectOption('campaign');
    await page.getByLabel('Record id').fill(String(hostileId));
    const table = page.getByTestId('audit-table');
    await table.getByRole('cell', { name: 'Markup is not allowed in the title; use plain words.' }).waitFor();
    const actions = await table.locator('tbody tr td:nth-child(4)').allTextContents();
    expect(actions).to.include.members(['Created', 'Submitted for review', 'Rejected']);
    await stack.screenshot(page, 'audit-rejected');
  });

  it('lays out every page within 375 px without sideways scrolling (screenshots in test-artifacts/browser)', async () => {
    afterJourney();
    // A workspace-top placement, so the workspace pages are seen with their slot filled.
    const adminPage = admin.page;
    await adminPage.goto('/workspace/placements');
    const editor = adminPage.locator('form[data-slot="workspace-top"]');
    await editor.getByLabel('Title').fill('Pilot office hours every Thursday: ask the team anything about reviews and keys');
    await editor.getByLabel('Button label').fill('Join');
    await editor.getByLabel('Destination (https)').fill('https://pilot.example/office-hours');
    await editor.getByLabel('Status').selectOption('active');
    await editor.getByRole('button', { name: 'Save workspace-top' }).click();
    await editor.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    const visitor = await stack.open({ width: 375, height: 740 });
    const pages: Array<{ who: Page; name: string; path: string; heading: RegExp; before?: (page: Page) => Promise<void> }> = [
      { who: visitor.page, name: 'home', path: '/', heading: /Sponsored creatives/ },
      { who: visitor.page, name: 'tr', path: '/tr', heading: /Onaylı botlar/ },
      {
        who: visitor.page,
        name: 'signin',
        path: '/signin',
        heading: /Sign in to the workspace/,
        before: async (page) => {
          await page.getByRole('button', { name: 'Get a sign-in code' }).click();
          await page.getByTestId('signin-code').waitFor();
        },
      },
      { who: visitor.page, name: 'not-found', path: '/no-such-page', heading: /./ },
      { who: advertiser.page, name: 'dashboard', path: '/workspace', heading: /Dashboard/ },
      { who: advertiser.page, name: 'campaigns', path: '/workspace/campaigns', heading: /Your campaigns/ },
      { who: advertiser.page, name: 'campaign-new', path: '/workspace/campaigns/new', heading: /New campaign/ },
      { who: advertiser.page, name: 'campaign-replacement', path: `/workspace/campaigns/new?replaces=${campaignId}`, heading: /Replacement draft/ },
      { who: advertiser.page, name: 'campaign-detail', path: `/workspace/campaigns/${campaignId}`, heading: /Campaign #/ },
      { who: publisherOwner.page, name: 'platforms', path: '/workspace/publishers', heading: /Your platforms/ },
      { who: publisherOwner.page, name: 'platform-detail', path: `/workspace/publishers/${publisherId}`, heading: /Platform #/ },
      { who: publisherOwner.page, name: 'audit', path: '/workspace/audit', heading: /Audit record/ },
      { who: adminPage, name: 'admin-dashboard', path: '/workspace', heading: /Dashboard/ },
      { who: adminPage, name: 'admin-review-queue', path: '/workspace/campaigns?status=submitted', heading: /Campaigns of the network/ },
      { who: adminPage, name: 'admin-platforms', path: '/workspace/publishers', heading: /Platforms of the network/ },
      { who: adminPage, name: 'admin-placements', path: '/workspace/placements', heading: /Website placements/ },
      { who: adminPage, name: 'admin-audit', path: '/workspace/audit', heading: /Audit record/ },
    ];
    const overflowing: string[] = [];
    for (const entry of pages) {
      await entry.who.setViewportSize({ width: 375, height: 740 });
      await entry.who.goto(entry.path);
      await entry.who.getByRole('heading', { level: 1, name: entry.heading }).first().waitFor();
      if (entry.before) await entry.before(entry.who);
      await entry.who.waitForLoadState('networkidle');
      if (entry.path.startsWith('/workspace')) await entry.who.locator('aside[data-slot="workspace-top"]').waitFor();
      const width = await scrollWidth(entry.who);
      if (width > 375) overflowing.push(`${entry.name} (${entry.path}): ${width} px`);
      // Nor a table that hides columns behind its own sideways scrolling.
      const hidden = await hiddenTableWidth(entry.who);
      if (hidden > 0) overflowing.push(`${entry.name} (${entry.path}): a table ${hidden} px wider than its box`);
      await stack.screenshot(entry.who, `375-${entry.name}`);
    }
    expect(overflowing, 'pages wider than 375 px').to.deep.equal([]);
  });
});
