/**
 * Every service, started as its own process in production mode without one of its required settings,
 * stops at once with exit code 1 and a message that names the missing setting.
 */
import { runServiceMain } from '@pilot/testkit';
import { serviceNames } from '../deploy/support';
import { expect } from 'chai';

/** A complete production environment per service, so that exactly one setting can be taken away. */
const COMPLETE: Record<string, Record<string, string>> = {
  gateway: {
    INTERNAL_SECRET: 'x'.repeat(40),
    PUBLIC_BASE_URL: 'https://pilot.example',
    GATEWAY_PORT: '0',
    IDENTITY_URLS: 'http://127.0.0.1:1',
    CAMPAIGN_URLS: 'http://127.0.0.1:1',
    ALLOCATION_URLS: 'http://127.0.0.1:1',
    TRACKING_URLS: 'http://127.0.0.1:1',
    PLACEMENT_URLS: 'http://127.0.0.1:1',
    NOTIFICATION_URLS: 'http://127.0.0.1:1',
    WEB_URLS: 'http://127.0.0.1:1',
  },
  'publisher-identity': { MONGO_DB: 'identity', TELEGRAM_WEBHOOK_SECRET: 'w'.repeat(32), ADMIN_ACCOUNT_IDS: '123456789', TELEGRAM_BOT_USERNAME: 'pilot_real_bot' },
  campaign: { MONGO_DB: 'campaign' },
  allocation: { TOKEN_SECRET: 't'.repeat(40), CAMPAIGN_URL: 'http://127.0.0.1:1' },
  tracking: { MONGO_DB: 'tracking', TOKEN_SECRET: 't'.repeat(40), CAMPAIGN_URL: 'http://127.0.0.1:1' },
  placement: { MONGO_DB: 'placement' },
  notification: { MONGO_DB: 'notification', IDENTITY_URL: 'http://127.0.0.1:1' },
  web: {},
};

const INFRASTRUCTURE = {
  PORT: '0',
  INTERNAL_SECRET: 'x'.repeat(40),
  PUBLIC_BASE_URL: 'https://pilot.example',
  MONGO_URL: 'mongodb://127.0.0.1:1/',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:1',
  REDIS_URL: 'redis://127.0.0.1:1',
};

/** The setting taken away from each service, one it cannot run without. */
const REQUIRED: Record<string, string> = {
  gateway: 'INTERNAL_SECRET',
  'publisher-identity': 'TELEGRAM_WEBHOOK_SECRET',
  campaign: 'MONGO_DB',
  allocation: 'TOKEN_SECRET',
  tracking: 'MONGO_DB',
  placement: 'MONGO_DB',
  notification: 'IDENTITY_URL',
  web: 'INTERNAL_SECRET',
};

describe('every service refuses to start without a required setting', function () {
  this.timeout(60_000);

  it('covers every service under services/', () => {
    expect(Object.keys(REQUIRED).sort()).to.deep.equal(serviceNames());
  });

  for (const service of Object.keys(REQUIRED)) {
    it(`stops ${service} with exit code 1 and a message naming ${REQUIRED[service]}`, async () => {
      const env: Record<string, string> = { ...INFRASTRUCTURE, ...COMPLETE[service] };
      delete env[REQUIRED[service] as string];
      const { code, stderr } = await runServiceMain(service, { NODE_ENV: 'production', ...env });
      expect(code).to.equal(1);
      expect(stderr).to.contain(REQUIRED[service]);
    });
  }
});

/** Each secret set to what a careless deployment leaves in it: the example's placeholder, a development default, a short value. */
const WEAK_SECRETS: Array<{ service: string; setting: string; value: string }> = [
  { service: 'gateway', setting: 'INTERNAL_SECRET', value: 'change-me-internal-secret' },
  { service: 'campaign', setting: 'INTERNAL_SECRET', value: 'local-only-internal-secret-0123456789' },
  { service: 'allocation', setting: 'TOKEN_SECRET', value: 'change-me-token-secret' },
  { service: 'tracking', setting: 'TOKEN_SECRET', value: 'a-31-character-token-secret-xyz' },
  { service: 'tracking', setting: 'TOKEN_SECRET_PREVIOUS', value: 'change-me-previous-token-secret-0123456789' },
  { service: 'publisher-identity', setting: 'TELEGRAM_WEBHOOK_SECRET', value: 'local-only-telegram-webhook-secret' },
  { service: 'publisher-identity', setting: 'TELEGRAM_WEBHOOK_SECRET', value: 'change-me-telegram-webhook-secret' },
  // Not secrets, but placeholders a deployment must replace as well.
  { service: 'publisher-identity', setting: 'ADMIN_ACCOUNT_IDS', value: '1' },
  { service: 'publisher-identity', setting: 'TELEGRAM_BOT_USERNAME', value: 'change_me_bot' },
];

describe('every service refuses to start in production with a weak secret', function () {
  this.timeout(60_000);

  for (const { service, setting, value } of WEAK_SECRETS) {
    it(`stops ${service} with exit code 1 naming ${setting} when it is ${JSON.stringify(value)}`, async () => {
      const env: Record<string, string> = { ...INFRASTRUCTURE, ...COMPLETE[service], [setting]: value };
      const { code, stderr } = await runServiceMain(service, { NODE_ENV: 'production', ...env });
      expect(code).to.equal(1);
      expect(stderr).to.contain(setting);
      expect(stderr).to.match(/placeholder|shorter than 32/);
    });
  }
});
