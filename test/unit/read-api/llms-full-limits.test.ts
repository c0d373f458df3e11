/**
 * `/llms-full.txt` is "the complete reference: every operation, parameter, error and limit" (docs/api.md, "Around the
 * operations"): every rate limit a client can meet is in it, with the figure the deployment is configured with, and the
 * 429 body each gives. Settings chosen apart from the defaults, so a figure written in the text cannot pass for them.
 * On main at 7ad5f72 the verifications' budget shared by all clients (VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE), whose 429
 * says `Rate limit exceeded: 600 per 1 minute`, was missing from it.
 */
import { expect } from 'chai';
import { loadConfig } from '../../../shared/config/config.ts';
import { publicOperations } from '../../../shared/read-model/public-api/operations/index.ts';
import { buildLlmsFullTxt } from '../../../read-api/discovery/llms-full-txt.ts';

describe('llms-full.txt: the limits', () => {
  const config = loadConfig({
    RATE_LIMIT_PER_MINUTE: '61', VERIFY_RATE_LIMIT_PER_MINUTE: '11', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '601', FILE_RATE_LIMIT_PER_MINUTE: '1201',
  });
  const text = buildLlmsFullTxt(publicOperations, config);
  const limits = text.slice(text.indexOf('\n## Limits\n'), text.indexOf('\n## ', text.indexOf('\n## Limits\n') + 1));

  it('states every limit with its configured figure', () => {
    expect(limits).to.match(/^- 61 requests per minute per client IP/m);
    expect(limits).to.match(/^- 11 serial verifications per minute per client IP/m);
    expect(limits).to.match(/^- 601 serial verifications per minute over all clients together/m);
    expect(limits).to.match(/^- 1201 requests per minute per client IP to the other files/m);
  });

  it('gives the 429 body of each limit of the operations', () => {
    const errors = text.slice(text.indexOf('\n## Errors\n'));
    const refusal = errors.split('\n').find((line) => line.startsWith('- 429 '))!;
    expect(refusal).to.include('"Rate limit exceeded: 61 per 1 minute"');
    for (const figure of [11, 601]) expect(refusal).to.include(`${figure} per 1 minute`);
  });
});
