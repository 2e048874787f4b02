/**
 * The ad-ops issue's bugs and polish, each in a real browser against the whole running system (gateway,
 * every service, the web service serving a fresh build) on real RabbitMQ, Redis and FerretDB, as an
 * advertiser, a platform owner and an administrator, at 1280 and 375 px where layout matters: state
 * buttons safe against a double click, a draft kept through an ended session, ranges longer than a year,
 * the dead click link pages, field words, counters and text-direction controls, empty lists, accessible
 * names, the one number and time format, the guide as a product page and the visual system (dark mode,
 * key buttons). Records a test only starts from are made through the API as the same people.
 * Screenshots go to test-artifacts/browser/polish-*.png.
 */
import fs from 'node:fs';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { formatDate } from '../../services/web/frontend/src/format';
import { botConfirms, openLink, signedIn, type Ad, type Browser as ApiBrowser, type PublisherServer } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, draftCampaign } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { atPhoneWidth, expectFitsPhone, isoDay, PHONE_VIEWPORT, scrollWidth, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '8101';
const OWNER_ID = '8102';
const NEWCOMER_ID = '8103';
/** "27 Nov 2026, 10:42 UTC" */
const DATE_TIME = /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$/;

async function text(locator: ReturnType<Page['locator']>): Promise<string> {
  return ((await locator.textContent()) ?? '').trim();
}

/** A computed style property of the element, read in the page. */
function styleOf(locator: ReturnType<Page['locator']>, property: 'color' | 'borderRadius'): Promise<string> {
  return locator.evaluate((element, name) => (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(element)[name] ?? '', property);
}

/** The POST requests the page sends to paths ending in `suffix`, from now on. */
function countPosts(page: Page, suffix: string): { count: () => number; stop: () => void } {
  let seen = 0;
  const listener = (request: { method(): string; url(): string }) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith(suffix)) seen += 1;
  };
  page.on('request', listener);
  return { count: () => seen, stop: () => page.off('request', listener) };
}

/** Buttons and links whose accessible name (aria-label) does not start with the words they show. */
async function namesNotStartingWithWords(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => Array.from(document.querySelectorAll('button[aria-label], a[aria-label], [role=button][aria-label]'))
    .filter((el) => el.getClientRects().length > 0)
    .map((el) => ({ name: el.getAttribute('aria-label').trim().toLowerCase(), words: (el.innerText || '').trim().replace(/\\s+/g, ' ').toLowerCase() }))
    .filter(({ name, words }) => words && !name.startsWith(words))
    .map(({ name, words }) => words + ' -> ' + name))()`);
}

describe('the ad-ops polish: bugs, readable numbers and time, the guide, one visual system, in a browser against the whole system', function () {
  this.timeout(180_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let ownerApi: ApiBrowser;
  let advertiser: Person;
  let admin: Person;
  let owner: Person;
  let publisherId = 0;
  let server: PublisherServer;

  before(async function () {
    this.timeout(300_000);
    // Several people sign in again after their session ends: more logins from one address than a minute allows by default.
    stack = await startBrowserSystem({ settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '100' } } });
    [advertiserApi, adminApi, ownerApi] = await Promise.all([signedIn(stack.system, ADVERTISER_ID), signedIn(stack.system, ADMIN_ID), signedIn(stack.system, OWNER_ID)]);
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisherId = approved.publisher.id;
    server = approved.server;
    advertiser = await stack.signIn(ADVERTISER_ID);
    admin = await stack.signIn(ADMIN_ID);
    owner = await stack.signIn(OWNER_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('1: a double click on a state button sends one request and shows no error; a refused move is said in words', async () => {
    const draft = await draftCampaign(advertiserApi, { name: 'Double click' });
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${draft.id}`);
    const submits = countPosts(page, `/campaigns/${draft.id}/submit`);
    await page.getByRole('button', { name: 'Submit for review' }).dblclick();
    await page.getByRole('button', { name: 'Submit for review' }).waitFor({ state: 'detached' });
    await page.waitForLoadState('networkidle');
    submits.stop();
    expect(submits.count(), 'one submit for a double click').to.equal(1);
    expect(await page.locator('.error[role=alert]').count(), 'no error').to.equal(0);

    expect((await adminApi.post(`/api/workspace/campaigns/${draft.id}/approve`)).status).to.equal(200);
    await atPhoneWidth(admin.page, async () => {
      const adminPage = admin.page;
      await adminPage.goto(`/workspace/campaigns/${draft.id}`);
      const activations = countPosts(adminPage, `/campaigns/${draft.id}/activate`);
      await adminPage.getByRole('button', { name: 'Activate' }).dblclick();
      await adminPage.getByRole('button', { name: 'Pause…' }).waitFor();
      await adminPage.waitForLoadState('networkidle');
      activations.stop();
      expect(activations.count(), 'one activation for a double click').to.equal(1);
      expect(await adminPage.locator('.error[role=alert]').count(), 'no error').to.equal(0);
      await stack.screenshot(adminPage, 'polish-01-activated-after-double-click-375');
    });

    // The service's own words when a move is refused: for people, with the right article, no internal terms.
    const again = await adminApi.post<{ detail: string; code: string }>(`/api/workspace/campaigns/${draft.id}/activate`);
    expect(again.status).to.equal(409);
    expect(again.body).to.include({ code: 'invalid_transition', detail: 'This campaign is already active.' });
    const approveActive = await adminApi.post<{ detail: string }>(`/api/workspace/campaigns/${draft.id}/approve`);
    expect(approveActive.body.detail).to.equal('This campaign is active, so it cannot be approved now.');
    const platformAgain = await adminApi.post<{ detail: string }>(`/api/workspace/publishers/${publisherId}/approve`);
    expect(platformAgain.status).to.equal(409);
    expect(platformAgain.body.detail).to.equal('This platform is already approved.');
  });

  it('2: keeps what was typed when the session ends while saving, and puts it back after sign-in', async () => {
    const person = await stack.signIn(ADVERTISER_ID, PHONE_VIEWPORT);
    const { page, context } = person;
    await page.goto('/workspace/campaigns/new');
    await page.getByLabel('Internal name').fill('Typed before the session ended');
    await page.getByLabel('Title').fill('Autumn lessons');
    await page.getByLabel('Message').fill('Three lessons a week.\nFirst week free.');
    await page.getByLabel('Button label').fill('Start');
    await page.getByLabel('Destination (https)').fill('https://advertiser.example/autumn');
    // The session ends (its cookie is gone) while the form is filled.
    await context.clearCookies();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL('**/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    const code = (await text(page.getByTestId('signin-code'))).trim();
    expect((await botConfirms(stack.system, code, ADVERTISER_ID)).status).to.equal(200);
    await page.waitForURL('**/workspace/campaigns/new', { timeout: 20_000 });
    await page.getByTestId('draft-restored').waitFor();
    expect(await page.getByLabel('Internal name').inputValue()).to.equal('Typed before the session ended');
    expect(await page.getByLabel('Message').inputValue()).to.equal('Three lessons a week.\nFirst week free.');
    expect(await page.getByLabel('Destination (https)').inputValue()).to.equal('https://advertiser.example/autumn');
    await stack.screenshot(page, 'polish-02-draft-restored-375');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    await page.getByRole('heading', { name: /Typed before the session ended/ }).waitFor();

    // A reason typed on the way out is kept too, and the form opens with it.
    const active = await activeCampaign(advertiserApi, adminApi, { name: 'Reason kept' });
    await page.goto(`/workspace/campaigns/${active.id}`);
    await page.getByRole('button', { name: 'Pause…' }).click();
    await page.getByLabel(/Reason/).fill('Budget review until Monday');
    await context.clearCookies();
    // The save meets the 401, unless a request the page made meanwhile met it first and led to sign-in.
    await page
      .getByRole('button', { name: 'Pause the campaign' })
      .click({ timeout: 10_000 })
      .catch((error: unknown) => {
        if (!page.url().endsWith('/signin')) throw error;
      });
    await page.waitForURL('**/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    expect((await botConfirms(stack.system, await text(page.getByTestId('signin-code')), ADVERTISER_ID)).status).to.equal(200);
    await page.waitForURL(`**/workspace/campaigns/${active.id}`, { timeout: 20_000 });
    await page.getByTestId('draft-restored').waitFor();
    expect(await page.getByLabel(/Reason/).inputValue()).to.equal('Budget review until Monday');
    await person.context.close();

    // The platform form too.
    const platformOwner = await stack.signIn(OWNER_ID, PHONE_VIEWPORT);
    await platformOwner.page.goto('/workspace/publishers');
    await platformOwner.page.getByLabel('Type').selectOption('channel');
    await platformOwner.page.getByLabel('Public link').fill('t.me/kept_through_sign_in');
    await platformOwner.context.clearCookies();
    await platformOwner.page.getByRole('button', { name: 'Register as draft' }).click();
    await platformOwner.page.waitForURL('**/signin');
    await platformOwner.page.getByRole('button', { name: 'Get a sign-in code' }).click();
    expect((await botConfirms(stack.system, await text(platformOwner.page.getByTestId('signin-code')), OWNER_ID)).status).to.equal(200);
    await platformOwner.page.waitForURL('**/workspace/publishers', { timeout: 20_000 });
    await platformOwner.page.getByTestId('draft-restored').waitFor();
    expect(await platformOwner.page.getByLabel('Public link').inputValue()).to.equal('t.me/kept_through_sign_in');
    expect(await platformOwner.page.getByLabel('Type').inputValue()).to.equal('channel');
    await stack.screenshot(platformOwner.page, 'polish-02-platform-draft-restored-375');

    // Signing out on purpose leaves nothing typed behind for the next person.
    await platformOwner.page.getByLabel('Public link').fill('t.me/left_on_a_shared_computer');
    await platformOwner.page.getByRole('button', { name: 'Sign out' }).click();
    await platformOwner.page.waitForURL('**/signin');
    await platformOwner.page.getByRole('button', { name: 'Get a sign-in code' }).click();
    expect((await botConfirms(stack.system, await text(platformOwner.page.getByTestId('signin-code')), OWNER_ID)).status).to.equal(200);
    await platformOwner.page.waitForURL('**/workspace', { timeout: 20_000 });
    await platformOwner.page.goto('/workspace/publishers');
    await platformOwner.page.getByLabel('Public link').waitFor();
    expect(await platformOwner.page.getByLabel('Public link').inputValue()).to.equal('');
    expect(await platformOwner.page.getByTestId('draft-restored').count()).to.equal(0);
    await platformOwner.context.close();
  });

  it('3: a range longer than a year is charted by month, and the CSV holds every day of it', async () => {
    const { page } = advertiser;
    const from = isoDay(-800);
    await page.goto(`/workspace?from=${from}&to=${isoDay(0)}`);
    await page.getByTestId('chart-by-month').waitFor();
    expect(await text(page.getByTestId('chart-by-month'))).to.contain('longer than a year');
    // The x-axis ticks are the dates among the chart's tick labels (the y-axis ones are counts).
    const ticks = async () => (await page.locator('.chart .recharts-cartesian-axis-tick-value').allTextContents()).filter((tick) => /[A-Za-z]/.test(tick));
    await waitFor(async () => (await ticks()).length > 0, { message: 'the month ticks' });
    // en-GB's short months are three letters but for September, "Sept".
    for (const tick of await ticks()) expect(tick, 'a month tick').to.match(/^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec) \d{4}$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-export').click()]);
    const lines = fs.readFileSync(await download.path(), 'utf8').split('\r\n').filter(Boolean);
    expect(lines, 'the header and all 801 days').to.have.length(802);
    expect(lines[1]?.startsWith(`${from},`)).to.equal(true);
    expect(lines[801]?.startsWith(`${isoDay(0)},`)).to.equal(true);
    await stack.screenshot(page, 'polish-03-two-years-by-month');
  });

  it('5: a dead click link shows a styled page with the true reason, readable at 375 px and in dark mode', async () => {
    const campaign = await activeCampaign(advertiserApi, adminApi, { name: 'Dead link', language: 'fi' });
    const ad = await waitFor(
      async () => {
        const answer = await server.ad('fi');
        const body = answer.body as unknown as Ad;
        return answer.status === 200 && body.campaign_id === campaign.id ? body : null;
      },
      { message: 'the campaign is served', timeoutMs: 30_000 },
    );
    expect((await advertiserApi.post(`/api/workspace/campaigns/${campaign.id}/pause`, {})).status).to.be.oneOf([200, 202]);
    await waitFor(async () => (await openLink(ad.click_url, 'HEAD')).status === 410, { message: 'the link of the paused campaign is gone', timeoutMs: 30_000 });
    const visitor = await stack.open(PHONE_VIEWPORT);
    const { page } = visitor;
    const answer = await page.goto(ad.click_url);
    expect(answer?.status()).to.equal(410);
    expect(await text(page.getByRole('heading', { level: 1 }))).to.equal('This offer has ended');
    expect(await text(page.locator('main')), 'a paused campaign is not an hour-old link').to.not.contain('hour');
    expect(await styleOf(page.locator('main'), 'borderRadius')).to.equal('12px');
    expect(await scrollWidth(page)).to.be.at.most(PHONE_VIEWPORT.width);
    await stack.screenshot(page, 'polish-05-offer-ended-375');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).to.equal('rgb(18, 21, 28)');
    await stack.screenshot(page, 'polish-05-offer-ended-dark-375');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect((await page.goto('/api/network/click/not-a-token'))?.status()).to.equal(404);
    expect(await text(page.getByRole('heading', { level: 1 }))).to.equal('This link is not valid');
    await stack.screenshot(page, 'polish-05-not-valid');
    await visitor.context.close();
  });

  it('6: says the end of a placement in words, without internal field names', async () => {
    const { page } = admin;
    await page.goto('/workspace/placements');
    const editor = page.locator('form[data-slot="workspace-top"]');
    await editor.getByLabel('Title').fill('Autumn note');
    await editor.getByLabel('Button label').fill('Read');
    await editor.getByLabel('Destination (https)').fill('https://pilot.example/autumn');
    await editor.getByLabel('Starts at (UTC, optional)').fill(`${isoDay(2)}T00:00`);
    await editor.getByLabel('Ends at (UTC, optional)').fill(`${isoDay(1)}T00:00`);
    await editor.getByRole('button', { name: 'Save workspace-top' }).click();
    const ends = editor.locator('.field', { has: page.getByLabel('Ends at (UTC, optional)') });
    await ends.getByRole('alert').waitFor();
    expect(await text(ends.getByRole('alert'))).to.equal('Must be after the start.');
    expect((await editor.textContent()) ?? '').to.not.match(/startsAt|endsAt/);
    await stack.screenshot(page, 'polish-06-placement-end-before-start');
  });

  it('7: counts a title as the server does, turns an over-limit counter red in words, and refuses text-direction controls', async () => {
    const { page } = advertiser;
    await atPhoneWidth(page, async () => {
      await page.goto('/workspace/campaigns/new');
      const marked = `a${'\u0301'.repeat(11)}`.repeat(80);
      await page.getByLabel('Title').fill(marked);
      const title = page.locator('.field', { has: page.getByLabel('Title') });
      const counter = title.getByTestId('counter');
      expect(await text(counter)).to.equal('80 / 100, but too long once encoded');
      expect(await counter.getAttribute('class')).to.contain('counter-over');
      expect(await styleOf(counter, 'color')).to.equal('rgb(179, 38, 30)');
      expect(await text(title.locator('.hint'))).to.match(/^Too long once encoded/);
      await page.getByLabel('Button label').fill('Buy \u202enow');
      const button = page.locator('.field', { has: page.getByLabel('Button label') });
      expect(await text(button.locator('.hint'))).to.contain('text-direction');
      expect(await page.getByLabel('Button label').getAttribute('aria-invalid')).to.equal('true');
      await stack.screenshot(page, 'polish-07-counters-375');
    });
    const refused = await advertiserApi.post<{ errors: Array<{ field: string; code: string }> }>('/api/workspace/campaigns', {
      name: 'Bidi',
      format: 'bot',
      title: 'Sale \u2067today\u2069',
      text: 'Plain',
      destinationUrl: 'https://advertiser.example/bidi',
      buttonText: 'Buy \u202enow',
      language: 'en',
    });
    expect(refused.status).to.equal(422);
    expect(refused.body.errors.map((error) => `${error.field}:${error.code}`)).to.have.members(['title:bidi_control_characters', 'buttonText:bidi_control_characters']);
  });

  it('8: an empty list says one thing', async () => {
    const newcomer = await stack.signIn(NEWCOMER_ID, PHONE_VIEWPORT);
    const { page } = newcomer;
    await page.goto('/workspace/campaigns');
    await page.getByText('No campaigns here yet.').waitFor();
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).to.not.match(/match/i);
    expect(await page.getByTestId('status-counts').count()).to.equal(0);
    await stack.screenshot(page, 'polish-08-empty-list-375');
    await newcomer.context.close();
  });

  it('9: every accessible name starts with the words the control shows', async () => {
    const submitted = await draftCampaign(advertiserApi, { name: 'Names' });
    expect((await advertiserApi.post(`/api/workspace/campaigns/${submitted.id}/submit`)).status).to.equal(200);
    const approved = await draftCampaign(advertiserApi, { name: 'Names approved' });
    expect((await advertiserApi.post(`/api/workspace/campaigns/${approved.id}/submit`)).status).to.equal(200);
    expect((await adminApi.post(`/api/workspace/campaigns/${approved.id}/approve`)).status).to.equal(200);
    const { page } = admin;
    await page.goto('/workspace/review');
    await page.getByRole('button', { name: `Approve #${submitted.id}, campaign`, exact: true }).waitFor();
    await page.getByRole('button', { name: `Activate #${approved.id}, campaign`, exact: true }).waitFor();
    expect(await namesNotStartingWithWords(page)).to.deep.equal([]);
    for (const path of [`/workspace/campaigns/${submitted.id}`, `/workspace/publishers/${publisherId}`, '/workspace', '/workspace/audit']) {
      await page.goto(path);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(await namesNotStartingWithWords(page), path).to.deep.equal([]);
    }
    await stack.screenshot(page, 'polish-09-review-names');
  });

  it('readable numbers and time: every time in UTC, labelled; days written out; the disclaimer once and the figures on a phone\'s first screen', async () => {
    const campaign = await activeCampaign(advertiserApi, adminApi, { name: 'Readable' });
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${campaign.id}`);
    const created = page.locator('.facts dt', { hasText: 'Created' }).locator('xpath=following-sibling::dd[1]');
    expect(await text(created)).to.match(DATE_TIME);
    const history = page.getByTestId('status-history').locator('time').first();
    await history.waitFor();
    expect(await text(history)).to.match(DATE_TIME);
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await page.getByText('Per day (7 days)').click();
    expect(await page.getByTestId('day-table').locator('tbody th').first().textContent()).to.equal(formatDate(isoDay(-6)));

    await admin.page.goto('/workspace/audit');
    const when = admin.page.locator('td[data-label="When (UTC)"]').first();
    await when.waitFor();
    expect(await text(when)).to.match(DATE_TIME);

    await atPhoneWidth(page, async () => {
      await page.goto('/workspace');
      await page.getByTestId('totals').waitFor();
      expect(await page.getByTestId('totals-disclaimer').count(), 'one disclaimer').to.equal(1);
      expect(await page.locator('.notice', { hasText: 'not billable' }).count()).to.equal(1);
      const figure = await page.getByTestId('total-adRequests').boundingBox();
      expect(figure, 'the first figure is laid out').to.not.equal(null);
      expect((figure?.y ?? 0) + (figure?.height ?? 0), 'the first figures are on the first screen at 375 px').to.be.at.most(PHONE_VIEWPORT.height);
      await stack.screenshot(page, 'polish-10-dashboard-first-screen-375');
    });
  });

  it('the guide as a product page: the site\'s origin, links instead of repository paths, contents, copy buttons; at 375 px too', async () => {
    const reader = await stack.open();
    const { page, context } = reader;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.system.baseUrl });
    await page.goto('/guide');
    const guide = page.getByTestId('publishers-guide');
    await guide.waitFor();
    const words = (await guide.textContent()) ?? '';
    const origin = new URL(stack.system.baseUrl).origin;
    // The Go module's path is pilot.example/networkclient (its go.mod), not an origin: the guide names it as it is.
    expect(words.replaceAll('pilot.example/networkclient', '')).to.not.contain('pilot.example/');
    expect(words).to.not.contain('{base_url}');
    expect(words).to.contain(`export PILOT=${origin}`);
    const contents = guide.locator('nav.toc a');
    expect(await contents.count()).to.be.at.least(6);
    await contents.filter({ hasText: 'Limits' }).click();
    await page.waitForURL('**/guide#limits');
    const snippet = guide.locator('a[href="/downloads/snippets/serve_ad.py"]').first();
    expect(await snippet.count()).to.equal(1);
    const served = await openLink(`${stack.system.baseUrl}/downloads/snippets/serve_ad.py`);
    expect(served.status).to.equal(200);
    expect(served.text).to.contain('Serve one sponsored message from a Python bot');
    expect(await guide.locator('a[href^="../"], a[href^="snippets/"]').count(), 'no repository path as a link').to.equal(0);
    const blocks = guide.locator('pre');
    const copies = guide.getByRole('button', { name: 'Copy code' });
    expect(await copies.count()).to.equal(await blocks.count());
    await copies.first().click();
    await guide.getByRole('button', { name: 'Copied', exact: true }).first().waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).to.equal(await blocks.first().textContent());
    await stack.screenshot(page, 'polish-11-guide');
    await expectFitsPhone(stack, page, 'polish-11-guide-375');
    await context.close();
  });

  it('one visual system: dark mode from the device, a copy button for the test key, destructive actions outlined and confirmed, the fill without repeated figures', async () => {
    const { page } = owner;
    await page.goto(`/workspace/publishers/${publisherId}`);
    await page.getByRole('button', { name: 'Create test key' }).click();
    await page.getByRole('button', { name: 'Copy test key' }).waitFor();
    await page.getByRole('button', { name: 'I have stored the test key; hide it' }).click();
    const replace = page.getByRole('button', { name: 'Replace test key…' });
    expect(await replace.getAttribute('class')).to.contain('button-danger-outline');
    await replace.click();
    await page.getByRole('group', { name: 'Confirm test key replacement' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('button', { name: 'Rotate key…' }).getAttribute('class')).to.contain('button-danger-outline');
    const fill = page.getByTestId('platform-fill');
    await fill.waitFor();
    expect((await fill.textContent()) ?? '').to.not.match(/Confirmed deliveries|Clicked/);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')).to.equal('rgb(18, 21, 28)');
    expect(await styleOf(page.locator('.card, .key-panel, .totals div').first(), 'color')).to.equal('rgb(232, 235, 242)');
    await stack.screenshot(page, 'polish-12-platform-dark');
    await expectFitsPhone(stack, page, 'polish-12-platform-dark-375');
    await page.emulateMedia({ colorScheme: 'light' });
    await stack.screenshot(page, 'polish-12-platform-light');
  });
});
