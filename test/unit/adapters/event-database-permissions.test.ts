import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEventDatabase } from '../../../shared/adapters/sqlite/event-database.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('event database file permissions (issue 17, finding 8)', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'watchcat-perms-')); });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates the data directory 0700 and the event file, its WAL and shared memory 0600', () => {
    const dir = join(root, 'data');
    const file = join(dir, 'events.sqlite3');
    const db = openEventDatabase(file);
    try {
      db.prepare("INSERT INTO events (stream, revision, id, type, data, metadata, stream_hash, chain_hash) VALUES ('s', 0, 'e1', 't', '{}', '{}', x'00', x'00')").run();
      expect(modeOf(dir)).to.equal(0o700);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(path), path).to.equal(true);
        expect(modeOf(path), path).to.equal(0o600);
      }
    } finally {
      db.close();
    }
  });

  it('makes an event file left readable by others private when it opens it', () => {
    const file = join(root, 'events.sqlite3');
    writeFileSync(file, '', { mode: 0o644 });
    openEventDatabase(file).close();
    expect(modeOf(file)).to.equal(0o600);
  });
});
