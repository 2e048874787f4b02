import { ConfigError } from '@pilot/config';
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
});
