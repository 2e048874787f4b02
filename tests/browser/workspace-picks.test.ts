/**
 * What a new user found trying the workspace as an advertiser, a platform owner and an administrator, in a
 * real browser against the whole running system: pickers that open from their field, rates rounded and
 * never above a whole, fill only where it means something, no links to records the reader cannot open,
 * the review queue's order by submission, right-to-left texts, a missing record's page, long ranges and
 * today's hours, plurals, confirmation buttons apart, language names, the header at 1440 and 375 px, the
 * campaign page's facts, placements' warnings and counters, and one empty-state message at a time.
 * Screenshots go to test-artifacts/browser/picks-*.png.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { openLink, signedIn, type Ad, type Browser as ApiBrowser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, draftCampaign, type Publisher } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { atPhoneWidth, isoDay, reloadUntil, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '7501';
const OWNER_ID = '7502';
const NEWCOMER_ID = '7503';
const RTL_TITLE = 'عرض خاص';
const RTL_TEXT = 'مرحبا بكم في متجرنا. '.repeat(30);

async function text(locator: ReturnType<Page['locator']>): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

async function box(locator: ReturnType<Page['locator']>): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not drawn');
  return found;
}

/** A picker's field, its whole box and its list once opened: the list hangs from the field, the box is the label and the field. */
async function expectPickerFitsItsField(page: Page, testId: string, what: string): Promise<void> {
  const picker = page.getByTestId(testId);
  const field = picker.getByRole('combobox');
  const label = picker.locator('label');
  const [whole, input] = [await box(picker), await box(field)];
  const labelHeight = (await label.count()) > 0 ? (await box(label.first())).height : 0;
  expect(whole.height, `${what}: the picker is its label and its field, no gap`).to.be.at.most(labelHeight + input.height + 12);
  await field.click();
  const list = picker.getByRole('listbox');
  await list.waitFor();
  const opened = await box(list);
  expect(Math.abs(opened.y - (input.y + input.height)), `${what}: the suggestions open right under the field`).to.be.at.most(6);
  await field.press('Escape');
}

describe('what a new user picked over in the workspace (browser, whole system)', function () {
  this.timeout(240_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let ownerApi: ApiBrowser;
  let advertiser: Person;
  let owner: Person;
  let admin: Person;
  let campaignId = 0;
  let draftId = 0;
  let publisher: Publisher;

  before(async function () {
    this.timeout(300_000);
    stack = await startBrowserSystem({ settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '100' } } });
    [advertiserApi, adminApi, ownerApi] = await Promise.all([signedIn(stack.system, ADVERTISER_ID), signedIn(stack.system, ADMIN_ID), signedIn(stack.system, OWNER_ID)]);
    campaignId = (await activeCampaign(advertiserApi, adminApi, { name: 'Picks Arabic', title: RTL_TITLE, text: RTL_TEXT, language: 'ar' })).id;
    draftId = (await draftCampaign(advertiserApi, { name: 'Picks draft' })).id;
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisher = approved.publisher;
    const server = approved.server;
    // 3 ads, 2 confirmed, all 3 clicked: confirmation 2 / 3 (66.7%), and more clicks than confirmations.
    await waitFor(async () => (await server.ad('ar')).status === 200, { message: 'the campaign is served' });
    const ads: Ad[] = [];
    for (let index = 0; index < 2; index += 1) {
      const answer = await server.ad('ar');
      expect(answer.status, answer.text).to.equal(200);
      ads.push(answer.body as unknown as Ad);
    }
    for (const ad of ads) expect((await server.confirm(ad.delivery_token)).status).to.equal(200);
    for (const ad of ads) expect((await openLink(ad.click_url)).status).to.equal(302);
    advertiser = await stack.signIn(ADVERTISER_ID);
    owner = await stack.signIn(OWNER_ID);
    admin = await stack.signIn(ADMIN_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('rounds rates, writes no click-through above a whole, shows no fill for one campaign and links no platform the advertiser cannot open', async () => {
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${campaignId}`);
    const stats = page.getByTestId('record-stats');
    // 3 requests served (the first call too), 2 confirmed, 2 clicked... read until all are counted.
    await reloadUntil(page, async () => ((await text(stats.getByTestId('total-clickedLinks'))) === '2' && (await text(stats.getByTestId('total-adRequests'))) === '3' ? true : null), 'the events counted');
    expect(await text(stats.getByTestId('rate-confirmation')), '2 / 3 rounded, not cut').to.equal('66.7%');
    expect(await text(stats.getByTestId('rate-ctr'))).to.equal('100.0%');

    const table = page.getByTestId('campaign-platforms-table');
    await table.waitFor();
    const headers = (await table.locator('thead th').allTextContents()).map((cell) => cell.trim());
    expect(headers.some((header) => header.startsWith('Fill')), 'no fill for one campaign\'s platforms').to.equal(false);
    const first = table.locator('tbody tr').first().locator('th');
    expect(await text(first)).to.equal(`#${publisher.id}`);
    expect(await first.locator('a').count(), 'another account\'s platform is not a link').to.equal(0);
    // One period control on the page: the totals' buttons; the table follows them.
    expect(await page.getByTestId('campaign-platforms').getByRole('combobox', { name: /^Period/ }).count()).to.equal(0);
    await stack.screenshot(page, 'picks-01-campaign-rates');
  });

  it('writes no click-through rate when clicks outnumber confirmed deliveries, and says why', async () => {
    const { page } = advertiser;
    const extra = await (async () => {
      const server = (await approvedPublisher(stack.system, ownerApi, adminApi)).server;
      const answer = await server.ad('ar');
      expect(answer.status, answer.text).to.equal(200);
      return answer.body as unknown as Ad;
    })();
    // Clicked, never confirmed: 3 clicks on 2 confirmed deliveries.
    expect((await openLink(extra.click_url)).status).to.equal(302);
    await page.goto(`/workspace/campaigns/${campaignId}`);
    const stats = page.getByTestId('record-stats');
    await reloadUntil(page, async () => ((await text(stats.getByTestId('total-clickedLinks'))) === '3' ? true : null), 'the third click counted');
    expect(await text(stats.getByTestId('rate-ctr'))).to.equal('–');
    expect(await text(stats.getByTestId('rate-ctr-note'))).to.match(/^not a rate: more clicked links \(3\) than confirmed deliveries \(2\)/);
    const cells = await page.getByTestId('campaign-platforms-table').locator('td[data-column="ctr"]').allTextContents();
    expect(cells.map((cell) => Number.parseFloat(cell)).filter((rate) => rate > 100), 'no rate above 100% in the table').to.deep.equal([]);
    expect(cells.map((cell) => cell.trim())).to.include('–');
  });

  it('lays out right-to-left creatives right to left, and keeps the facts beside a long message compact', async () => {
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${campaignId}`);
    const title = page.getByTestId('preview-title');
    await title.waitFor();
    expect(await title.getAttribute('dir')).to.equal('auto');
    expect(await page.getByTestId('preview-text').evaluate((node) => node.ownerDocument.defaultView?.getComputedStyle(node).direction)).to.equal('rtl');
    const facts = page.locator('dl.facts').first();
    const rows = await facts.evaluate((list) => {
      const children = [...list.children].map((child) => child.getBoundingClientRect());
      return { height: list.getBoundingClientRect().height, used: Math.max(...children.map((rect) => rect.bottom)) - Math.min(...children.map((rect) => rect.top)) };
    });
    expect(rows.height, 'the facts are as tall as their lines, not as the preview').to.be.at.most(rows.used + 2);
    expect(await page.getByText('Arabic (ar)').count(), 'the language by its name').to.be.at.least(1);

    await page.goto('/workspace/campaigns/new');
    const message = page.getByLabel('Message');
    expect(await message.getAttribute('dir')).to.equal('auto');
    await message.fill(RTL_TITLE);
    expect(await page.getByTestId('preview-text').evaluate((node) => node.ownerDocument.defaultView?.getComputedStyle(node).direction)).to.equal('rtl');
  });

  it('opens the language and dashboard pickers right under their fields, names languages, at 1280 and 375 px', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/campaigns/new');
    await page.getByTestId('language-picker').waitFor();
    await expectPickerFitsItsField(page, 'language-picker', 'language, 1280');
    const language = page.getByTestId('language-picker').getByRole('combobox');
    await language.fill('afar');
    expect(await text(page.getByTestId('language-picker').getByRole('option').first())).to.equal('Afar (aa)');
    await language.press('Escape');
    await atPhoneWidth(page, () => expectPickerFitsItsField(page, 'language-picker', 'language, 375'));

    // The administrator has both pickers (the network's campaigns and platforms).
    const dashboard = admin.page;
    await dashboard.goto('/workspace');
    await dashboard.getByTestId('publisher-picker').waitFor();
    await expectPickerFitsItsField(dashboard, 'campaign-picker', 'campaign, 1280');
    await expectPickerFitsItsField(dashboard, 'publisher-picker', 'platform, 1280');
    await atPhoneWidth(dashboard, () => expectPickerFitsItsField(dashboard, 'campaign-picker', 'campaign, 375'));
    await stack.screenshot(dashboard, 'picks-02-dashboard-pickers');
  });

  it('gives a missing or foreign record a page with a heading and the way back', async () => {
    for (const [page, path, heading] of [
      [advertiser.page, '/workspace/campaigns/999999', 'Campaign #999999 not found'],
      [owner.page, `/workspace/campaigns/${campaignId}`, `Campaign #${campaignId} not found`],
      [advertiser.page, `/workspace/publishers/${publisher.id}`, `Platform #${publisher.id} not found`],
    ] as const) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await page.getByTestId('record-load-failed').getByRole('link', { name: /^← (Campaigns|Platforms)$/ }).count()).to.equal(1);
    }
    await stack.screenshot(advertiser.page, 'picks-03-not-found');
  });

  it('says what the table and the CSV of a long range hold, and gives today\'s hours a CSV with the hours to come blank', async () => {
    const { page } = advertiser;
    const from = isoDay(-1100);
    await page.goto(`/workspace?from=${from}&to=${isoDay(0)}`);
    const note = page.getByTestId('chart-by-month');
    await note.waitFor();
    expect(await text(note)).to.contain('The table lists the 1 day with events; the CSV has every day of the period (1,101 days)');
    expect(await page.getByTestId('day-table').locator('tbody tr').count()).to.equal(1);

    await page.goto('/workspace');
    await page.getByRole('button', { name: 'Today' }).click();
    const hourly = page.getByTestId('hourly-figures');
    await hourly.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), hourly.getByTestId('csv-export').click()]);
    expect(download.suggestedFilename()).to.match(/by-hour\.csv$/);
    const hour = new Date().getUTCHours();
    const toCome = await page.getByTestId('hour-table').locator('tbody tr.to-come').count();
    expect(toCome, 'the hours after this one are to come, not zeros').to.equal(23 - hour);
  });

  it('writes counts in the number they take', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/campaigns?q=Picks%20draft');
    const count = page.getByTestId('campaign-list').locator('xpath=../..').getByTestId('shown-count');
    await waitFor(async () => (await text(count).catch(() => '')) === '1 campaign shown, the only one', { message: 'one campaign, in words' });
  });

  it('keeps the confirming button and Cancel apart in the key dialogs', async () => {
    const { page } = owner;
    await page.goto(`/workspace/publishers/${publisher.id}`);
    for (const [open, group] of [
      ['Rotate key…', 'Confirm rotation'],
      ['Create test key', null],
      ['Replace test key…', 'Confirm test key replacement'],
    ] as const) {
      await page.getByRole('button', { name: open }).click();
      if (!group) {
        await page.getByRole('button', { name: 'Replace test key…' }).waitFor();
        continue;
      }
      const dialog = page.getByRole('group', { name: group });
      const buttons = dialog.getByRole('button');
      const [confirm, cancel] = [await box(buttons.nth(0)), await box(buttons.nth(1))];
      const apart = cancel.y >= confirm.y + confirm.height ? cancel.y - (confirm.y + confirm.height) : cancel.x - (confirm.x + confirm.width);
      expect(apart, `${group}: the buttons do not touch`).to.be.at.least(12);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    }
  });

  it('keeps the administrator\'s navigation on one line at 1440 px and the phone header small', async () => {
    const wide = await stack.signIn(ADMIN_ID, { width: 1440, height: 900 });
    await wide.page.goto('/workspace/campaigns');
    const links = wide.page.getByRole('navigation', { name: 'Workspace' }).getByRole('link');
    await links.filter({ hasText: 'Placements' }).waitFor();
    const tops = await links.evaluateAll((all) => all.map((link) => Math.round(link.getBoundingClientRect().top)));
    expect(new Set(tops).size, 'one line of links').to.equal(1);
    const header = await box(wide.page.locator('.site-header'));
    expect(header.height, 'one header line').to.be.at.most(90);
    await stack.screenshot(wide.page, 'picks-04-header-1440');
    const phone = await stack.signIn(ADMIN_ID, { width: 375, height: 740 });
    await phone.page.goto('/workspace/campaigns');
    await phone.page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Placements' }).waitFor();
    const small = await box(phone.page.locator('.site-header'));
    expect(small.height, 'the phone header is at most a sixth of the screen').to.be.at.most(740 / 6);
    await stack.screenshot(phone.page, 'picks-04-header-375');
  });

  it('orders the review queue by submission, not by a test key made since', async () => {
    const made: number[] = [];
    for (const name of ['first', 'second']) {
      const created = await ownerApi.post<Publisher>('/api/workspace/publishers', { type: 'channel', link: `https://t.me/picks_queue_${name}` });
      expect(created.status, created.text).to.equal(201);
      expect((await ownerApi.post(`/api/workspace/publishers/${created.body.id}/submit`)).status).to.equal(200);
      made.push(created.body.id);
    }
    // The first submitted gets a test key afterwards: its updatedAt is now the latest.
    expect((await ownerApi.post(`/api/workspace/publishers/${made[0]}/test-key`)).status).to.equal(201);
    const { page } = admin;
    await page.goto('/workspace/review');
    const items = page.getByTestId('review-platforms').locator('[data-queue-key]');
    await items.first().waitFor();
    const order = await items.evaluateAll((all) => all.map((item) => item.textContent ?? ''));
    const at = (id: number) => order.findIndex((item) => item.includes(`#${id} `));
    expect(at(made[0]!), 'the first submitted comes first').to.be.lessThan(at(made[1]!));
  });

  it('shows the ad\'s image in the review as the app would load it, says plainly when it does not load, and offers reasons to pick and edit', async () => {
    const draft = await draftCampaign(advertiserApi, { name: 'Picks image', title: 'Picks image title', imageUrl: 'https://images.invalid/picks.png' });
    expect((await advertiserApi.post(`/api/workspace/campaigns/${draft.id}/submit`)).status).to.equal(200);
    const { page } = admin;
    await page.goto('/workspace/review');
    const item = page.locator(`[data-queue-key="campaigns:${draft.id}"]`);
    await item.waitFor();
    const image = item.locator('img.creative-image');
    expect(await image.getAttribute('referrerpolicy')).to.equal('no-referrer');
    const broken = item.getByTestId('image-broken');
    await broken.waitFor();
    expect(await broken.getByRole('link', { name: 'https://images.invalid/picks.png' }).getAttribute('href')).to.equal('https://images.invalid/picks.png');
    expect(await item.getByTestId('preview-title').getAttribute('dir')).to.equal('auto');

    await item.getByRole('button', { name: `Reject… #${draft.id}, campaign` }).click();
    const reasons = item.getByRole('group', { name: 'Common reasons' });
    await reasons.getByRole('button', { name: /^The image does not load/ }).click();
    const field = item.getByLabel('Reason for the owner');
    const picked = await field.inputValue();
    expect(picked).to.match(/^The image does not load for everyone/);
    expect(await field.getAttribute('dir')).to.equal('auto');
    await field.fill(`${picked} The address answers nothing.`);
    await item.getByRole('button', { name: 'Reject', exact: true }).click();
    await waitFor(async () => (await advertiserApi.get<{ status: string; rejectionReason: string | null }>(`/api/workspace/campaigns/${draft.id}`)).body.rejectionReason === `${picked} The address answers nothing.`, { message: 'rejected with the edited reason' });
    await stack.screenshot(page, 'picks-06-review-image');
    // The browser reported the image it could not fetch; that failure was the point here.
    stack.problems.splice(0, stack.problems.length, ...stack.problems.filter((line) => !/Failed to load resource: net::ERR_NAME_NOT_RESOLVED/.test(line)));
  });

  it('warns of a placement that is active but ended, with counters as on the campaign form', async () => {
    const { page } = admin;
    await page.goto('/workspace/placements');
    const editor = page.locator('form[data-slot="home-feature"]');
    await editor.getByLabel('Title').fill('Ended already');
    expect(await text(editor.getByTestId('counter').first())).to.equal('13 / 100');
    await editor.getByLabel('Status').selectOption('active');
    await editor.getByLabel('Ends at (UTC, optional)').fill('2020-01-01T00:00');
    await editor.getByTestId('schedule-warning').waitFor();
    expect(await text(editor.getByTestId('schedule-warning'))).to.contain('already past');
  });

  it('duplicates a campaign into a new draft and opens it', async () => {
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${campaignId}`);
    await page.getByTestId('duplicate').click();
    await page.waitForURL((url) => /\/workspace\/campaigns\/\d+$/.test(url.pathname) && !url.pathname.endsWith(`/${campaignId}`));
    await page.getByRole('heading', { level: 1, name: /Picks Arabic \(copy\)/ }).waitFor();
    expect(await text(page.locator('h1 .badge'))).to.equal('Draft');
    expect(await page.getByTestId('duplicated-from').getByRole('link', { name: `campaign #${campaignId}` }).count()).to.equal(1);
    expect(await text(page.getByTestId('preview-title'))).to.equal(RTL_TITLE);
    await stack.screenshot(page, 'picks-05-duplicated');
    // Another account's campaign has no Duplicate button (the service answers it 404 anyway).
    await admin.page.goto(`/workspace/campaigns/${campaignId}`);
    await admin.page.getByRole('heading', { level: 1 }).waitFor();
    expect(await admin.page.getByTestId('duplicate').count()).to.equal(0);
  });

  it('submits and pauses several of an owner\'s campaigns at once, each outcome said; an administrator filters by owner in the address', async () => {
    const drafts = [await draftCampaign(advertiserApi, { name: 'Picks bulk one' }), await draftCampaign(advertiserApi, { name: 'Picks bulk two' })];
    const { page } = advertiser;
    await page.goto('/workspace/campaigns?q=Picks%20bulk');
    const list = page.getByTestId('campaign-list');
    await list.locator('tbody tr').nth(1).waitFor();
    for (const draft of drafts) await list.getByLabel(`Choose #${draft.id}`).check();
    const bar = page.getByTestId('bulk-bar');
    await bar.getByRole('button', { name: 'Submit for review (2)' }).click();
    const outcomes = bar.getByTestId('bulk-outcomes');
    await waitFor(async () => (await outcomes.locator('li').count()) === 2, { message: 'both outcomes shown' });
    expect((await outcomes.locator('li').allTextContents()).sort()).to.deep.equal(drafts.map((draft) => `#${draft.id}: submitted for review`).sort());
    for (const draft of drafts) expect((await advertiserApi.get<{ status: string }>(`/api/workspace/campaigns/${draft.id}`)).body.status).to.equal('submitted');

    await page.goto('/workspace/campaigns?status=active');
    await list.getByLabel(`Choose #${campaignId}`).check();
    await bar.getByRole('button', { name: 'Pause (1)' }).click();
    await bar.getByRole('group', { name: 'Confirm: Pause' }).getByRole('button', { name: 'Yes, pause' }).click();
    await waitFor(async () => (await text(bar.getByTestId('bulk-outcomes'))) === `#${campaignId}: paused`, { message: 'the pause said' });
    await stack.screenshot(page, 'picks-07-bulk');

    await admin.page.goto(`/workspace/campaigns?owner=${ADVERTISER_ID}`);
    expect(await admin.page.getByTestId('list-owner').inputValue()).to.equal(ADVERTISER_ID);
    await admin.page.getByTestId('campaign-list').locator('tbody tr').first().waitFor();
    const owners = await admin.page.getByTestId('campaign-list').getByTestId('row-owner').allTextContents();
    expect(owners.length).to.be.at.least(3);
    expect(owners.every((owner) => owner === ADVERTISER_ID), 'only that owner\'s campaigns').to.equal(true);
  });

  it('shows one empty-state message at a time', async () => {
    const newcomer = await stack.signIn(NEWCOMER_ID);
    await newcomer.page.goto('/workspace/publishers');
    await newcomer.page.getByTestId('list-empty').waitFor();
    expect(await newcomer.page.getByTestId('breakdown-empty').count(), 'no figures message over the empty list').to.equal(0);
    await advertiser.page.goto(`/workspace/campaigns/${draftId}`);
    await advertiser.page.getByTestId('no-figures').waitFor();
    expect(await advertiser.page.getByTestId('record-stats').count()).to.equal(0);
    expect(await advertiser.page.getByTestId('breakdown-empty').count()).to.equal(0);
  });
});
