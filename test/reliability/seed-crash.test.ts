/**
 * The demo seed of a first start (`SEED_DEMO`, README.md: "load the demo catalogue when the event store is empty at
 * start") cut short: the process killed while it appends (SIGKILL, or a SIGINT before the shutdown handler exists,
 * which only a started service installs). The next start must still end with the whole demo catalogue, not serve the
 * part the first one wrote as if it were the catalogue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { demoCatalogue } from '../../services/demo/demo-catalogue.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { RecordedEvent } from '../../shared/ports/event-store.ts';
import { spawnTs } from '../support/child-process.ts';
import { readableHistory } from '../support/readable-events.ts';
import { until } from '../support/until.ts';

const MAIN = fileURLToPath(new URL('../../main.ts', import.meta.url));


/** How many events of each of these types the history holds, by the key their data names. */
function counted(events: RecordedEvent[], type: 'WatchPublished' | 'SerialRegistered'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    if (event.type !== type) continue;
    const key = event.type === 'WatchPublished' ? event.data.reference : event.data.serial;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe('a first start killed while it seeds the demo catalogue', function () {
  this.timeout(180_000);
  let dir: string;
  let service: RunningWatchcat | undefined;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-seed-crash-')); });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The settings of a start on the embedded stores in `dir`, with the demo seed. */
  const settings = () => ({
    DATA_DIR: dir, HOST: '127.0.0.1', OPS_HOST: '127.0.0.1', ADMIN_HOST: '127.0.0.1', PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0',
    SEED_DEMO: 'true', EVENTSTORE_URL: '', MONGODB_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn',
  });

  it('is completed by the next start: every demo watch published and every demo serial registered once, and served', async () => {
    const demo = demoCatalogue();
    const env = settings();
    const first = spawnTs(MAIN, [], env);
    const file = join(dir, 'events.sqlite3');
    const watcher = openSqliteEventStore(file);
    try {
      // Killed once the seed has written its collections and watches and is registering serials.
      await until('the seed is under way', async () => first.child.exitCode === null && (await watcher.headPosition()) > 400, 60_000);
      await first.kill();
      const cut = await readableHistory(watcher);
      expect(counted(cut, 'SerialRegistered').size, 'the first start was killed before the seed ended').to.be.below(demo.serials.length);
    } finally {
      await watcher.close();
      await first.kill();
    }

    service = await startWatchcat(loadConfig(env), createLogger('silent', 'seed-crash-test'));
    const store = openSqliteEventStore(file);
    try {
      const events = await readableHistory(store);
      const published = counted(events, 'WatchPublished');
      const registered = counted(events, 'SerialRegistered');
      expect([...published.keys()].sort()).to.deep.equal(demo.watches.map((watch) => watch.reference).sort());
      expect([...registered.keys()].sort()).to.deep.equal(demo.serials.map((serial) => serial.serial).sort());
      expect([...published.values(), ...registered.values()].every((count) => count === 1), 'each once').to.equal(true);
    } finally {
      await store.close();
    }
    const served = await service.readStore.find('watches', { lang: 'en' });
    expect(served.map((doc) => (doc as unknown as { reference: string }).reference).sort())
      .to.deep.equal(demo.watches.map((watch) => watch.reference).sort());
  });

  it('leaves a history someone else wrote to as it is: no demo catalogue added to it', async () => {
    const file = join(dir, 'events.sqlite3');
    const before = openSqliteEventStore(file);
    const { position } = await createCommandService(before, { actor: 'admin-api' }).defineCollection({
      code: 'own', name: { en: 'Own', fr: 'Propre' }, short_description: { en: 'Ours.', fr: 'La nôtre.' },
      description: { en: 'Our own collection.', fr: 'Notre propre collection.' }, type: 'dress', diameter_mm: 40,
    });
    await before.close();

    service = await startWatchcat(loadConfig(settings()), createLogger('silent', 'seed-crash-test'));
    const after = openSqliteEventStore(file);
    try {
      expect(await after.headPosition()).to.equal(position);
    } finally {
      await after.close();
    }
  });
});
