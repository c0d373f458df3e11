/**
 * A large catalogue body posted to the admin import is checked in a worker thread (services/admin/catalogue-check.ts),
 * so that the public API of the same process is not held up (test/reliability/bounded-errors.test.ts). The answer
 * is the one the check in the event loop gives: the same 422 for a body that fails, the same file for one that passes.
 */
import { expect } from 'chai';
import { checkDocument } from '../../services/admin/admin-bodies.ts';
import { checkedCatalogueFile, IN_LOOP_CHARACTERS } from '../../services/admin/catalogue-check.ts';
import { CatalogueFile } from '../../services/catalogue/catalogue-file.ts';
import { RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';

const JSON_TYPE = 'application/json';

/** The issues `check` refuses `text` with, or undefined when it passes it. */
async function refusal(check: () => Promise<unknown>): Promise<unknown[] | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    if (error instanceof RequestValidationError) return error.issues;
    throw error;
  }
}

describe('the admin import\'s check of a large catalogue body', function () {
  this.timeout(60_000);

  it('refuses a body above the in-loop length with the 422 the in-loop check gives, bounded', async () => {
    const entries = Math.ceil(IN_LOOP_CHARACTERS / 3) + 1_000;
    const text = `{"watches":[${'{},'.repeat(entries - 1)}{}],"collections":[],"configurators":[],"serials":[]}`;
    expect(text.length).to.be.above(IN_LOOP_CHARACTERS);
    const inLoop = await refusal(() => checkDocument(CatalogueFile, JSON.parse(text)));
    const checked = await refusal(() => checkedCatalogueFile(text, JSON_TYPE));
    expect(inLoop).to.have.length(51);
    expect(checked).to.deep.equal(inLoop);
  });

  it('refuses malformed JSON above the in-loop length as json_invalid, at its offset', async () => {
    const text = `{"watches":[${'{},'.repeat(IN_LOOP_CHARACTERS / 3)}{]}`;
    const [found] = (await refusal(() => checkedCatalogueFile(text, JSON_TYPE))) as { type: string; loc: unknown[] }[];
    expect(found).to.deep.include({ type: 'json_invalid', loc: ['body', text.length - 2] });
  });

  it('passes a valid file above the in-loop length, as decoded from its text', async () => {
    const serials = Array.from({ length: Math.ceil(IN_LOOP_CHARACTERS / 60) }, (_, i) => ({
      serial: `AUR-2020-${String(i).padStart(6, '0')}`, reference: 'RG-100', manufacture_year: 2020,
    }));
    const text = JSON.stringify({ collections: [], watches: [], configurators: [], serials });
    expect(text.length).to.be.above(IN_LOOP_CHARACTERS);
    expect(await checkedCatalogueFile(text, JSON_TYPE)).to.deep.equal(JSON.parse(text));
  });
});
