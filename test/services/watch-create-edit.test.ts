/**
 * One watch added and edited without a catalogue file (issue 30): `watchcat watch create FILE` publishes the watch a
 * JSON file describes (the catalogue file's watch, its price in euros), `watchcat watch edit REF FILE` changes the
 * texts and details a file names; a bad file is refused with every problem and its path, and appends nothing. The
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

  it('refuses a bad watch file with every problem and its path, and appends nothing', async () => {
    const { price_cents: _cents, ...described } = aWatch({ reference: 'AUR-LU-004' });
    await writeFile(join(dir, 'watch.json'), JSON.stringify({ ...described, stock_status: 'plenty', price_eur: 0, colour: 'red' }));
    const refused = await watchcat(env, 'watch', 'create', join(dir, 'watch.json'));
    expect(refused.code).to.equal(1);
    const file = join(dir, 'watch.json');
    expect(refused.notes.slice(0, -1)).to.have.members([
      `${file}: /colour is not a property of this entry`,
      `${file}: /stock_status must be one of "in_stock", "low_stock", "out_of_stock", "made_to_order"`,
      `${file}: /price_eur must be > 0`,
    ]);
    expect(refused.notes.at(-1)).to.equal(`watchcat: cannot read watch file ${file}: 3 problems (listed above)`);
    expect(await streamOf('AUR-LU-004')).to.deep.equal([]);
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
    } finally {
      await close();
    }
  });
});
