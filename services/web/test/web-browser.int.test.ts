/**
 * The frontend in a real browser (Debian chromium through playwright-core) against a fake of the API.
 * Screenshots go to test-artifacts/web/.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ADMIN, OWNER, startStack, type Stack } from './support/stack';

async function nextFrames(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

describe('web frontend in a browser', function () {
  this.timeout(120_000);
  let stack: Stack;

  before(async function () {
    this.timeout(180_000);
    stack = await startStack();
  });

  after(async () => {
    await stack?.stop();
  });

  afterEach(() => {
    const seen = stack.problems.splice(0);
    expect(seen, 'page errors, console errors or dialogs').to.deep.equal([]);
  });

  it('signs in with the bot code and lands in the workspace showing the account and the administrator badge', async () => {
    const { page } = await stack.open();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    const code = (await page.getByTestId('signin-code').textContent())?.trim() ?? '';
    expect(code).to.match(/^[A-Za-z0-9_-]{43}$/);
    const botLink = page.getByRole('link', { name: 'Open the bot and press Start' });
    expect(await botLink.getAttribute('href')).to.equal(`https://t.me/pilot_signin_bot?start=${code}`);
    expect(await page.locator('svg title', { hasText: 'QR code of the bot link' }).count()).to.equal(1);
    await stack.screenshot(page, 'signin-waiting');

    stack.api.confirmLogin(code, ADMIN);
    await page.waitForURL('**/workspace', { timeout: 15_000 });
    const account = page.getByTestId('account');
    await account.getByText('admin_ayla').waitFor();
    expect(await account.getByText('Administrator').isVisible()).to.equal(true);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await page.locator('.notice').textContent()).to.contain('not billable impressions, not unique people and not conversions');
    expect(stack.api.refusedOrigins).to.deep.equal([]);
    await stack.screenshot(page, 'workspace-dashboard');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.goto('/workspace');
    await page.waitForURL('**/signin');
  });

  it('says clearly when the sign-in request expired and offers a new code', async () => {
    const { page } = await stack.open();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Get a sign-in code' }).click();
    const code = (await page.getByTestId('signin-code').textContent())?.trim() ?? '';
    stack.api.expireLogin(code);
    await page.getByRole('alert').filter({ hasText: 'This sign-in code expired' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: 'Get a new code' }).isVisible()).to.equal(true);
  });

  it('sends a visitor without a session from the workspace to sign-in (401)', async () => {
    const { page } = await stack.open();
    await page.goto('/workspace/campaigns');
    await page.waitForURL('**/signin');
    await page.getByRole('heading', { name: 'Sign in to the workspace' }).waitFor();
  });

  it('shows a refusal (403) in words', async () => {
    const { page } = await stack.open({ account: OWNER });
    await page.goto('/workspace/campaigns/403');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.contain('You are not allowed to do this. This record belongs to another account.');
  });

  it('checks limits while typing and shows the server 422 next to the field when creating a campaign', async () => {
    const { page } = await stack.open({ account: OWNER });
    await page.goto('/workspace/campaigns/new');
    await page.getByLabel('Internal name').fill('Autumn');
    await page.getByLabel('Title').fill('x'.repeat(101));
    const titleField = page.locator('.field', { has: page.getByLabel('Title') });
    expect(await titleField.locator('.counter').textContent()).to.equal('101 / 100: 1 over the limit');
    expect(await titleField.locator('.counter').getAttribute('class')).to.contain('counter-over');
    expect(await titleField.locator('.hint').textContent()).to.equal('Too long: at most 100 characters.');
    await page.getByLabel('Title').fill('Warm <b>bread</b>');
    expect(await titleField.locator('.hint').textContent()).to.equal('');
    await page.getByLabel('Message').fill('Fresh every morning.');
    await page.getByLabel('Button label').fill('Order');
    await page.getByLabel('Destination (https)').fill('https://blocked.example/x');
    expect(await page.getByTestId('preview-title').textContent()).to.equal('Warm <b>bread</b>');
    await page.getByRole('button', { name: 'Save draft' }).click();

    const destination = page.locator('.field', { has: page.getByLabel('Destination (https)') });
    await destination.getByText('This destination is not accepted.').waitFor();
    expect(await page.getByLabel('Destination (https)').getAttribute('aria-invalid')).to.equal('true');
    expect(stack.api.campaigns.filter((c) => c.name === 'Autumn')).to.have.length(0);
    await stack.screenshot(page, 'campaign-422');

    await page.getByLabel('Destination (https)').fill('https://bakery.example/autumn');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.locator('.badge', { hasText: 'In review' }).first().waitFor();
    expect(stack.api.campaigns.find((c) => c.name === 'Autumn')?.status).to.equal('submitted');
  });

  it('lets an administrator approve, activate and pause a campaign, and reject another with a reason the owner reads', async () => {
    const first = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Review me', status: 'submitted' });
    const second = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Reject me', status: 'submitted' });
    const { page } = await stack.open({ account: ADMIN });
    await page.goto('/workspace/campaigns?status=submitted');
    await page.getByRole('link', { name: `#${first.id} Review me` }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('button', { name: 'Pause…' }).click();
    await page.getByRole('button', { name: 'Pause the campaign' }).click();
    await page.getByRole('button', { name: 'Activate' }).waitFor();
    expect(first.status).to.equal('paused');

    await page.goto(`/workspace/campaigns/${second.id}`);
    await page.getByRole('button', { name: 'Reject…' }).click();
    await page.getByLabel('Reason for the owner').fill('The destination does not match the text.');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.locator('.reason').waitFor();
    expect(second.status).to.equal('rejected');

    const owner = await stack.open({ account: OWNER, width: 375, height: 740 });
    await owner.page.goto('/workspace/campaigns');
    await owner.page.getByText('Rejected: The destination does not match the text.').waitFor();
    await owner.page.goto(`/workspace/campaigns/${second.id}`);
    await owner.page.getByRole('button', { name: 'Create a replacement draft' }).click();
    await owner.page.waitForURL(`**/workspace/campaigns/new?replaces=${second.id}`);
    await owner.page.waitForFunction(() => (document.querySelector('input[name="name"]') as HTMLInputElement | null)?.value === 'Reject me');
    await owner.page.getByRole('button', { name: 'Save draft' }).click();
    await owner.page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    const replacement = stack.api.campaigns.find((c) => c.replaces === second.id);
    expect(replacement?.status).to.equal('draft');
  });

  it('review queue: approve-and-activate says so when the second step fails, and the campaign waits approved; shortcuts skip text fields', async () => {
    const ready = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Two steps', status: 'submitted' });
    const other = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Keyboard', status: 'submitted' });
    stack.api.activationRefused = true;
    try {
      const { page } = await stack.open({ account: ADMIN });
      await page.goto('/workspace/review');
      const item = (id: number) => page.locator(`[data-queue-key="campaigns:${id}"]`);
      await item(ready.id).getByRole('button', { name: `Approve and activate #${ready.id}, campaign` }).click();
      const news = page.getByTestId('review-news');
      await news.getByText(`Campaign #${ready.id} approved, but not activated: The campaign changed meanwhile; it cannot be activated now. It waits under "Approved, waiting for activation".`).waitFor();
      expect(ready.status, 'the approval stays: nothing is rolled back').to.equal('approved');
      await page.getByTestId('review-waiting').getByRole('button', { name: `Activate #${ready.id}, campaign` }).waitFor();

      // Typing a reason with the shortcut letters in it decides nothing; back on the item, a approves it.
      await item(other.id).getByRole('button', { name: `Reject… #${other.id}, campaign` }).click();
      await page.keyboard.type('a r x j k');
      expect(other.status).to.equal('submitted');
      await page.keyboard.press('Escape');
      expect(await item(other.id).getAttribute('aria-current'), 'focus back on the item makes it the current one').to.equal('true');
      await page.keyboard.press('a');
      await news.getByText(`Campaign #${other.id} approved.`).waitFor();
      expect(other.status).to.equal('approved');
      await stack.screenshot(page, 'review-two-steps');
    } finally {
      stack.api.activationRefused = false;
    }
  });

  it('shows campaigns as a table of figures sorted by the service, with CTR and the change against the previous 7 days', async () => {
    const big = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Big reach', status: 'active' });
    const clicky = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Many clicks', status: 'active' });
    stack.api.breakdown = {
      current: [
        { id: big.id, adRequests: 1200, confirmedDeliveries: 1000, clickedLinks: 5 },
        { id: clicky.id, adRequests: 300, confirmedDeliveries: 200, clickedLinks: 40 },
      ],
      previous: [{ id: big.id, adRequests: 1000, confirmedDeliveries: 1000, clickedLinks: 10 }],
    };
    stack.api.breakdownCalls.length = 0;
    const { page } = await stack.open({ account: OWNER });
    await page.goto('/workspace/campaigns');
    const table = page.getByTestId('campaign-figures-table');
    await table.getByRole('rowheader', { name: `#${big.id} Big reach` }).waitFor();
    const cells = async () => (await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.children, (cell) => (cell.textContent ?? '').trim()))));
    expect(await cells()).to.deep.equal([
      [`#${big.id} Big reach`, '1,200+20.0%', '1,000±0.0%', '5−50.0%', '0.5%'],
      [`#${clicky.id} Many clicks`, '300new', '200new', '40new', '20.0%'],
    ]);
    const previous = stack.api.breakdownCalls.find((call) => call.get('to') !== new Date().toISOString().slice(0, 10));
    expect(previous?.get('by')).to.equal('campaign');
    // The heading sorts by the figure, at the service: highest clicks first.
    await table.getByRole('button', { name: /^Clicks/ }).click();
    await waitFor(async () => (await cells())[0]?.[0] === `#${clicky.id} Many clicks`, { message: 'sorted by clicks' });
    expect(stack.api.breakdownCalls.some((call) => call.get('sort') === 'clickedLinks')).to.equal(true);
    expect(await table.locator('th[aria-sort="descending"]').textContent()).to.match(/^Clicks/);
    await stack.screenshot(page, 'campaign-figures');
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).to.be.at.most(375);
    await stack.screenshot(page, 'campaign-figures-375');
  });

  it('says a pause is saved but not yet in effect when the service answers 202 (its message broker unreachable)', async () => {
    const campaign = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: 'Pause me later', status: 'active' });
    stack.api.brokerUnreachable = true;
    try {
      const { page } = await stack.open({ account: ADMIN });
      await page.goto(`/workspace/campaigns/${campaign.id}`);
      await page.getByRole('button', { name: 'Pause…' }).click();
      await page.getByRole('button', { name: 'Pause the campaign' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved, but not yet in effect' }).waitFor();
      expect(campaign.status).to.equal('paused');
      await page.getByRole('button', { name: 'Activate' }).waitFor();
      stack.api.brokerUnreachable = false;
      await page.getByRole('button', { name: 'Activate' }).click();
      await page.getByRole('button', { name: 'Pause…' }).waitFor();
      expect(await page.getByText('Saved, but not yet in effect').count(), 'gone once a change is in effect').to.equal(0);
    } finally {
      stack.api.brokerUnreachable = false;
    }
  });

  it('shows a title like <img src=x onerror=alert(1)> as text and runs no script', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const campaign = stack.api.addCampaign({ ownerAccountId: OWNER.accountId, name: hostile, title: hostile, text: `<script>alert(2)</script>`, status: 'rejected', rejectionReason: hostile });
    const { page } = await stack.open({ account: OWNER });
    await page.goto('/workspace/campaigns');
    await page.getByText(`#${campaign.id} ${hostile}`).waitFor();
    await page.goto(`/workspace/campaigns/${campaign.id}`);
    await page.getByTestId('preview-title').waitFor();
    expect(await page.getByTestId('preview-title').textContent()).to.equal(hostile);
    expect(await page.locator('img[src="x"]').count()).to.equal(0);
    expect(await page.locator('main script').count()).to.equal(0);
    // afterEach fails the test if a dialog (alert) opened
  });

  it('registers a platform and, once approved, shows a generated key once with a copy button and a warning, never stored in the browser', async () => {
    const { page } = await stack.open({ account: OWNER });
    await page.goto('/workspace/publishers');
    await page.getByLabel('Public link').fill('@forecast_bot');
    await page.getByRole('button', { name: 'Register as draft' }).click();
    await page.waitForURL(/\/workspace\/publishers\/\d+$/);
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.locator('.badge', { hasText: 'In review' }).waitFor();
    const publisher = stack.api.publishers.find((p) => p.link === 'https://t.me/forecast_bot');
    expect(publisher?.status).to.equal('submitted');

    const admin = await stack.open({ account: ADMIN });
    await admin.page.goto(`/workspace/publishers/${publisher?.id}`);
    await admin.page.getByRole('button', { name: 'Approve' }).click();
    await admin.page.locator('.badge', { hasText: 'Approved' }).waitFor();

    await page.reload();
    await page.getByRole('button', { name: 'Generate key' }).click();
    const keyBox = page.getByTestId('new-key');
    await keyBox.waitFor();
    const key = await keyBox.inputValue();
    expect(stack.api.issuedKeys).to.deep.equal([key]);
    expect(await page.getByText('it is shown only once').isVisible()).to.equal(true);
    expect(await page.getByText('Keep it on your server only').isVisible()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Copy key' }).isVisible()).to.equal(true);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie + location.href);
    expect(stored).not.to.contain(key);

    // Leaving while the key is shown asks first; hidden, the page may be reloaded.
    await page.getByRole('button', { name: 'I have stored the key; hide it' }).click();
    await page.reload();
    await page.getByRole('button', { name: 'Rotate key…' }).waitFor();
    expect(await page.content()).not.to.contain(key);
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    expect(stack.api.issuedKeys).to.have.length(1);
    await page.getByRole('button', { name: 'Yes, rotate the key' }).click();
    await keyBox.waitFor();
    expect(stack.api.issuedKeys).to.have.length(2);
    expect(await keyBox.inputValue()).to.equal(stack.api.issuedKeys[1]);
  });

  it('reports exactly one home-feature impression, only once half of it is scrolled into view', async () => {
    stack.api.placements.set('home-feature', {
      placementId: 'pl-777',
      title: 'Pilot partners wanted',
      buttonText: 'Learn more',
      destinationUrl: 'https://partners.example/',
      imageUrl: null,
      status: 'active',
    });
    stack.api.impressions.splice(0);
    const { page } = await stack.open({ width: 375, height: 600 });
    await page.goto('/');
    const slot = page.locator('[data-slot="home-feature"]');
    await page.locator('[data-slot="home-feature"][data-impression="waiting"]').waitFor({ state: 'attached' });
    await nextFrames(page);
    expect(stack.api.impressions, 'before it is visible').to.deep.equal([]);

    // a sliver of it visible (well under half): still nothing
    await page.evaluate(() => {
      const box = document.querySelector('[data-slot="home-feature"]')?.getBoundingClientRect();
      if (box) window.scrollTo(0, window.scrollY + box.top - window.innerHeight + 4);
    });
    await nextFrames(page);
    await nextFrames(page);
    expect(stack.api.impressions, 'with a sliver visible').to.deep.equal([]);

    await slot.scrollIntoViewIfNeeded();
    await waitFor(() => stack.api.impressions.length === 1, { timeoutMs: 10_000 });
    expect(stack.api.impressions[0]).to.deep.equal({ slot: 'home-feature', placementId: 'pl-777' });
    await page.locator('[data-slot="home-feature"][data-impression="reported"]').waitFor();

    await page.evaluate(() => window.scrollTo(0, 0));
    await nextFrames(page);
    await slot.scrollIntoViewIfNeeded();
    await nextFrames(page);
    await nextFrames(page);
    expect(stack.api.impressions).to.have.length(1);
    expect(await slot.getByText('Sponsored').isVisible()).to.equal(true);
    expect(await slot.getByRole('link', { name: 'Learn more' }).getAttribute('href')).to.equal('https://partners.example/');
    await stack.screenshot(page, 'home-375');
  });

  it('shows nothing for an empty slot (204), the workspace-top slot on workspace pages and tr-footer on /tr', async () => {
    stack.api.placements.set('home-feature', null);
    stack.api.placements.set('workspace-top', { placementId: 'pl-801', title: 'Workspace tip', buttonText: 'Read', destinationUrl: 'https://tips.example/', imageUrl: null, status: 'active' });
    stack.api.placements.set('tr-footer', { placementId: 'pl-802', title: 'Türkçe ortaklık', buttonText: 'İncele', destinationUrl: 'https://ortak.example/', imageUrl: null, status: 'active' });
    const visitor = await stack.open();
    await visitor.page.goto('/');
    await visitor.page.getByRole('heading', { name: 'How it works' }).waitFor();
    await visitor.page.waitForLoadState('networkidle');
    expect(await visitor.page.locator('[data-slot="home-feature"]').count()).to.equal(0);
    await visitor.page.goto('/tr');
    await visitor.page.locator('[data-slot="tr-footer"]').getByText('Türkçe ortaklık').waitFor();
    expect(await visitor.page.evaluate(() => document.documentElement.lang)).to.equal('tr');
    expect(await visitor.page.locator('[data-slot="tr-footer"] .sponsored').textContent()).to.equal('Sponsorlu');

    const { page } = await stack.open({ account: OWNER });
    await page.goto('/workspace/audit');
    await page.locator('[data-slot="workspace-top"]').getByText('Workspace tip').waitFor();
  });

  it('lets an administrator set a placement in the editor and shows its 422 field errors', async () => {
    const { page } = await stack.open({ account: ADMIN });
    await page.goto('/workspace/placements');
    const form = page.locator('form[data-slot="tr-footer"]');
    await form.getByLabel('Title').fill('Yeni ortaklar');
    await form.getByLabel('Button label').fill('Katıl');
    await form.getByLabel('Destination (https)').fill('');
    await form.getByRole('button', { name: 'Save tr-footer' }).click();
    await form.getByText('must be an https address').waitFor();
    await form.getByLabel('Destination (https)').fill('https://ortak.example/yeni');
    await form.getByLabel('Status').selectOption('active');
    await form.getByLabel('Ends at (UTC, optional)').fill('2030-01-01T12:00');
    await form.getByRole('button', { name: 'Save tr-footer' }).click();
    await form.getByText('Saved.').waitFor();
    expect(stack.api.placements.get('tr-footer')).to.include({ title: 'Yeni ortaklar', status: 'active', endsAt: '2030-01-01T12:00:00.000Z' });
  });

  it('works with the keyboard: the skip link comes first and a labelled form is sent with Enter', async () => {
    const { page } = await stack.open({ account: OWNER, width: 375, height: 740 });
    await page.goto('/workspace/publishers');
    await page.getByRole('heading', { name: 'Your platforms' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('main');
    await page.getByLabel('Type').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).to.equal('link');
    await page.keyboard.type('not a link');
    await page.keyboard.press('Enter');
    await page.getByText('Enter the public link, https://t.me/<username>, or @username.').waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('https://t.me/keyboard_news_bot');
    expect(await page.getByLabel('Public link').inputValue()).to.equal('https://t.me/keyboard_news_bot');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/workspace\/publishers\/\d+$/);
    expect(stack.api.publishers.some((p) => p.link === 'https://t.me/keyboard_news_bot' && p.ownerAccountId === OWNER.accountId)).to.equal(true);
  });

  it('lays out every page within 375 px without sideways scrolling', async () => {
    stack.api.stats = {
      adRequests: 12,
      confirmedDeliveries: 9,
      clickedLinks: 3,
      days: [{ date: '2026-11-22', adRequests: 12, confirmedDeliveries: 9, clickedLinks: 3 }],
    };
    const campaign = stack.api.addCampaign({ ownerAccountId: ADMIN.accountId, name: 'Wide check' });
    const publisher = stack.api.addPublisher({ ownerAccountId: ADMIN.accountId, status: 'approved' });
    const { page } = await stack.open({ account: ADMIN, width: 375, height: 740 });
    const pages: Array<[string, string]> = [
      ['home', '/'],
      ['turkish', '/tr'],
      ['dashboard', '/workspace'],
      ['campaigns', '/workspace/campaigns'],
      ['campaign-new', '/workspace/campaigns/new'],
      ['campaign-detail', `/workspace/campaigns/${campaign.id}`],
      ['platforms', '/workspace/publishers'],
      ['platform-detail', `/workspace/publishers/${publisher.id}`],
      ['audit', '/workspace/audit'],
      ['placements', '/workspace/placements'],
    ];
    for (const [name, route] of pages) {
      await page.goto(route);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, route).to.be.at.most(375);
      await stack.screenshot(page, `375-${name}`);
    }
    await page.goto('/workspace');
    expect(await page.getByTestId('total-adRequests').textContent()).to.equal('12');
    expect(await page.getByTestId('total-clickedLinks').textContent()).to.equal('3');
    expect(await page.getByRole('table').getByText('22 Nov 2026').isVisible()).to.equal(true);
  });
});
