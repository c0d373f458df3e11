/**
 * Marking a watch customizable or not without a catalogue file (issue 30): `watchcat watch set-customizable REF
 * yes|no` and `PUT /admin/watches/REF/customizable`, each appending one WatchRevised that names only that field,
 * and nothing when the watch already is so.
 */
import { readable } from '../support/readable-events.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { watchcat } from '../audit/support/watchcat-run.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';
import { adminOverTinyCatalogue } from './support/admin-over-tiny-catalogue.ts';

const KEY = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';

describe('marking a watch customizable', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watchcat-customizable-'));
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(tinyCatalogue()));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const lastEvent = (events: { type: string; data: unknown }[]) => events.at(-1)!;

  it('with the CLI: watch set-customizable REF no, then yes; again is a no-op', async () => {
    const env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', WATCHCAT_ACTOR: 'carol' };
    expect((await watchcat(env, 'import', join(dir, 'catalogue.json'))).code).to.equal(0);
    const off = await watchcat(env, 'watch', 'set-customizable', 'aur-lu-001', 'no');
    expect(off.code, off.notes.join('\n')).to.equal(0);
    expect(off.out[0]).to.match(/^watch AUR-LU-001 marked not customizable at position \d+$/);
    const again = await watchcat(env, 'watch', 'set-customizable', 'AUR-LU-001', 'no');
    expect(again.out).to.deep.equal(['watch AUR-LU-001 is already not customizable; nothing changed']);
    const on = await watchcat(env, 'watch', 'set-customizable', 'AUR-LU-001', 'yes');
    expect(on.out[0]).to.match(/^watch AUR-LU-001 marked customizable at position \d+$/);
    const store = openSqliteEventStore(join(dir, 'data', 'events.sqlite3'));
    try {
      const events = readable(await store.readStream('watch-AUR-LU-001'));
      // The import and the changes name the person who ran them.
      expect(events.map((event) => event.metadata.actor)).to.deep.equal(['watchcat-cli:carol', 'watchcat-cli:carol', 'watchcat-cli:carol']);
      const revisions = events.filter((event) => event.type === 'WatchRevised');
      expect(revisions.map((event) => event.data)).to.deep.equal([
        { reference: 'AUR-LU-001', customizable: false }, { reference: 'AUR-LU-001', customizable: true },
      ]);
    } finally {
      await store.close();
    }
    const bad = await watchcat(env, 'watch', 'set-customizable', 'AUR-LU-001', 'maybe');
    expect(bad.code).to.equal(2);
  });

  it('with the admin API: PUT /admin/watches/REF/customizable {customizable}', async () => {
    const { store, call, close } = await adminOverTinyCatalogue(KEY);
    const put = (body: unknown) => call('PUT', '/admin/watches/aur-lu-001/customizable', body);
    try {
      const done = await put({ customizable: false });
      expect(done.status).to.equal(200);
      expect(((await done.json()) as { position: number }).position).to.equal(await store.headPosition());
      expect(lastEvent(readable(await store.readStream('watch-AUR-LU-001')))).to.deep.include({ type: 'WatchRevised', data: { reference: 'AUR-LU-001', customizable: false } });
      const bad = await put({ customizable: 'maybe' });
      expect(bad.status).to.equal(422);
      expect(((await bad.json()) as { detail: { loc: string[] }[] }).detail.map((found) => found.loc)).to.deep.equal([['body', 'customizable']]);
    } finally {
      await close();
    }
  });
});
