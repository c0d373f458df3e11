import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.ts';

describe('configuration', () => {
  it('gives the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).to.include({ PORT: 3000, DATA_DIR: './data', RATE_LIMIT_PER_MINUTE: 60, VERIFY_RATE_LIMIT_PER_MINUTE: 10, TRUST_PROXY: false });
    expect(config.REDIS_URL).to.equal(undefined);
  });

  it('coerces numbers and booleans from the environment', () => {
    expect(loadConfig({ PORT: '8080', TRUST_PROXY: 'true' })).to.include({ PORT: 8080, TRUST_PROXY: true });
  });

  it('names every bad setting at once', () => {
    expect(() => loadConfig({ PORT: 'abc', RATE_LIMIT_PER_MINUTE: '0' })).to.throw(/PORT.*RATE_LIMIT_PER_MINUTE|RATE_LIMIT_PER_MINUTE.*PORT/);
  });
});
