/**
 * The platform page's keys in a real browser against the whole running system: a new key generated with a
 * grace period leaves the previous key working, the page says until when, and "End the previous key now"
 * stops it before the page says so; the audit names both steps. Beside the keys, what the network could
 * serve the platform now, with the no-fill reason a live request would get.
 */
import { expect } from 'chai';
import { PublisherServer, signedIn } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID } from '../e2e/support/system';
import { startBrowserSystem, stopAndWatchForProblems, type BrowserSystem, type Person } from './support/browser-system';

const OWNER_ID = '5301';
const ADVERTISER_ID = '5302';

describe('rolling a key on the platform page, in a browser against the whole system', function () {
  this.timeout(120_000);
  let stack: BrowserSystem;
  let owner: Person;
  let publisherId: number;
  let server: PublisherServer;

  before(async function () {
    this.timeout(240_000);
    stack = await startBrowserSystem();
    const [adminApi, ownerApi, advertiserApi] = await Promise.all([signedIn(stack.system, ADMIN_ID), signedIn(stack.system, OWNER_ID), signedIn(stack.system, ADVERTISER_ID)]);
    await activeCampaign(advertiserApi, adminApi, { language: 'en' });
    const approved = await approvedPublisher(stack.system, ownerApi, adminApi);
    publisherId = approved.publisher.id;
    server = approved.server;
    owner = await stack.signIn(OWNER_ID);
  });

  stopAndWatchForProblems(() => stack);

  it('shows beside the keys what the network can serve the platform now, per language, and why another language gets nothing', async () => {
    const { page } = owner;
    await page.goto(`/workspace/publishers/${publisherId}`);
    const demand = page.getByTestId('platform-demand');
    expect(await demand.getByTestId('demand-total').textContent()).to.equal('1 active campaign for a bot, by language:');
    expect(await demand.getByTestId('demand-languages').textContent()).to.equal('English (en): 1');
    expect(await demand.textContent()).to.contain('Pilot-No-Fill-Reason: no_campaign_for_language');
    await stack.screenshot(page, 'keys-00-demand');
  });

  it('says on the sandbox page which answers a test key may force on each call, as the guide does', async () => {
    const { page } = owner;
    await page.goto('/sandbox');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).to.contain('204, 429 or 503 on the ad request, 404 or 503 on a delivery confirmation');
  });

  it('keeps the previous key working for the chosen time, shows until when, and ends it now on request', async () => {
    const { page } = owner;
    await page.goto(`/workspace/publishers/${publisherId}`);
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm rotation' });
    await confirm.getByLabel('Keep the current key working').selectOption({ label: '1 hour' });
    expect(await confirm.locator('.warning').textContent()).to.contain('keeps working for the time chosen');
    await confirm.getByRole('button', { name: 'Yes, rotate the key' }).click();
    const fresh = await page.getByTestId('new-key').inputValue();
    expect((await server.ad('en')).status, 'the previous key, within the hour').to.equal(200);
    expect((await new PublisherServer(stack.system, fresh).ad('en')).status, 'the new key').to.equal(200);
    await page.getByRole('button', { name: 'I have stored the key; hide it' }).click();
    const note = page.getByTestId('previous-key');
    expect(await note.textContent()).to.contain('The previous key keeps working until');
    await stack.screenshot(page, 'keys-01-previous-key');

    await note.getByRole('button', { name: 'End the previous key now' }).click();
    await note.waitFor({ state: 'detached' });
    expect((await server.ad('en')).status, 'the previous key, ended').to.equal(401);
    expect((await new PublisherServer(stack.system, fresh).ad('en')).status).to.equal(200);
    await page.goto('/workspace/audit');
    await page.getByLabel('Record type').selectOption('publisher');
    const audit = page.getByTestId('audit-table');
    await audit.getByRole('cell', { name: 'Previous server key ended' }).waitFor();
    await audit.getByRole('cell', { name: 'Server key rotated, the previous one kept working for a while' }).waitFor();
  });
});
