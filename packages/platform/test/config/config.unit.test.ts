import { expect } from 'chai';
import { ConfigError, httpSettings, listenPort, loadConfig, mongoSettings, num, parseIdList, redisSettings, redisTargetOf, str, systemClock, url } from '../../src/config';

function configErrorOf(work: () => unknown): ConfigError {
  try {
    work();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('config: loadConfig', () => {
  it('returns the typed values of a complete environment', () => {
    const config = loadConfig({ NAME: str(), COUNT: num(), SITE: url() }, { NAME: 'pilot', COUNT: '3', SITE: 'https://example.org' });
    expect(config.NAME).to.equal('pilot');
    expect(config.COUNT).to.equal(3);
    expect(config.SITE).to.equal('https://example.org');
  });

  it('stops with a ConfigError naming a missing variable', () => {
    const error = configErrorOf(() => loadConfig({ MONGO_DB: str() }, {}));
    expect(error.variables).to.deep.equal({ MONGO_DB: 'is required but missing' });
    expect(error.message).to.contain('MONGO_DB is required but missing');
    expect(error.name).to.equal('ConfigError');
  });

  it('names every missing and invalid variable at once', () => {
    const error = configErrorOf(() => loadConfig({ A: str(), B: num(), C: url(), D: str() }, { B: 'many', C: 'not a url', D: 'fine' }));
    expect(Object.keys(error.variables).sort()).to.deep.equal(['A', 'B', 'C']);
    expect(error.variables.A).to.equal('is required but missing');
    expect(error.variables.B).to.match(/^is invalid/);
    expect(error.variables.C).to.match(/^is invalid/);
    expect(error.message).to.contain('A ').and.to.contain('B ').and.to.contain('C ');
  });

  it('refuses a value outside the allowed choices', () => {
    const error = configErrorOf(() => loadConfig({ LOG_LEVEL: httpSettings.LOG_LEVEL }, { LOG_LEVEL: 'loud' }));
    expect(error.variables.LOG_LEVEL).to.match(/^is invalid/);
  });

  it('uses a devDefault outside production', () => {
    const config = loadConfig({ INTERNAL_SECRET: httpSettings.INTERNAL_SECRET, MONGO_URL: mongoSettings.MONGO_URL }, { NODE_ENV: 'development' });
    expect(config.INTERNAL_SECRET).to.be.a('string').and.not.empty;
    expect(config.MONGO_URL).to.match(/^mongodb:\/\//);
    const underTest = loadConfig({ INTERNAL_SECRET: httpSettings.INTERNAL_SECRET }, { NODE_ENV: 'test' });
    expect(underTest.INTERNAL_SECRET).to.equal(config.INTERNAL_SECRET);
  });

  it('never uses a devDefault under NODE_ENV=production', () => {
    const error = configErrorOf(() =>
      loadConfig({ INTERNAL_SECRET: httpSettings.INTERNAL_SECRET, MONGO_URL: mongoSettings.MONGO_URL }, { NODE_ENV: 'production' }),
    );
    expect(Object.keys(error.variables).sort()).to.deep.equal(['INTERNAL_SECRET', 'MONGO_URL']);
  });

  it('uses a plain default in every environment', () => {
    const config = loadConfig({ HOST: httpSettings.HOST }, { NODE_ENV: 'production' });
    expect(config.HOST).to.equal('127.0.0.1');
  });

  it('reads values from process.env when no environment is given', () => {
    const name = `PILOT_CONFIG_TEST_${process.pid}`;
    process.env[name] = 'from-process';
    try {
      expect(loadConfig({ [name]: str() })[name]).to.equal('from-process');
    } finally {
      delete process.env[name];
    }
  });
});

describe('config: listenPort', () => {
  const portOf = (raw: string) => loadConfig({ PORT: listenPort() }, { PORT: raw }).PORT;

  it('accepts 0 (any free port, for tests) and the full range up to 65535', () => {
    expect(portOf('0')).to.equal(0);
    expect(portOf('8101')).to.equal(8101);
    expect(portOf('65535')).to.equal(65535);
  });

  it('refuses a port above 65535, a negative or fractional number and text', () => {
    for (const raw of ['65536', '-1', '80.5', 'http', '', '123456']) {
      const error = configErrorOf(() => portOf(raw));
      expect(Object.keys(error.variables), raw).to.deep.equal(['PORT']);
    }
  });

  it('is required by the shared HTTP settings', () => {
    const error = configErrorOf(() => loadConfig(httpSettings, { NODE_ENV: 'test' }));
    expect(error.variables).to.have.key('PORT');
  });
});

describe('config: parseIdList', () => {
  it('splits a comma-separated list, trimming spaces and dropping empty items', () => {
    expect([...parseIdList(' 1, 22 ,,333, ')]).to.deep.equal(['1', '22', '333']);
  });

  it('gives an empty set for an empty string', () => {
    expect(parseIdList('').size).to.equal(0);
  });

  it('keeps each id once', () => {
    expect([...parseIdList('5,5,6')]).to.deep.equal(['5', '6']);
  });
});

describe('config: systemClock', () => {
  it('tells the current time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).to.be.within(before, Date.now());
  });
});

describe('config: secrets in production', () => {
  const strong = 'f3a9c1d27be04e8a96d5b0c4e1f7a2d3';
  const spec = { INTERNAL_SECRET: httpSettings.INTERNAL_SECRET, TOKEN_SECRET: str(), NAME: str() };

  it('refuses the placeholders of the deployment examples, naming each setting', () => {
    const error = configErrorOf(() =>
      loadConfig(spec, { NODE_ENV: 'production', INTERNAL_SECRET: 'change-me-internal-secret', TOKEN_SECRET: 'change-me-token-secret', NAME: 'x' }),
    );
    expect(Object.keys(error.variables).sort()).to.deep.equal(['INTERNAL_SECRET', 'TOKEN_SECRET']);
    expect(error.variables.INTERNAL_SECRET).to.contain('placeholder').and.to.contain('openssl rand -hex 32');
    expect(error.message).to.contain('INTERNAL_SECRET is a placeholder');
  });

  it('refuses the development defaults, even when set explicitly and longer than 32 characters', () => {
    const error = configErrorOf(() =>
      loadConfig(spec, { NODE_ENV: 'production', INTERNAL_SECRET: 'local-only-internal-secret-0123456789', TOKEN_SECRET: 'local-only-token-secret-0123456789', NAME: 'x' }),
    );
    expect(Object.keys(error.variables).sort()).to.deep.equal(['INTERNAL_SECRET', 'TOKEN_SECRET']);
  });

  it('refuses a secret shorter than 32 characters', () => {
    const error = configErrorOf(() => loadConfig(spec, { NODE_ENV: 'production', INTERNAL_SECRET: strong, TOKEN_SECRET: strong.slice(0, 31), NAME: 'x' }));
    expect(error.variables).to.have.keys(['TOKEN_SECRET']);
    expect(error.variables.TOKEN_SECRET).to.contain('shorter than 32 characters');
  });

  it('accepts generated secrets of 32 characters or more in production', () => {
    const config = loadConfig(spec, { NODE_ENV: 'production', INTERNAL_SECRET: strong, TOKEN_SECRET: `${strong}${strong}`, NAME: 'x' });
    expect(config.TOKEN_SECRET).to.equal(`${strong}${strong}`);
  });

  it('leaves development and test runs their defaults and short secrets', () => {
    const config = loadConfig(spec, { NODE_ENV: 'test', TOKEN_SECRET: 'short', NAME: 'x' });
    expect(config.INTERNAL_SECRET).to.equal('local-only-internal-secret-0123456789');
    expect(config.TOKEN_SECRET).to.equal('short');
  });
});

describe('config: Redis through Sentinel', () => {
  const env = { REDIS_URL: 'redis://:secret@127.0.0.1:6379/2' };

  it('connects to REDIS_URL alone when no sentinels are set', () => {
    const config = loadConfig(redisSettings, env);
    expect(redisTargetOf(config)).to.deep.equal({ url: env.REDIS_URL });
  });

  it('reads the sentinels and the primary group they name', () => {
    const config = loadConfig(redisSettings, { ...env, REDIS_SENTINELS: 'redis-a:26379, [::1]:26380', REDIS_SENTINEL_NAME: 'pilot' });
    expect(redisTargetOf(config)).to.deep.equal({
      url: env.REDIS_URL,
      sentinels: [
        { host: 'redis-a', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      sentinelName: 'pilot',
    });
  });

  it('refuses a sentinel that is not host:port, and one setting without the other', () => {
    expect(configErrorOf(() => loadConfig(redisSettings, { ...env, REDIS_SENTINELS: 'redis-a', REDIS_SENTINEL_NAME: 'pilot' })).variables).to.have.property('REDIS_SENTINELS');
    expect(configErrorOf(() => loadConfig(redisSettings, { ...env, REDIS_SENTINELS: 'redis-a:99999', REDIS_SENTINEL_NAME: 'pilot' })).variables).to.have.property('REDIS_SENTINELS');
    expect(configErrorOf(() => loadConfig(redisSettings, { ...env, REDIS_SENTINELS: 'redis-a:26379' })).variables).to.deep.equal({ REDIS_SENTINEL_NAME: 'is required with REDIS_SENTINELS' });
    expect(configErrorOf(() => loadConfig(redisSettings, { ...env, REDIS_SENTINEL_NAME: 'pilot' })).variables).to.deep.equal({ REDIS_SENTINELS: 'is required with REDIS_SENTINEL_NAME' });
  });
});
