/**
 * `If-None-Match` as RFC 9110 (section 13.1.2) compares it for a GET (read-api/cache/rendered-answer.ts): weakly,
 * so `W/"x"` matches `"x"`; only `W/` marks a weak tag, and any other prefix makes a tag that matches nothing.
 */
import { expect } from 'chai';
import { matchesIfNoneMatch } from '../../../read-api/cache/rendered-answer.ts';

describe('If-None-Match comparison', () => {
  const etag = '"abc"';

  it('matches the tag weakly, alone or in a list', () => {
    expect(matchesIfNoneMatch('W/"abc"', etag)).to.equal(true);
    expect(matchesIfNoneMatch('"other", W/"abc"', etag)).to.equal(true);
  });

  it('matches nothing with a prefix other than W/', () => {
    for (const header of ['X/"abc"', 'w/"abc"', '"other", X/"abc"']) expect(matchesIfNoneMatch(header, etag), header).to.equal(false);
  });
});
