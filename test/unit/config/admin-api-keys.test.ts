import { expect } from 'chai';
import { parseAdminKeyEntries } from '../../../shared/config/admin-api-keys.ts';

// Mutation survivors of issue 31: what an operator is told about ADMIN_API_KEYS at start.
const KEY = 'a3f1c9e07b5d2846a3f1c9e07b5d2846'; // 32 characters, no placeholder

describe('ADMIN_API_KEYS entries', () => {
  it('names an entry without a key as not key:scope, listing the scopes separated by "or"', () => {
    for (const spec of ['catalogue', ':catalogue']) {
      expect(() => parseAdminKeyEntries(spec), spec)
        .to.throw(/^ADMIN_API_KEYS: entry 1 is not key:scope with scope catalogue or serials or audit \(/);
    }
  });

  it('ignores blank entries, such as a trailing comma followed by a space', () => {
    expect(parseAdminKeyEntries(`${KEY}:catalogue, `).map(({ key, scopes }) => [key, [...scopes]]))
      .to.deep.equal([[KEY, ['catalogue']]]);
  });
});
