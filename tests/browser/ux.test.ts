/**
 * The workspace's UX, in a real browser against the whole running system (gateway, every service,
 * the web service serving a fresh build) on real RabbitMQ, Redis and FerretDB. Starting points (records,
 * placements) are made through the API as the same people; what the issue is about is done on the pages,
 * at 375 px where phones matter and with the keyboard where a step is a decision. Screenshots go to
 * test-artifacts/browser/ux-*.png.
 */
import { buttonUpdate, questionButton, startUpdate, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { botConfirms, botUpdate, signedIn, type Browser as ApiBrowser } from '../e2e/support/clients';
import { draftCampaign } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { scrollWidth, startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '6201';
const OWNER_ID = '6202';
const RIVAL_ID = '6203';
const PHONE = { width: 375, height: 740 };

interface Campaign {
  id: number;
  status: string;
  replaces: number | null;
  updatedAt: string;
}

/** Every audit entry the account can read, page after page (the call is paged by the service). */
async function auditCount(api: ApiBrowser): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const path: string = `/api/workspace/audit?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api.get<{ items: unknown[]; nextCursor: string | null }>(path);
    expect(answer.status, answer.text).to.equal(200);
    count += answer.body.items.length;
    cursor = answer.body.nextCursor;
  } while (cursor);
  return count;
}

async function focusedText(page: Page): Promise<string> {
  return page.evaluate<string>("(document.activeElement?.textContent ?? '').trim()");
}

describe('the workspace\'s UX, in a browser against the whole system', function () {
  this.timeout(180_000);
  let stack: BrowserSystem;
  let advertiserApi: ApiBrowser;
  let adminApi: ApiBrowser;
  let ownerApi: ApiBrowser;
  let rivalApi: ApiBrowser;
  let admin: Person;
  let advertiser: Person;

  async function campaign(name: string, extra: Record<string, unknown> = {}): Promise<number> {
    return (await draftCampaign(advertiserApi, { name, ...extra })).id;
  }

  async function submitted(name: string): Promise<number> {
    const id = await campaign(name);
    const answer = await advertiserApi.post(`/api/workspace/campaigns/${id}/submit`);
    expect(answer.status, answer.text).to.equal(200);
    return id;
  }

  before(async function () {
    this.timeout(300_000);
    // Many people sign in from this one test address within a minute: more than the default 10 sign-in requests.
    stack = await startBrowserSystem({ settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '100' } } });
    [advertiserApi, adminApi, ownerApi, rivalApi] = await Promise.all([
      signedIn(stack.system, ADVERTISER_ID),
      signedIn(stack.system, ADMIN_ID),
      signedIn(stack.system, OWNER_ID),
      signedIn(stack.system, RIVAL_ID),
    ]);
    // A workspace-top placement, so every workspace page is seen with its slot filled.
    const slot = await adminApi.put('/api/workspace/placements/workspace-top', {
      title: 'Pilot office hours every Thursday: ask the team anything about reviews, keys and totals',
      buttonText: 'Join the call',
      destinationUrl: 'https://pilot.example/office-hours',
      status: 'active',
    });
    expect(slot.status, slot.text).to.equal(200);
    admin = await stack.signIn(ADMIN_ID);
    advertiser = await stack.signIn(ADVERTISER_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('says one word for a status in filters, badges and the audit; audit actions in words, rows link to records, pages of 25 read from the service', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 14; i += 1) ids.push(await submitted(`Vocabulary ${i}`));
    const { page } = advertiser;
    await page.goto('/workspace/campaigns');
    await page.getByTestId('campaign-list').waitFor();
    const options = (await page.getByLabel('Status').first().locator('option').allTextContents()).map((text) => text.replace(/ \(\d+\)$/, ''));
    expect(options).to.deep.equal(['All', 'Draft', 'In review', 'Approved', 'Active', 'Paused', 'Rejected']);
    await page.getByLabel('Status').first().selectOption('submitted');
    await page.waitForURL(/\/workspace\/campaigns\?(.*&)?status=submitted/);
    const badges = await page.getByTestId('campaign-list').locator('.badge').allTextContents();
    expect(badges.length).to.be.at.least(14);
    expect(new Set(badges)).to.deep.equal(new Set(['In review']));

    // 14 campaigns created and submitted: at least 28 entries of this account, shown 25 at a time.
    const entries = await auditCount(advertiserApi);
    expect(entries).to.be.at.least(28);
    await page.goto('/workspace/audit');
    const table = page.getByTestId('audit-table');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).to.equal(25);
    const more = page.getByRole('navigation', { name: 'More entries' });
    await more.getByText('25 entries shown').waitFor();
    const actions = await table.locator('tbody td[data-label="Action"]').allTextContents();
    expect(actions).to.include.members(['Submitted for review', 'Created']);
    expect(actions.filter((action) => /_/.test(action)), 'no action left in code words').to.deep.equal([]);
    const changes = await table.locator('tbody td[data-label="Status"]').allTextContents();
    expect(changes).to.include.members(['Draft → In review']);
    expect(changes.filter((change) => /submitted|draft/.test(change)), 'statuses in the words of the badges').to.deep.equal([]);
    await more.getByRole('button', { name: 'Older entries' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === Math.min(50, entries), { message: 'the older entries added below' });
    expect(await table.locator('tbody td[data-label="Status"]').allTextContents()).to.include('— → Draft');
    const oldest = ids[0] as number;
    await table.getByRole('link', { name: `Campaign #${oldest}`, exact: true }).first().click();
    await page.waitForURL(`**/workspace/campaigns/${oldest}`);
    await page.locator('h1 .badge', { hasText: 'In review' }).waitFor();
    await stack.screenshot(page, 'ux-01-vocabulary');
  });

  it('gives the administrator a review queue: oldest first, counted in the navigation, approve and reject inline, then activation (375 px, keyboard)', async () => {
    await submitted('Queue first');
    await submitted('Queue second');
    const { page } = await stack.signIn(ADMIN_ID, PHONE);
    const platform = await ownerApi.post<{ id: number }>('/api/workspace/publishers', { type: 'bot', link: '@ux_queue_bot' });
    expect(platform.status, platform.text).to.equal(201);
    expect((await ownerApi.post(`/api/workspace/publishers/${platform.body.id}/submit`)).status).to.equal(200);
    const [all, platforms] = await Promise.all([
      adminApi.get<{ items: Campaign[] }>('/api/workspace/campaigns?status=submitted&limit=100'),
      adminApi.get<{ items: Campaign[] }>('/api/workspace/publishers?status=submitted&limit=100'),
    ]);
    const waitingCampaigns = all.body.items;
    const waitingPlatforms = platforms.body.items;
    const total = waitingCampaigns.length + waitingPlatforms.length;
    expect(total).to.be.greaterThan(2);

    await page.goto('/workspace/review');
    const nav = page.getByTestId('nav-review');
    const count = (n: number) => nav.filter({ hasText: `Review (${n})` }).waitFor();
    const news = (text: string) => page.getByTestId('review-news').filter({ hasText: text }).waitFor();
    await count(total);
    const list = page.getByTestId('review-campaigns');
    await list.locator('li').first().waitFor();
    const shownOrder = (await list.locator('li > a').allTextContents()).map((text) => Number(/^#(\d+)/.exec(text)?.[1]));
    const oldestFirst = [...waitingCampaigns].sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id - b.id).map((item) => item.id);
    expect(shownOrder).to.deep.equal(oldestFirst);
    await page.getByTestId('review-platforms').getByRole('link', { name: `#${platform.body.id} https://t.me/ux_queue_bot` }).waitFor();
    expect(await scrollWidth(page), 'no sideways scrolling at 375 px').to.be.at.most(375);
    await stack.screenshot(page, 'ux-02-review-queue-375');

    // Approve the oldest with the keyboard; focus lands on the line that says what happened.
    const [first, second] = oldestFirst as [number, number];
    await list.getByRole('button', { name: `Approve #${first}, campaign`, exact: true }).focus();
    await page.keyboard.press('Enter');
    await news(`Campaign #${first} approved.`);
    expect(await focusedText(page)).to.equal(`Campaign #${first} approved.`);
    await count(total - 1);
    await page.getByTestId('review-waiting').getByRole('link', { name: new RegExp(`^#${first} `) }).waitFor();

    // Reject the next one inline, with a reason typed into the field that opened.
    const secondRow = list.locator('li', { has: page.getByRole('link', { name: new RegExp(`^#${second} `) }) });
    await secondRow.getByRole('button', { name: `Reject… #${second}, campaign` }).click();
    await page.keyboard.type('The destination page does not mention the offer.');
    await secondRow.getByRole('button', { name: 'Reject', exact: true }).click();
    await news(`Campaign #${second} rejected.`);
    await count(total - 2);
    expect((await adminApi.get<Campaign>(`/api/workspace/campaigns/${second}`)).body.status).to.equal('rejected');

    // The approved one waits for activation until it is activated here.
    await page.getByTestId('review-waiting').getByRole('button', { name: `Activate #${first}, campaign`, exact: true }).click();
    await news(`Campaign #${first} activated.`);
    expect((await adminApi.get<Campaign>(`/api/workspace/campaigns/${first}`)).body.status).to.equal('active');
    await stack.screenshot(page, 'ux-02-review-queue-after-375');
  });

  it('puts the name and Sign out at the header end, and keeps the workspace-top placement compact on phones', async () => {
    const { page } = admin;
    await page.goto('/workspace/campaigns');
    await page.locator('[data-slot="workspace-top"]').waitFor();
    const nav = await page.getByRole('navigation', { name: 'Workspace' }).boundingBox();
    const account = await page.getByTestId('account').boundingBox();
    expect(nav && account, 'header parts drawn').to.not.equal(null);
    expect(account!.x, 'the account comes after the navigation').to.be.greaterThan(nav!.x + nav!.width - 1);
    expect(account!.x + account!.width, 'at the right edge of the page').to.be.greaterThan(1280 - (1280 - 1080) / 2 - 40);
    await stack.screenshot(page, 'ux-03-header-1280');

    const phone = await stack.signIn(ADVERTISER_ID, PHONE);
    for (const path of ['/workspace', '/workspace/campaigns', '/workspace/audit']) {
      await phone.page.goto(path);
      const slot = phone.page.locator('[data-slot="workspace-top"]');
      await slot.waitFor();
      const box = await slot.boundingBox();
      expect(box!.height, `the placement on ${path} is at most an eighth of the first screen`).to.be.at.most(PHONE.height / 8);
      expect(await slot.getByRole('link', { name: 'Join the call' }).isVisible()).to.equal(true);
      expect(await scrollWidth(phone.page)).to.be.at.most(375);
    }
    await stack.screenshot(phone.page, 'ux-03-compact-placement-375');
  });

  it('shows each placement slot with where it appears, a preview that follows the form, the schedule, and a "Saved." that goes away', async () => {
    const { page } = admin;
    // The page's own clock, running as the real one until the test moves it on to when "Saved." goes.
    await page.clock.install();
    await page.goto('/workspace/placements');
    const editor = page.locator('form[data-slot="tr-footer"]');
    await editor.getByTestId('slot-where').getByText('Turkish page (/tr), footer.').waitFor();
    await editor.getByLabel('Title').fill('Yeni ortaklar arıyoruz');
    await editor.getByLabel('Button label').fill('Katıl');
    await editor.getByLabel('Destination (https)').fill('https://ortak.example/yeni');
    const preview = editor.getByRole('complementary', { name: 'Preview: Sponsorlu' });
    await preview.getByText('Yeni ortaklar arıyoruz').waitFor();
    expect(await preview.getByRole('link', { name: 'Katıl' }).getAttribute('href')).to.equal('https://ortak.example/yeni');
    await editor.getByLabel('Status').selectOption('active');
    await editor.getByLabel('Ends at (UTC, optional)').fill('2099-01-01T00:00');
    await editor.getByRole('button', { name: 'Save tr-footer' }).click();
    const saved = editor.getByTestId('saved');
    await saved.waitFor();
    await editor.locator('h2 .badge', { hasText: 'Live' }).waitFor();
    await editor.getByText('until 1 Jan 2099, 00:00 UTC').waitFor();
    await stack.screenshot(page, 'ux-04-placement-editor');
    await page.clock.fastForward(15_000);
    await saved.waitFor({ state: 'detached', timeout: 5_000 });
  });

  it('keeps the /tr journey Turkish: its navigation and the sign-in page it leads to, through to the workspace (375 px)', async () => {
    const footer = await adminApi.put('/api/workspace/placements/tr-footer', {
      title: 'Yeni ortaklar arıyoruz',
      buttonText: 'Katıl',
      destinationUrl: 'https://ortak.example/yeni',
      status: 'active',
      endsAt: '2099-01-01T00:00:00.000Z',
    });
    expect(footer.status, footer.text).to.equal(200);
    const { page } = await stack.open(PHONE);
    await page.goto('/tr');
    const nav = page.getByRole('navigation', { name: 'Site' });
    expect(await nav.getByRole('link').allTextContents()).to.deep.equal(['Ana sayfa', 'Yayıncı rehberi (İngilizce)', 'English', 'Giriş yap']);
    await page.locator('[data-slot="tr-footer"]').getByText('Yeni ortaklar arıyoruz').waitFor();
    await nav.getByRole('link', { name: 'Giriş yap' }).click();
    await page.waitForURL('**/signin?lang=tr');
    await page.getByRole('heading', { level: 1, name: 'Çalışma alanına giriş' }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).to.equal('tr');
    expect(await page.title()).to.equal('Giriş yap · Publisher pilot');
    await page.getByRole('button', { name: 'Giriş bağlantısı al' }).click();
    const bot = page.getByRole('link', { name: 'Botu açın ve Başlat’a basın' });
    await bot.waitFor();
    const code = ((await page.getByTestId('signin-code').textContent()) ?? '').trim();
    expect(await bot.getAttribute('href')).to.match(new RegExp(`\\?start=${code}$`));
    await page.getByText('Girişi siz istemediyseniz İptal’e basın').waitFor();
    expect(await scrollWidth(page)).to.be.at.most(375);
    await stack.screenshot(page, 'ux-05-signin-tr-375');
    expect((await botConfirms(stack.system, code, OWNER_ID)).status).to.equal(200);
    await page.waitForURL('**/workspace', { timeout: 20_000 });
  });

  it('asks to press Start, then Confirm, in the bot at sign-in, the code travelling in the link; a Cancel in the bot ends it', async () => {
    const { page } = await stack.open();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    const bot = page.getByRole('link', { name: 'Open the bot and press Start' });
    await bot.waitFor();
    const code = ((await page.getByTestId('signin-code').textContent()) ?? '').trim();
    expect(await bot.getAttribute('href')).to.match(new RegExp(`^https://t\\.me/[A-Za-z0-9_]+\\?start=${code}$`));
    await page.getByText('If you did not ask for a sign-in yourself, press Cancel.').waitFor();
    await page.getByTestId('signin-status').filter({ hasText: 'Waiting for you to press Start, then Confirm, in the bot' }).waitFor();
    await stack.screenshot(page, 'ux-06-signin-press-start');
    const question = await botUpdate(stack.system, startUpdate(code, ADVERTISER_ID));
    expect(question.status, question.text).to.equal(200);
    expect((await botUpdate(stack.system, buttonUpdate(questionButton(question.body, 1)!, ADVERTISER_ID))).status).to.equal(200);
    await page.getByTestId('signin-ended').filter({ hasText: 'This sign-in was cancelled in the bot.' }).waitFor();
    await page.getByRole('button', { name: 'Get a new code' }).waitFor();
  });

  it('shows a campaign with its image address and a warning when the image does not load, its created date; a rejected one offers a replacement, and the original says it is replaced', async () => {
    const id = await campaign('Broken image', { imageUrl: 'https://images.invalid/banner.png' });
    expect((await advertiserApi.post(`/api/workspace/campaigns/${id}/submit`)).status).to.equal(200);
    expect((await adminApi.post(`/api/workspace/campaigns/${id}/reject`, { reason: 'The image does not load.' })).status).to.equal(200);
    const { page } = advertiser;
    await page.goto(`/workspace/campaigns/${id}`);
    expect(await page.getByTestId('image-url').textContent()).to.equal('https://images.invalid/banner.png');
    await page.getByTestId('image-broken').waitFor();
    await page.locator('.facts dt', { hasText: 'Created' }).waitFor();
    expect(await page.getByRole('button', { name: 'Submit for review' }).count(), 'no resubmission of the same content').to.equal(0);
    await page.getByText('submitting the same content again would meet the same review').waitFor();
    await stack.screenshot(page, 'ux-07-rejected-offers-replacement');

    await page.getByRole('button', { name: 'Create a replacement draft' }).click();
    await page.waitForURL(`**/workspace/campaigns/new?replaces=${id}`);
    const image = page.getByLabel('Image address (optional, https)');
    await image.waitFor();
    await page.waitForFunction(`document.querySelector('input[name="imageUrl"]').value !== ''`);
    await image.fill('');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    const replacement = Number(/(\d+)$/.exec(page.url())?.[1]);
    expect(replacement).to.be.greaterThan(id);
    await page.goto(`/workspace/campaigns/${id}`);
    const replaced = page.getByTestId('replaced-by');
    await replaced.getByRole('link', { name: `#${replacement}` }).waitFor();
    expect(await replaced.textContent()).to.contain('(Draft)').and.to.contain('does not change this campaign');
    await stack.screenshot(page, 'ux-07-replaced-by');
    // The browser reported the image that could not be fetched; that failure was the point here.
    const failed = stack.problems.filter((line) => /Failed to load resource/.test(line));
    stack.problems.splice(0, stack.problems.length, ...stack.problems.filter((line) => !failed.includes(line)));
  });

  it('registers t.me/x and http://t.me/x links as https://t.me/x, and tells an administrator when two accounts claim one link', async () => {
    const owner = await stack.signIn(OWNER_ID, PHONE);
    const { page } = owner;
    await page.goto('/workspace/publishers');
    const link = page.getByLabel('Public link');
    await link.fill('t.me/ux_claimed_bot');
    await page.getByText('Will be registered as https://t.me/ux_claimed_bot.').waitFor();
    await page.getByRole('button', { name: 'Register as draft' }).click();
    await page.waitForURL(/\/workspace\/publishers\/\d+$/);
    const first = Number(/(\d+)$/.exec(page.url())?.[1]);
    await page.locator('.facts').getByRole('link', { name: 'https://t.me/ux_claimed_bot' }).waitFor();
    await stack.screenshot(page, 'ux-08-normalized-link-375');

    const rival = await stack.signIn(RIVAL_ID);
    await rival.page.goto('/workspace/publishers');
    await rival.page.getByLabel('Public link').fill('http://t.me/UX_claimed_bot/');
    await rival.page.getByRole('button', { name: 'Register as draft' }).click();
    await rival.page.waitForURL(/\/workspace\/publishers\/\d+$/);
    const second = Number(/(\d+)$/.exec(rival.page.url())?.[1]);
    expect((await rivalApi.get<{ link: string }>(`/api/workspace/publishers/${second}`)).body.link).to.match(/^https:\/\/t\.me\/ux_claimed_bot$/i);

    await admin.page.goto(`/workspace/publishers/${first}`);
    const notice = admin.page.getByTestId('shared-link');
    await notice.getByRole('link', { name: `#${second}` }).waitFor();
    expect(await notice.textContent()).to.contain(`of account ${RIVAL_ID}`);
    await admin.page.goto(`/workspace/publishers?q=ux_claimed_bot`);
    await admin.page.getByTestId('publisher-list').getByTestId('shared-link').first().waitFor();
    expect(await admin.page.getByTestId('shared-link').count(), 'both claims are marked in the list').to.equal(2);
    // The owner is not told about other accounts.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: new RegExp(`Platform #${first}`) }).waitFor();
    expect(await page.getByTestId('shared-link').count()).to.equal(0);
    await stack.screenshot(admin.page, 'ux-08-shared-link');
  });

  it('offers only the dashboard filters the account can use, and keeps them in the address', async () => {
    const filterId = await campaign('Dashboard filter');
    const { page } = advertiser;
    await page.goto('/workspace');
    const campaignFilter = page.getByRole('combobox', { name: 'Campaign' });
    await campaignFilter.waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('combobox', { name: 'Platform' }).count(), 'an advertiser without platforms has no Platform filter').to.equal(0);
    // A type-ahead picker: the service finds the campaign from a part of its name; the keyboard chooses it.
    await campaignFilter.click();
    await page.keyboard.type('filter');
    const option = page.getByRole('option', { name: new RegExp(`^#${filterId} Dashboard filter$`) });
    await option.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await campaignFilter.getAttribute('aria-activedescendant'), 'the second choice is the campaign (the first is "All campaigns")').to.equal(await option.getAttribute('id'));
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/workspace?campaignId=${filterId}`);
    await page.getByLabel('From (UTC date)').fill('2026-01-01');
    await page.waitForURL(`**/workspace?campaignId=${filterId}&from=2026-01-01`);
    await page.reload();
    await waitFor(async () => (await page.getByRole('combobox', { name: 'Campaign' }).inputValue()) === `#${filterId} Dashboard filter`, { message: 'the chosen campaign named after a reload' });
    expect(await page.getByLabel('From (UTC date)').inputValue()).to.equal('2026-01-01');
    await page.getByTestId('totals').waitFor();
    await stack.screenshot(page, 'ux-09-dashboard-filters-in-url');
  });

  it('offers every language the campaign service accepts, not a fixed list of 16', async () => {
    const { page } = advertiser;
    await page.goto('/workspace/campaigns/new');
    const language = page.getByRole('combobox', { name: 'Language' });
    await language.waitFor();
    await language.click();
    expect(await page.getByRole('listbox').getByRole('option').count(), 'all, and the 183 ISO 639-1 codes').to.equal(184);
    await page.keyboard.type('turkm');
    const options = page.getByRole('listbox').getByRole('option');
    await waitFor(async () => (await options.count()) === 1, { message: 'one language left for "turkm"' });
    expect(await options.first().textContent()).to.equal('Turkmen (tk)');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await language.inputValue()).to.equal('Turkmen (tk)');
    expect(await language.getAttribute('aria-expanded')).to.equal('false');
    await page.getByLabel('Internal name').fill('Turkmen readers');
    await page.getByLabel('Title').fill('Salam');
    await page.getByLabel('Message').fill('A message for Turkmen readers.');
    await page.getByLabel('Button label').fill('Aç');
    await page.getByLabel('Destination (https)').fill('https://advertiser.example/tk');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    // The page names the language, with its code.
    await page.locator('.facts dd', { hasText: /^Turkmen \(tk\)$/ }).waitFor();
    await stack.screenshot(page, 'ux-11-any-language');
  });

  it('asks whether the sign-in was confirmed as soon as its tab is shown again, not at its next poll', async () => {
    const { page } = await stack.open();
    const isStatusCall = (url: string) => /\/api\/auth\/login\/[^/]+$/.test(url);
    const statusCalls: string[] = [];
    page.on('request', (request) => {
      if (isStatusCall(request.url())) statusCalls.push(request.url());
    });
    // The page's own clock, paused once the page polls: no poll (every 1.5 s) can ask after that.
    await page.clock.install();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    const code = ((await page.getByTestId('signin-code').textContent()) ?? '').trim();
    await waitFor(async () => statusCalls.length > 0, { message: 'the page polls the sign-in' });
    await page.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 100);
    const confirmed = await botConfirms(stack.system, code, RIVAL_ID);
    expect(confirmed.status, confirmed.text).to.equal(200);
    const polled = statusCalls.length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(statusCalls.length, 'no poll while the page clock is paused').to.equal(polled);
    const asked = page.waitForResponse((response) => isStatusCall(response.url()));
    await page.evaluate("window.dispatchEvent(new Event('visibilitychange'))");
    expect(await (await asked).json()).to.deep.include({ status: 'confirmed' });
    await page.clock.resume();
    await page.waitForURL('**/workspace');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('asks before leaving a page that shows a freshly generated key (keyboard)', async () => {
    const registered = await ownerApi.post<{ id: number }>('/api/workspace/publishers', { type: 'bot', link: '@ux_leave_bot' });
    const id = registered.body.id;
    expect((await ownerApi.post(`/api/workspace/publishers/${id}/submit`)).status).to.equal(200);
    expect((await adminApi.post(`/api/workspace/publishers/${id}/approve`)).status).to.equal(200);
    const { page } = await stack.signIn(OWNER_ID);
    await page.goto(`/workspace/publishers/${id}`);
    await page.getByRole('button', { name: 'Generate key' }).click();
    const key = page.getByTestId('new-key');
    await key.waitFor();
    // Marked secret, so the screenshot below masks it: keys are never in screenshots.
    expect(await key.getAttribute('data-secret')).to.not.equal(null);
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Audit' }).click();
    const question = page.getByRole('alertdialog');
    await question.waitFor();
    expect(await question.textContent()).to.contain('cannot be shown again');
    expect(await focusedText(page), 'focus on Stay').to.equal('Stay on this page');
    await stack.screenshot(page, 'ux-10-leave-guard');
    await page.keyboard.press('Enter');
    await question.waitFor({ state: 'detached' });
    expect(page.url()).to.match(new RegExp(`/workspace/publishers/${id}$`));
    expect(await key.isVisible(), 'the key is still there').to.equal(true);

    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Audit' }).click();
    await question.getByRole('button', { name: 'Leave without the key' }).click();
    await page.waitForURL('**/workspace/audit');
    // Hidden after storing it, the page is left without a question.
    await page.goto(`/workspace/publishers/${id}`);
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    await page.getByRole('button', { name: 'Yes, rotate the key' }).click();
    await key.waitFor();
    await page.getByRole('button', { name: 'I have stored the key; hide it' }).click();
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL('**/workspace/audit');
  });
});
