import { expect } from 'chai';
import { createRateLimits } from '../../read-api/rate-limit/rate-limits.ts';
import { rateLimitBehaviour, silentLogger, testConfig } from './rate-limit-harness.ts';

describe('rate limits in process memory (no Redis)', () => {
  rateLimitBehaviour(() => (deps) => createRateLimits(deps));

  it('reports the memory mode', () => {
    expect(createRateLimits({ config: testConfig(), logger: silentLogger }).mode()).to.equal('memory');
  });
});
