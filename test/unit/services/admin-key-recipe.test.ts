/**
 * Issue 44, item 4: the key recipe the README gives (and the one a keyless start prints) makes a key for each scope
 * the admin API asks for: `catalogue` and `serials` for the back office, `audit` for the transparency log's entries
 * at `/admin/transparency` (docs/api.md). Each recipe is run as written by bash, and what it makes is read the way the
 * service reads `ADMIN_API_KEYS` at start.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parseAdminKeyEntries } from '../../../shared/config/admin-api-keys.ts';
import { KEYLESS_ADMIN_WARNING } from '../../../services/admin/keyless-warning.ts';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
/** The scopes docs/api.md and the README name for the admin API's routes. */
const SCOPES = ['audit', 'catalogue', 'serials'];

/** Every `ADMIN_API_KEYS="..."` assignment of a text. */
const recipes = (text: string) => [...text.matchAll(/ADMIN_API_KEYS="[^"]*"/g)].map((match) => match[0]);

/** What bash makes of one recipe. */
const run = (recipe: string) => execFileSync('bash', ['-c', `${recipe}; printf %s "$ADMIN_API_KEYS"`], { encoding: 'utf8' });

describe('the admin key recipe of the README and of the keyless start', () => {
  it('appears in both places the README gives it, and in the keyless warning', () => {
    expect(recipes(README)).to.have.length(2);
    expect(recipes(KEYLESS_ADMIN_WARNING)).to.have.length(1);
  });

  for (const [where, text] of [['README.md', README], ['the keyless warning', KEYLESS_ADMIN_WARNING]] as const) {
    it(`in ${where}, makes keys the service accepts, one of its own for each of catalogue, serials and audit`, () => {
      for (const recipe of recipes(text)) {
        const entries = parseAdminKeyEntries(run(recipe));
        expect(entries.map((entry) => [...entry.scopes]).flat().sort(), recipe).to.deep.equal(SCOPES);
        expect(entries.every((entry) => entry.scopes.size === 1), 'one scope per key').to.equal(true);
      }
    });
  }
});
