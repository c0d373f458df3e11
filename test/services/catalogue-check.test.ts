/**
 * The catalogue file for people who write one (issue 30): `watchcat import --check FILE` reports every problem at
 * once, each with its path in the file and the allowed values or the stray property, and opens no store;
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

  it('reports every problem of a file at once, each with its path, and opens no store', async () => {
    const file = tinyCatalogue() as unknown as { watches: Record<string, unknown>[]; serials: Record<string, unknown>[] };
    file.watches[0]!['stock_status'] = 'plenty';
    file.watches[0]!['colour'] = 'red';
    delete file.watches[1]!['price_cents'];
    file.serials[0]!['manufacture_year'] = 1700;
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(file));
    const data = join(dir, 'data');
    const result = await watchcat({ DATA_DIR: data }, 'import', '--check', join(dir, 'catalogue.json'));
    expect(result.code).to.equal(1);
    expect(result.out).to.have.members([
      '/watches/0/colour is not a property of this entry',
      '/watches/0/stock_status must be one of "in_stock", "low_stock", "out_of_stock", "made_to_order"',
      "/watches/1 must have required property 'price_cents'",
      '/serials/0/manufacture_year must be >= 1800',
    ]);
    expect(result.notes).to.deep.equal([`watchcat: cannot read catalogue file ${join(dir, 'catalogue.json')}: 4 problems (listed above)`]);
    expect(existsSync(data)).to.equal(false);
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
