/**
 * The embedded service `audit log watch` watches in test/audit/log-watch*.test.ts: started afresh on a known history for
 * each test (the hooks are registered in the calling `describe`), with the monitor's first look taken; what a test
 * changes in its store, and restarts it on.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../../all-in-one.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../../shared/config/config.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { writeKnownHistory, type TempStore } from './audit-history.ts';
import { watchcat } from './watchcat-run.ts';

export function monitoredService() {
  let store: TempStore;
  let service: RunningWatchcat | undefined;
  let stateFile: string;

  // No read-model snapshot: every start projects the whole history again, the log's tiles included, as a rebuild
  // does. (From a snapshot, a start projects only the events after it: an edit before it is found by the next
  // rebuild, and at once by the auditors' tools.)
  // `settings`: the log key's, for a rotation.
  const start = async (settings: Record<string, string> = {}) => {
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: store.dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '100000',
        READ_SNAPSHOT_SECONDS: '0', ...settings,
      }),
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
  const watch = (state = stateFile) => watchcat(store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${service!.ports.public}`, '--state', state, '--once');
  const append = async (serial: string) => {
    const events = openSqliteEventStore(store.file);
    try {
      await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
    } finally {
      await events.close();
    }
  };
  /** Restarts the service on the store as it now is (the log's projection is built from it again at start). */
  const restartAfter = async (change: () => void | Promise<void>, settings: Record<string, string> = {}) => {
    await stop();
    await change();
    await start(settings);
  };
  /** The same, with the service's record of what it signed removed too, as a thorough rewriter would. */
  const rewriteAndRestart = (change: () => void | Promise<void>) => restartAfter(async () => {
    await change();
    rmSync(join(store.dataDir, 'transparency'), { recursive: true, force: true });
  });

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

  return {
    get store() { return store; },
    get service() { return service; },
    get stateFile() { return stateFile; },
    start, stop, sql, watch, append, restartAfter, rewriteAndRestart,
  };
}
