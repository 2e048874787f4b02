import { ConfigError } from '@pilot/platform';
import { runServiceMain } from '@pilot/testkit';
import { expect } from 'chai';
import { loadConfig } from '../src/config';

describe('placement configuration', () => {
  it('refuses to start naming a missing required setting', async () => {
    const result = await runServiceMain('placement', { NODE_ENV: 'test', PORT: '0' });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('MONGO_DB is required but missing');
  });

  it('names every missing setting and requires infrastructure URLs in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).to.throw(ConfigError).with.property('variables').that.has.all.keys(
      'PORT',
      'MONGO_DB',
      'MONGO_URL',
      'AMQP_URL',
      'REDIS_URL',
      'INTERNAL_SECRET',
      'PUBLIC_BASE_URL',
    );
  });

  it('refuses an impression limit that is not a number', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', PORT: '0', MONGO_DB: 'x', IMPRESSION_LIMIT_POINTS: 'many' })).to.throw(/IMPRESSION_LIMIT_POINTS/);
  });
});
