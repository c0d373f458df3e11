/**
 * `watchcat import FILE` and `watchcat watch edit REF FILE` write a file's texts into the catalogue. A file saved in
 * Latin-1 (or Windows-1252) by an operator's editor used to be read as UTF-8 regardless: every accented letter became
 * U+FFFD in the events, and the command exited 0. JSON is UTF-8 (RFC 8259, section 8.1): such a file is refused,
 * saying so, and nothing is appended.
 */
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { watchcat } from '../audit/support/watchcat-run.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

/** `text` as JSON in Latin-1: one byte per character, so `è` is 0xE8, which is not UTF-8. */
const latin1 = (value: unknown) => Buffer.from(JSON.stringify(value), 'latin1');

describe('watchcat: files are read as UTF-8', () => {
  let dir: string;
  let env: Record<string, string>;
  const head = async () => {
    const store = openSqliteEventStore(join(dir, 'data', 'events.sqlite3'));
    try {
      return await store.headPosition();
    } finally {
      await store.close();
    }
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watchcat-encoding-'));
    env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(tinyCatalogue()));
    expect((await watchcat(env, 'import', join(dir, 'catalogue.json'))).code).to.equal(0);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses a Latin-1 catalogue file (exit 1, one line saying so) and appends nothing', async () => {
    const before = await head();
    const file = tinyCatalogue();
    file.collections[0] = { ...file.collections[0]!, description: { en: 'Thin gold dress watches.', fr: 'Montres habillées, très plates.' } };
    const path = join(dir, 'latin1-catalogue.json');
    await writeFile(path, latin1(file));
    const imported = await watchcat(env, 'import', path);
    expect(imported.code, imported.notes.join('\n')).to.equal(1);
    expect(imported.notes.at(-1)).to.equal(`watchcat: cannot read catalogue file ${path}: not UTF-8 (save the file as UTF-8)`);
    expect(await head()).to.equal(before);
  });

  it('refuses a Latin-1 watch file for `watch edit`, and appends nothing', async () => {
    const before = await head();
    const path = join(dir, 'latin1-edit.json');
    await writeFile(path, latin1({ name: { en: 'Lumière', fr: 'Lumière' } }));
    const edited = await watchcat(env, 'watch', 'edit', 'AUR-LU-001', path);
    expect(edited.code, edited.notes.join('\n')).to.equal(1);
    expect(edited.notes.at(-1)).to.equal(`watchcat: cannot read watch file ${path}: not UTF-8 (save the file as UTF-8)`);
    expect(await head()).to.equal(before);
  });
});
