/**
 * The catalogue file for people who write one (issue 30): `watchcat import --check FILE` reports every problem at
 * once, each with its place in the file and what the field takes (issue 44), and opens no store;
 * `watchcat import --schema` prints the published JSON Schema (services/catalogue/catalogue-file.schema.json), which
 * a separate Ajv checks catalogue files with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { demoCatalogue } from '../../services/demo/demo-catalogue.ts';
import { watchcat } from '../audit/support/watchcat-run.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

const PUBLISHED = 'services/catalogue/catalogue-file.schema.json';

describe('catalogue file: import --check and the published JSON Schema', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'watchcat-check-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reports every problem of a file at once, each with its place and what the field takes, and opens no store', async () => {
    const file = tinyCatalogue() as unknown as { watches: Record<string, unknown>[]; serials: Record<string, unknown>[] };
    file.watches[0]!['stock_status'] = 'plenty';
    file.watches[0]!['colour'] = 'red';
    delete file.watches[1]!['price_cents'];
    file.serials[0]!['manufacture_year'] = 1700;
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(file));
    const data = join(dir, 'data');
    const result = await watchcat({ DATA_DIR: data }, 'import', '--check', join(dir, 'catalogue.json'));
    expect(result.code).to.equal(1);
    // Said as `watch create` and the admin API say them: the place, then what the field takes (issue 44, item 5).
    expect(result.out).to.have.members([
      'watches[0].colour: Extra inputs are not permitted; expected an object {reference, collection, name, short_description, description, '
        + 'specifications, images, features, seo, manufacture, customizable, price_cents, stock_status}',
      "watches[0].stock_status: Input should be 'in_stock', 'low_stock', 'out_of_stock' or 'made_to_order'",
      'watches[1].price_cents: Field required; expected a whole JSON number at least 1 and at most 10000000000',
      'serials[0].manufacture_year: Input should be greater than or equal to 1800',
    ]);
    expect(result.notes).to.deep.equal([`watchcat: cannot read catalogue file ${join(dir, 'catalogue.json')}: 4 problems (listed above)`]);
    expect(existsSync(data)).to.equal(false);
  });

  it('refuses to import a file with problems before it opens a store, saying each as --check does', async () => {
    const file = tinyCatalogue() as unknown as { watches: Record<string, unknown>[] };
    file.watches[0]!['name'] = 'Lumière';
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(file));
    const result = await watchcat({ DATA_DIR: join(dir, 'data') }, 'import', join(dir, 'catalogue.json'));
    expect(result.code).to.equal(1);
    expect(result.notes).to.deep.equal([
      'watches[0].name: Input should be a valid dictionary; expected an object {en, fr}',
      `watchcat: cannot read catalogue file ${join(dir, 'catalogue.json')}: 1 problem (listed above)`,
    ]);
    expect(await readdir(dir)).to.deep.equal(['catalogue.json']);
  });

  it('says a good file is valid, with what it holds, and still opens no store', async () => {
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(tinyCatalogue()));
    const result = await watchcat({ DATA_DIR: join(dir, 'data') }, 'import', '--check', join(dir, 'catalogue.json'));
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.out).to.deep.equal([`${join(dir, 'catalogue.json')}: a valid catalogue file (1 collections, 2 watches, 1 configurators, 2 serials)`]);
    expect(await readdir(dir)).to.deep.equal(['catalogue.json']);
  });

  it('prints the published JSON Schema, which accepts the demo and tiny catalogues and refuses a bad one', async () => {
    const printed = await watchcat({ DATA_DIR: join(dir, 'data') }, 'import', '--schema');
    expect(printed.code).to.equal(0);
    const published = readFileSync(PUBLISHED, 'utf8');
    expect(`${printed.out.join('\n')}\n`, `${PUBLISHED} is out of date: write it again with \`watchcat import --schema\``).to.equal(published);
    const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(published) as object);
    expect(validate(demoCatalogue()), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate(tinyCatalogue())).to.equal(true);
    expect(validate({ ...tinyCatalogue(), extra: [] })).to.equal(false);
  });
});
