import { ConfigError } from '@pilot/platform';
import { runServiceMain } from '@pilot/testkit';
import { expect } from 'chai';
import { loadConfig } from '../src/config';

describe('publisher-identity configuration', () => {
  it('refuses to start, naming a missing required setting', async () => {
    const result = await runServiceMain('publisher-identity', { NODE_ENV: 'test', PORT: '0' });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('MONGO_DB is required but missing');
  });

  it('requires the webhook secret and every infrastructure setting in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' }))
      .to.throw(ConfigError)
      .with.property('variables')
      .that.has.all.keys('PORT', 'MONGO_DB', 'MONGO_URL', 'AMQP_URL', 'REDIS_URL', 'INTERNAL_SECRET', 'PUBLIC_BASE_URL', 'TELEGRAM_WEBHOOK_SECRET');
  });

  it('refuses a webhook secret the messaging platform would not send, and a non-numeric administrator id', () => {
    const base = { NODE_ENV: 'test', PORT: '0', MONGO_DB: 'x' };
    expect(() => loadConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'short' })).to.throw(/TELEGRAM_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'has spaces in it, not allowed' })).to.throw(/TELEGRAM_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ...base, ADMIN_ACCOUNT_IDS: '1000,alice' })).to.throw(/ADMIN_ACCOUNT_IDS/);
    expect(loadConfig({ ...base, ADMIN_ACCOUNT_IDS: ' 1000, 2000 ,' }).ADMIN_ACCOUNT_IDS).to.equal('1000,2000');
  });

  it('refuses in production no administrator, the placeholder administrator 1, and a placeholder bot name, naming each', () => {
    const production = {
      NODE_ENV: 'production',
      PORT: '0',
      MONGO_DB: 'x',
      MONGO_URL: 'mongodb://127.0.0.1:1/',
      AMQP_URL: 'amqp://127.0.0.1:1',
      REDIS_URL: 'redis://127.0.0.1:1',
      INTERNAL_SECRET: 'i'.repeat(40),
      PUBLIC_BASE_URL: 'https://pilot.example',
      TELEGRAM_WEBHOOK_SECRET: 'w'.repeat(40),
      TELEGRAM_BOT_USERNAME: 'pilot_real_bot',
      ADMIN_ACCOUNT_IDS: '123456789',
    };
    expect(loadConfig(production).ADMIN_ACCOUNT_IDS).to.equal('123456789');
    const refused = (extra: Record<string, string>) => {
      try {
        loadConfig({ ...production, ...extra });
      } catch (error) {
        return (error as ConfigError).variables;
      }
      return null;
    };
    expect(refused({ ADMIN_ACCOUNT_IDS: '' })).to.have.all.keys('ADMIN_ACCOUNT_IDS');
    expect(refused({ ADMIN_ACCOUNT_IDS: '1' })).to.have.all.keys('ADMIN_ACCOUNT_IDS');
    expect(refused({ TELEGRAM_BOT_USERNAME: 'change_me_bot' })).to.have.all.keys('TELEGRAM_BOT_USERNAME');
    expect(refused({ ADMIN_ACCOUNT_IDS: '1', TELEGRAM_BOT_USERNAME: 'change_me_bot' })).to.have.all.keys('ADMIN_ACCOUNT_IDS', 'TELEGRAM_BOT_USERNAME');
    expect(refused({ ADMIN_ACCOUNT_IDS: '1,2' }), 'account 1 beside others is a real list').to.equal(null);
    // Outside production the local defaults stand.
    expect(loadConfig({ NODE_ENV: 'test', PORT: '0', MONGO_DB: 'x', ADMIN_ACCOUNT_IDS: '' }).TELEGRAM_BOT_USERNAME).to.equal('pilot_signin_bot');
  });
});
