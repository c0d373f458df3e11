import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { EventIdConflictError } from '../../shared/adapters/event-records.ts';
import { openEventStore } from '../../shared/adapters/event-store.factory.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { isUnreadable, streams } from '../../shared/ports/event-store.ts';
import { randomSerial, serialRecovered, serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { brokenHashPositions } from '../support/sqlite-hash-chain.ts';
import { eventStoreContract } from './event-store.contract.ts';

function temporaryDirectory(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'watchcat-sqlite-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

eventStoreContract('SQLite file', async () => {
  const { dir, remove } = temporaryDirectory();
  const file = join(dir, 'events.sqlite3');
  const store = openSqliteEventStore(file, { pollMs: 2 });
  return {
    store,
    openAnotherHandle: () => openSqliteEventStore(file, { pollMs: 2 }),
    dispose: async () => {
      await store.close();
      remove();
    },
  };
});

eventStoreContract('SQLite in memory', async () => {
  const store = openSqliteEventStore(':memory:');
  return { store, dispose: () => store.close() };
});

describe('SqliteEventStore specifics', function () {
  let dir: string;
  let remove: () => void;
  beforeEach(function () {
    ({ dir, remove } = temporaryDirectory());
  });
  afterEach(function () {
    remove();
  });

  it('creates the missing parent directory and answers head 0 while empty', async function () {
    const store = openSqliteEventStore(join(dir, 'a', 'b', 'events.sqlite3'));
    expect(await store.headPosition()).to.equal(0);
    expect(await store.readAll({ after: 0, limit: 10 })).to.deep.equal([]);
    await store.close();
  });

  it('keeps events across a close and a reopen of the file', async function () {
    const file = join(dir, 'events.sqlite3');
    const serial = randomSerial();
    const first = openSqliteEventStore(file);
    await first.append(streams.serial(serial), [serialRegistered(serial)], 'no_stream');
    await first.close();
    const second = openSqliteEventStore(file);
    expect((await second.readStream(streams.serial(serial))).map((e) => e.type)).to.deep.equal(['SerialRegistered']);
    await second.close();
  });

  it('reads a stored event that does not decode as unreadable, naming the problem, without failing the read', async function () {
    const file = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(file);
    const serial = randomSerial();
    const [mistyped, notJson] = [serialRegistered(serial), serialReportedStolen(serial)];
    const recovered = serialRecovered(serial);
    await store.append(streams.serial(serial), [mistyped, notJson, recovered], 'no_stream');
    const raw = new Database(file);
    raw.prepare('UPDATE events SET data = ? WHERE id = ?').run(JSON.stringify({ serial, manufacture_year: 'soon' }), mistyped.id);
    raw.prepare('UPDATE events SET data = ? WHERE id = ?').run('{"serial": ', notJson.id);
    raw.close();
    for (const events of [await store.readStream(streams.serial(serial)), await store.readAll({ after: 0, limit: 10 })]) {
      expect(events.map((event) => [event.id, isUnreadable(event) ? event.unreadable : 'read'])).to.deep.equal([
        [mistyped.id, "data must have required property 'reference'; data must have required property 'collection'; "
          + "data must have required property 'model'; data/manufacture_year must be integer"],
        [notJson.id, 'data is not JSON'],
        [recovered.id, 'read'],
      ]);
      expect(events[0]?.metadata).to.deep.equal(mistyped.metadata);
    }
    await store.close();
  });

  it('refuses an append reusing an id stored in another stream, or only some ids of an earlier append, writing nothing', async function () {
    const store = openSqliteEventStore(join(dir, 'events.sqlite3'));
    const serial = randomSerial();
    const registered = serialRegistered(serial);
    const stolen = serialReportedStolen(serial);
    await store.append(streams.serial(serial), [registered, stolen], 'no_stream');
    const other = randomSerial();
    const attempts = [
      () => store.append(streams.serial(other), [{ ...registered, data: { ...registered.data, serial: other } } as typeof registered], 'any'),
      () => store.append(streams.serial(serial), [registered, serialRecovered(serial)], 'any'),
      () => store.append(streams.serial(serial), [serialRecovered(serial), stolen], 'any'),
    ];
    for (const attempt of attempts) {
      try {
        await attempt();
        expect.fail('the conflicting append was accepted');
      } catch (error) {
        expect(error).to.be.instanceOf(EventIdConflictError);
      }
    }
    expect(await store.headPosition()).to.equal(2);
    await store.close();
  });

  it('stores stream and chain hashes that an auditor recomputes from the rows alone, and that expose an edited row', async function () {
    const file = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(file);
    const [a, b] = [randomSerial(), randomSerial()];
    await store.append(streams.serial(a), [serialRegistered(a)], 'no_stream');
    await store.append(streams.serial(b), [serialRegistered(b), serialReportedStolen(b)], 'no_stream');
    await store.append(streams.serial(a), [serialReportedStolen(a)], 0);
    await store.close();
    expect(brokenHashPositions(file)).to.deep.equal({ checked: 4, broken: [] });

    const raw = new Database(file);
    raw.prepare('UPDATE events SET data = ? WHERE position = 2').run(JSON.stringify(serialRegistered(b, { manufacture_year: 1999 }).data));
    raw.close();
    expect(brokenHashPositions(file).broken).to.deep.equal([2, 3, 4]);
  });

  it('the factory opens the SQLite file under DATA_DIR when no EVENTSTORE_URL is set', async function () {
    const store = await openEventStore(loadConfig({ DATA_DIR: dir }));
    const serial = randomSerial();
    await store.append(streams.serial(serial), [serialRegistered(serial)], 'no_stream');
    await store.close();
    const raw = new Database(join(dir, 'events.sqlite3'), { readonly: true });
    expect(raw.prepare('SELECT count(*) FROM events').pluck().get()).to.equal(1);
    raw.close();
  });
});
