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
    const file = tinyCatalogue() as unknown as {
      watches: Record<string, unknown>[]; serials: Record<string, unknown>[]; configurators: { accessories: Record<string, unknown>[] }[];
    };
    file.watches[0]!['stock_status'] = 'plenty';
    file.watches[0]!['colour'] = 'red';
    // An accessory's key the file format does not know: refused as a watch's is, not dropped from the import.
    file.configurators[0]!.accessories[0]!['colour'] = 'red';
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
      'configurators[0].accessories[0].colour: Extra inputs are not permitted; expected an object {code, label, unit_price_cents, max_quantity}',
    ]);
    expect(result.notes).to.deep.equal([`watchcat: cannot read catalogue file ${join(dir, 'catalogue.json')}: 5 problems (listed above)`]);
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

  // What the deciders refuse and a schema cannot say (services/write/domain/texts.ts, years.ts): --check says it at
  // its place in the file, and the import refuses the file before it opens a store, as for any other problem.
  it('reports a text blank once trimmed and a manufacture year in the future at their places, as the import refuses them', async () => {
    const file = tinyCatalogue();
    file.collections[0]!.description = { en: '   ', fr: 'Montres habillées' };
    file.watches[0]!.seo.title = { en: 'Lumière Classic', fr: '\t ' };
    file.watches[1]!.name = { en: ' ', fr: 'Lumière Lune' };
    file.configurators[0]!.categories.dial![1]!.label = { en: 'Black', fr: '  ' };
    file.configurators[0]!.accessories[0]!.label = { en: '\n', fr: 'Bracelet de rechange' };
    // The latest year begun anywhere is the year at UTC+14 (docs/api.md, "Refusals of the decision").
    const latest = new Date(Date.now() + 14 * 3_600_000).getUTCFullYear();
    file.serials[1]!.manufacture_year = latest + 1;
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(file));
    const blank = 'Text is blank once trimmed; expected a text with a character other than whitespace';
    const expected = [
      `collections[0].description.en: ${blank}`,
      `watches[0].seo.title.fr: ${blank}`,
      `watches[1].name.en: ${blank}`,
      `configurators[0].categories.dial[1].label.fr: ${blank}`,
      `configurators[0].accessories[0].label.en: ${blank}`,
      `serials[1].manufacture_year: ${latest + 1} is in the future: the latest year begun anywhere is ${latest}; expected a whole year from 1800 to ${latest}`,
    ];
    const checked = await watchcat({ DATA_DIR: join(dir, 'data') }, 'import', '--check', join(dir, 'catalogue.json'));
    expect(checked.code).to.equal(1);
    expect(checked.out).to.have.members(expected);
    expect(checked.notes).to.deep.equal([`watchcat: cannot read catalogue file ${join(dir, 'catalogue.json')}: 6 problems (listed above)`]);

    const imported = await watchcat({ DATA_DIR: join(dir, 'data') }, 'import', join(dir, 'catalogue.json'));
    expect(imported.code).to.equal(1);
    expect(imported.notes.slice(0, -1)).to.have.members(expected);
    expect(await readdir(dir), 'no store opened').to.deep.equal(['catalogue.json']);
  });

  it('reports a configurator category that is not one of the eleven, which the import would otherwise leave out', async () => {
    const file = tinyCatalogue() as unknown as { configurators: { categories: Record<string, unknown> }[] };
    file.configurators[0]!.categories['strap'] = [{ code: 'leather', label: { en: 'Leather', fr: 'Cuir' }, price_cents: 0 }];
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(file));
    const result = await watchcat({ DATA_DIR: join(dir, 'data') }, 'import', '--check', join(dir, 'catalogue.json'));
    expect(result.code).to.equal(1);
    expect(result.out).to.deep.equal([
      'configurators[0].categories.strap: Extra inputs are not permitted; expected an object '
        + '{case?, dial?, lugs?, crown?, case_back?, engraving?, movement?, rehaut?, bracelet?, tachymeter?, pushers?}',
    ]);
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
