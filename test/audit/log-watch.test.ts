/**
 * `watchcat audit log watch URL --once` (issue 32), against the embedded service: it keeps each checkpoint it sees
 * and accepts a grown log by its consistency proof; an event edited or removed in the store, once the service has
 * restarted on it, shows as a fork (another root for a size signed before, or a tree that does not extend it) or a
 * rollback (a smaller tree), exit 1.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

describe('audit log watch: a monitor of the transparency log', function () {
  this.timeout(60_000);
  let store: TempStore;
  let service: RunningWatchcat | undefined;
  let stateFile: string;

  const start = async () => {
    service = await startWatchcat(
      loadConfig({ DATA_DIR: store.dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '100000' }),
      createLogger('silent', 'log-watch-test'),
    );
  };
  const stop = async () => {
    await service?.close();
    service = undefined;
  };
  const sql = (statement: string) => {
    const db = new Database(store.file);
    try {
      db.prepare(statement).run();
    } finally {
      db.close();
    }
  };
  const watch = () => watchcat(store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${service!.ports.public}`, '--state', stateFile, '--once');
  const append = async (serial: string) => {
    const events = openSqliteEventStore(store.file);
    try {
      await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
    } finally {
      await events.close();
    }
  };
  /** Restarts the service on the store as it now is (the log is rebuilt from it at start). */
  const restartAfter = async (change: () => void | Promise<void>) => {
    await stop();
    await change();
    await start();
  };

  beforeEach(async () => {
    store = await writeKnownHistory();
    stateFile = join(store.dataDir, 'checkpoints.json');
    await start();
    const first = await watch();
    expect(first.code, first.notes.join('\n')).to.equal(0);
    expect(first.out[0]).to.match(/: 12 leaves, root /);
  });
  afterEach(async () => {
    await stop();
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  it('keeps every checkpoint it sees and accepts a grown log by its consistency proof', async () => {
    await restartAfter(() => append('MW-0001'));
    const grown = await watch();
    expect(grown.code, grown.notes.join('\n')).to.equal(0);
    expect(grown.out[0]).to.match(/: 13 leaves, root .*, consistent with 12$/);
    const again = await watch();
    expect(again.out[0]).to.match(/: 13 leaves, unchanged$/);
    const kept = JSON.parse(readFileSync(stateFile, 'utf8')) as { checkpoints: { size: number }[] };
    expect(kept.checkpoints.map((c) => c.size)).to.deep.equal([12, 13]);
  });

  it('names a fork when an event signed before was edited: another root for the same size', async () => {
    await restartAfter(() => sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`));
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.match(/fork: .* signs two trees of 12 leaves/);
  });

  it('names a fork when an event was edited and the log grew since: the new tree does not extend the old', async () => {
    await restartAfter(async () => {
      sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`);
      await append('MW-0002');
    });
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('fork: the tree of 13 leaves does not extend the tree of 12 leaves');
  });

  it('names a rollback when the newest event was removed', async () => {
    await restartAfter(() => sql('DELETE FROM events WHERE position = 12'));
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.match(/rollback: .* now signs a tree of 11 leaves, after one of 12/);
  });
});
