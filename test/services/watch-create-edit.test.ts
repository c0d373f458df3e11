/**
 * One watch added and edited without a catalogue file (issue 30): `watchcat watch create --file FILE` publishes the
 * watch a JSON file describes (the catalogue file's watch, its price in euros), flags laid over it, and `watchcat
 * watch example` prints one to start from (issue 44); `watchcat watch edit REF FILE` changes the texts and details a
 * file names; a bad file is refused with every problem, its place and what the field takes, and appends nothing. The
 * admin API does the same with `POST /admin/watches` and `PATCH /admin/watches/REF`, refusing in the contract's shape.
 */
import { readable } from '../support/readable-events.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { aWatch } from '../unit/services/support/builders.ts';
import { watchcat } from '../audit/support/watchcat-run.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';
import { adminOverTinyCatalogue } from './support/admin-over-tiny-catalogue.ts';
import { NewWatch } from '../../services/catalogue/watch-entry.ts';
import { demoCatalogue } from '../../services/demo/demo-catalogue.ts';

describe('watchcat watch create and edit', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watchcat-watch-'));
    env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(tinyCatalogue()));
    expect((await watchcat(env, 'import', join(dir, 'catalogue.json'))).code).to.equal(0);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function headOf() {
    const store = openSqliteEventStore(join(dir, 'data', 'events.sqlite3'));
    try {
      return await store.headPosition();
    } finally {
      await store.close();
    }
  }

  async function streamOf(reference: string) {
    const store = openSqliteEventStore(join(dir, 'data', 'events.sqlite3'));
    try {
      return readable(await store.readStream(`watch-${reference}`));
    } finally {
      await store.close();
    }
  }

  it('publishes a watch from a file with its price in euros, then edits its name and marks it not customizable', async () => {
    const { price_cents: _cents, ...described } = aWatch({ reference: 'AUR-LU-003', name: { en: 'Lumière Three', fr: 'Lumière Trois' } });
    await writeFile(join(dir, 'watch.json'), JSON.stringify({ ...described, price_eur: 15_250.5 }));
    const created = await watchcat(env, 'watch', 'create', join(dir, 'watch.json'));
    expect(created.code, created.notes.join('\n')).to.equal(0);
    expect(created.out[0]).to.match(/^watch AUR-LU-003 published at 15250.5 EUR, at position \d+$/);
    const [published] = await streamOf('AUR-LU-003');
    expect(published).to.deep.include({ type: 'WatchPublished' });
    expect(published!.data).to.deep.include({ reference: 'AUR-LU-003', price_cents: 1_525_050 });

    await writeFile(join(dir, 'edit.json'), JSON.stringify({ name: { en: 'Lumière III', fr: 'Lumière III' }, customizable: false }));
    const edited = await watchcat(env, 'watch', 'edit', 'aur-lu-003', join(dir, 'edit.json'));
    expect(edited.code, edited.notes.join('\n')).to.equal(0);
    expect(edited.out[0]).to.match(/^watch AUR-LU-003 revised at position \d+$/);
    expect((await streamOf('AUR-LU-003')).at(-1)).to.deep.include({
      type: 'WatchRevised', data: { reference: 'AUR-LU-003', name: { en: 'Lumière III', fr: 'Lumière III' }, customizable: false },
    });
  });

  it('refuses a bad watch file with every problem, its place and what the field takes, and appends nothing (issue 44, item 5)', async () => {
    const { price_cents: _cents, ...described } = aWatch({ reference: 'AUR-LU-004' });
    await writeFile(join(dir, 'watch.json'), JSON.stringify({
      ...described, name: 'Lumière Four', stock_status: 'plenty', price_eur: '12 500', colour: 'red',
      images: [{ ...described.images[0], role: 'side' }],
    }));
    const refused = await watchcat(env, 'watch', 'create', '--file', join(dir, 'watch.json'));
    expect(refused.code).to.equal(1);
    const file = join(dir, 'watch.json');
    expect(refused.notes.slice(0, -1)).to.have.members([
      `${file}: name: Input should be a valid dictionary; expected an object {en, fr}`,
      `${file}: images[0].role: Input should be 'main', 'gallery', 'detail' or 'wrist'`,
      `${file}: stock_status: Input should be 'in_stock', 'low_stock', 'out_of_stock' or 'made_to_order'`,
      `${file}: price_eur: Input should be a valid number; expected a JSON number above 0 and at most 100000000 (euros, at most two decimals), `
        + 'not a string: write 12500 without quotes or spaces',
      `${file}: colour: Extra inputs are not permitted; expected an object {reference, collection, name, short_description, description, `
        + 'specifications, images, features, seo, manufacture, customizable, stock_status, price_eur}',
    ]);
    expect(refused.notes.at(-1)).to.equal('watchcat: watch not published: 5 problems (listed above); `watchcat watch example` prints a complete watch file to start from');
    expect(await streamOf('AUR-LU-004')).to.deep.equal([]);
  });

  it('prints with `watch example` a complete watch file that `watch create --file` publishes unchanged', async () => {
    const example = await watchcat(env, 'watch', 'example');
    expect(example.code, example.notes.join('\n')).to.equal(0);
    const file = join(dir, 'example.json');
    await writeFile(file, `${example.out.join('\n')}\n`);
    const created = await watchcat(env, 'watch', 'create', '--file', file);
    expect(created.code, created.notes.join('\n')).to.equal(0);
    const { price_eur, ...described } = JSON.parse(example.out.join('\n')) as Record<string, unknown> & { price_eur: number; reference: string };
    const [published] = await streamOf(described.reference);
    expect(published).to.deep.include({ type: 'WatchPublished', data: { ...described, price_cents: Math.round(price_eur * 100) } });
    // Every field a watch takes is in it, the optional workshop of its manufacture included.
    expect(Object.keys(described).length + 1).to.equal(Object.keys(NewWatch.properties).length);
    expect(described).to.have.nested.property('manufacture.workshop');
  });

  it('gives the example a collection of the demo catalogue and a reference none of its watches has, so it publishes there too', async () => {
    const example = JSON.parse((await watchcat(env, 'watch', 'example')).out.join('\n')) as { reference: string; collection: string };
    const demo = demoCatalogue();
    expect(demo.collections.map((collection) => collection.code)).to.include(example.collection);
    expect(demo.watches.map((watch) => watch.reference)).not.to.include(example.reference);
  });

  it('lays the flags over the file: a second watch from the example with its own reference, names, price and stock', async () => {
    const file = join(dir, 'example.json');
    await writeFile(file, (await watchcat(env, 'watch', 'example')).out.join('\n'));
    const created = await watchcat(env, 'watch', 'create', '--file', file, '--reference', 'aur-dr-102', '--name-en', 'Lumière Opaline Green',
      '--name-fr', 'Lumière Opaline Verte', '--price', '15250.50', '--stock', 'low_stock', '--customizable', 'no');
    expect(created.code, created.notes.join('\n')).to.equal(0);
    expect(created.out[0]).to.match(/^watch AUR-DR-102 published at 15250.5 EUR, at position \d+$/);
    const [published] = await streamOf('AUR-DR-102');
    expect(published!.data).to.deep.include({
      reference: 'AUR-DR-102', name: { en: 'Lumière Opaline Green', fr: 'Lumière Opaline Verte' }, price_cents: 1_525_050,
      stock_status: 'low_stock', customizable: false, collection: 'lumiere',
    });
  });

  it('names, for a watch given by flags alone, each missing field, what it takes and the flags that give it; appends nothing', async () => {
    const head = await headOf();
    const refused = await watchcat(env, 'watch', 'create', '--reference', 'AUR-LU-009', '--name-en', 'Lumière Nine', '--price', '9000');
    expect(refused.code).to.equal(1);
    expect(refused.notes).to.include.members([
      'name.fr: Field required; expected a non-empty text of at most 5000 characters (--name-fr)',
      'collection: Field required; expected a text matching ^[a-z0-9][a-z0-9-]{0,39}$ (--collection)',
      'short_description: Field required; expected an object {en, fr} (--short-description-en, --short-description-fr)',
      'manufacture: Field required; expected an object {name, origin, workshop?}',
    ]);
    expect(refused.notes.at(-1)).to.match(/^watchcat: watch not published: 11 problems \(listed above\); `watchcat watch example` prints/);
    expect(await headOf()).to.equal(head);
  });
});

describe('admin API: POST /admin/watches and PATCH /admin/watches/REF', () => {
  const KEY = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';

  it('publishes a watch with its price in euros, revises its texts, and refuses a bad document in the contract\'s shape', async () => {
    const { store, call, close } = await adminOverTinyCatalogue(KEY);
    try {
      const { price_cents: _cents, ...described } = aWatch({ reference: 'AUR-LU-005' });
      const created = await call('POST', '/admin/watches', { ...described, price_eur: 9_999.99 });
      expect(created.status, await created.clone().text()).to.equal(201);
      expect((readable(await store.readStream('watch-AUR-LU-005')))[0]!.data).to.deep.include({ reference: 'AUR-LU-005', price_cents: 999_999 });

      const revised = await call('PATCH', '/admin/watches/aur-lu-005', { short_description: { en: 'Small', fr: 'Petite' } });
      expect(revised.status).to.equal(200);
      expect((readable(await store.readStream('watch-AUR-LU-005'))).at(-1)).to.deep.include({
        type: 'WatchRevised', data: { reference: 'AUR-LU-005', short_description: { en: 'Small', fr: 'Petite' } },
      });

      const head = await store.headPosition();
      const bad = await call('POST', '/admin/watches', { ...described, reference: 'AUR-LU-006', images: [], stock_status: 'plenty', price_eur: 1, colour: 'red' });
      expect(bad.status).to.equal(422);
      const { detail } = (await bad.json()) as { detail: { type: string; loc: unknown[]; msg: string }[] };
      expect(detail.map((found) => [found.type, found.loc])).to.have.deep.members([
        ['too_short', ['body', 'images']],
        ['literal_error', ['body', 'stock_status']],
        ['extra_forbidden', ['body', 'colour']],
      ]);
      expect(detail.find((found) => found.type === 'literal_error')!.msg).to.equal("Input should be 'in_stock', 'low_stock', 'out_of_stock' or 'made_to_order'");
      expect(await store.headPosition()).to.equal(head);

      // A revision with a key it does not know (a typo of a field, a field it cannot change) is refused at that key,
      // not applied without it: the edit the sender meant would silently not be made.
      const misspelt = await call('PATCH', '/admin/watches/aur-lu-005', { short_descripton: { en: 'Tiny', fr: 'Minuscule' }, price_eur: 1 });
      expect(misspelt.status).to.equal(422);
      const refused = (await misspelt.json()) as { detail: { type: string; loc: unknown[] }[] };
      expect(refused.detail.map((found) => [found.type, found.loc])).to.have.deep.members([
        ['extra_forbidden', ['body', 'short_descripton']],
        ['extra_forbidden', ['body', 'price_eur']],
      ]);
      expect(await store.headPosition()).to.equal(head);
    } finally {
      await close();
    }
  });
});
