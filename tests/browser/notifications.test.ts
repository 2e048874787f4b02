/**
 * Notifications through the bot, in a real browser against the whole system: the settings next to the
 * account name, and a rejection made in the pages reaching its owner through the Bot API stand-in with a
 * link that opens the campaign's page.
 */
import { startBotApiStandIn, waitFor, type BotApiStandIn } from '@pilot/testkit';
import { expect } from 'chai';
import type { Page } from '../../services/web/test/support/chromium';
import { ADMIN_ID } from '../e2e/support/system';
import { atPhoneWidth, scrollWidth, startBrowserSystem, stopAndWatchForProblems, PHONE_VIEWPORT, type BrowserSystem, type Person } from './support/browser-system';

const ADVERTISER_ID = '5301';

/** The "Bot messages" menu beside the account name, opened. */
async function openBotMessages(page: Page) {
  const menu = page.getByTestId('account').getByTestId('bot-messages');
  if ((await menu.getAttribute('open')) === null) await menu.locator('summary').click();
  return menu;
}

describe('notifications through the bot, in a browser', function () {
  this.timeout(120_000);
  let bot: BotApiStandIn;
  let stack: BrowserSystem;
  let advertiser: Person;

  before(async function () {
    this.timeout(240_000);
    bot = await startBotApiStandIn();
    stack = await startBrowserSystem({ settings: { notification: { TELEGRAM_BOT_TOKEN: '424242:browser-stand-in-token', TELEGRAM_API_BASE_URL: bot.baseUrl } } });
  });

  stopAndWatchForProblems(() => stack);

  after(async () => {
    await bot?.stop();
  });

  it('shows the settings next to the account name, saves a change and keeps it across a reload', async () => {
    advertiser = await stack.signIn(ADVERTISER_ID);
    const { page } = advertiser;
    // A workspace page does not ask for the settings until the menu is opened.
    const asked: string[] = [];
    page.on('request', (sent) => {
      if (new URL(sent.url()).pathname === '/api/workspace/notifications') asked.push(sent.method());
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(asked).to.deep.equal([]);
    const menu = await openBotMessages(page);
    const reviews = menu.getByRole('checkbox', { name: /approved, rejected, activated or paused/ });
    await waitFor(async () => reviews.isEnabled(), { message: 'the settings loaded' });
    expect(await reviews.isChecked()).to.equal(true);
    expect(asked).to.deep.equal(['GET']);
    // Not an administrator: no review-queue summary to choose.
    expect(await menu.getByRole('checkbox').count()).to.equal(1);

    await reviews.uncheck();
    await menu.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await reviews.isChecked()).to.equal(false);
    await page.reload();
    const reloaded = await openBotMessages(page);
    const after = reloaded.getByRole('checkbox', { name: /approved, rejected, activated or paused/ });
    await waitFor(async () => after.isEnabled(), { message: 'the settings loaded again' });
    expect(await after.isChecked()).to.equal(false);
    await after.check();
    await reloaded.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    // Escape closes the menu and gives focus back to it; a press elsewhere closes it too.
    await page.keyboard.press('Escape');
    expect(await reloaded.getAttribute('open')).to.equal(null);
    expect(await page.evaluate<string>('document.activeElement?.closest("[data-testid=bot-messages]") ? document.activeElement.tagName : ""')).to.equal('SUMMARY');
    await openBotMessages(page);
    await page.getByRole('heading', { name: 'Dashboard' }).click();
    expect(await reloaded.getAttribute('open')).to.equal(null);
    await openBotMessages(page);

    await atPhoneWidth(page, async () => {
      expect(await scrollWidth(page), 'the open menu fits 375 px').to.be.at.most(PHONE_VIEWPORT.width);
      const panel = await reloaded.locator('.bot-messages-panel').boundingBox();
      expect(panel, 'the open panel').to.not.equal(null);
      expect(panel!.x, 'the panel starts on screen').to.be.at.least(0);
      expect(panel!.x + panel!.width, 'the panel ends on screen').to.be.at.most(PHONE_VIEWPORT.width);
      await stack.screenshot(page, 'notifications-01-settings-phone');
    });
  });

  it('gives an administrator the review-queue summary to choose too', async () => {
    const admin = await stack.signIn(ADMIN_ID);
    const menu = await openBotMessages(admin.page);
    const queue = menu.getByRole('checkbox', { name: /wait for review/ });
    await waitFor(async () => queue.isEnabled(), { message: 'the settings loaded' });
    expect(await queue.isChecked()).to.equal(true);
    expect(await menu.getByRole('checkbox').count()).to.equal(2);
    await stack.screenshot(admin.page, 'notifications-02-settings-admin');
  });

  it("tells the owner of a rejection made in the pages, with the reason and a link to the campaign's page", async () => {
    const { page } = advertiser;
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Internal name').fill('Notified <campaign>');
    await page.getByLabel('Title').fill('Learn Turkish');
    await page.getByLabel('Message').fill('Short daily lessons.');
    await page.getByLabel('Button label').fill('Try it');
    await page.getByLabel('Destination (https)').fill('https://advertiser.example/notified');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/workspace\/campaigns\/\d+$/);
    const campaignPath = new URL(page.url()).pathname;
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.locator('h1 .badge', { hasText: 'In review' }).waitFor();

    const admin = await stack.signIn(ADMIN_ID);
    await admin.page.goto(campaignPath);
    await admin.page.getByRole('button', { name: 'Reject…' }).click();
    await admin.page.getByRole('form', { name: 'Reject' }).getByRole('textbox').fill('The landing page does not load');
    await admin.page.getByRole('form', { name: 'Reject' }).getByRole('button', { name: 'Reject' }).click();
    await admin.page.locator('h1 .badge', { hasText: 'Rejected' }).waitFor();

    const message = await waitFor(() => bot.messages(ADVERTISER_ID)[0], { timeoutMs: 20_000, message: 'the rejection told to its owner' });
    const link = `${stack.system.baseUrl}${campaignPath}`;
    expect(message.text).to.equal(`Your campaign "Notified <campaign>" was rejected.\nReason: The landing page does not load\nOpen it: ${link}`);
    expect(message.parse_mode).to.equal(undefined);
    // The link opens the campaign's page in the workspace, which shows the reason too.
    await page.goto(link);
    await page.locator('h1 .badge', { hasText: 'Rejected' }).waitFor();
    expect(await page.getByText('The landing page does not load').first().isVisible()).to.equal(true);
  });
});
