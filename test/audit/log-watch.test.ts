/**
 * `watchcat audit log watch URL --once` (issue 32), against the embedded service: it keeps each checkpoint it sees
 * and accepts a grown log by its consistency proof. An event edited or removed in the store parks the service's own
 * log when its projection is built again (it keeps the checkpoint it signed last); an operator who also removes that record gets a
 * service that signs the rewritten history, which the monitor names a fork (another root for a size signed before,
 * or a tree that does not extend it) or a rollback (a smaller tree), exit 1.
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

  // No read-model snapshot: every start projects the whole history again, the log's tiles included, as a rebuild
  // does. (From a snapshot, a start projects only the events after it: an edit before it is found by the next
  // rebuild, and at once by the auditors' tools.)
  const start = async () => {
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: store.dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '100000',
        READ_SNAPSHOT_SECONDS: '0',
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
  const watch = () => watchcat(store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${service!.ports.public}`, '--state', stateFile, '--once');
  const append = async (serial: string) => {
    const events = openSqliteEventStore(store.file);
    try {
      await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
    } finally {
      await events.close();
    }
  };
  /** Restarts the service on the store as it now is (the log's projection is built from it again at start). */
  const restartAfter = async (change: () => void | Promise<void>) => {
    await stop();
    await change();
    await start();
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

  it('keeps every checkpoint it sees and accepts a grown log by its consistency proof', async () => {
    await restartAfter(() => append('MW-0001'));
    const grown = await watch();
    expect(grown.code, grown.notes.join('\n')).to.equal(0);
    expect(grown.out[0]).to.match(/: 13 leaves, root .*, consistent with 12$/);
    const again = await watch();
    expect(again.out[0]).to.match(/: 13 leaves, unchanged$/);
    const metrics = await (await fetch(`http://127.0.0.1:${service!.ports.ops}/metrics`)).text();
    expect(metrics).to.match(/^transparency_log_size 13$/m);
    expect(metrics).to.match(/^transparency_log_parked 0$/m);
    const kept = JSON.parse(readFileSync(stateFile, 'utf8')) as { checkpoints: { size: number }[] };
    expect(kept.checkpoints.map((c) => c.size)).to.deep.equal([12, 13]);
  });

  it('parks the service\'s log when it restarts on an edited or shortened history: nothing served, the monitor fails', async () => {
    await restartAfter(() => sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`));
    const base = `http://127.0.0.1:${service!.ports.public}`;
    for (const path of ['/.well-known/transparency/checkpoint', '/api/public/transparency/consistency?from=1&to=2', '/transparency/tile/0/000.p/1']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).to.equal(503);
      expect(response.headers.get('retry-after'), path).to.equal('60');
      expect(await response.json(), path).to.deep.equal({ detail: 'The transparency log is unavailable; try again later' });
    }
    const metrics = await (await fetch(`http://127.0.0.1:${service!.ports.ops}/metrics`)).text();
    expect(metrics).to.match(/^transparency_log_parked 1$/m);
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('/.well-known/transparency/checkpoint answered 503');
    await restartAfter(() => sql(`UPDATE events SET data = replace(data, '"price_cents":1,', '"price_cents":1250000,') WHERE position = 4`));
    expect((await watch()).code, 'the history restored').to.equal(0);
    await restartAfter(() => sql('DELETE FROM events WHERE position = 12'));
    expect((await fetch(`http://127.0.0.1:${service!.ports.public}/.well-known/transparency/checkpoint`)).status).to.equal(503);
    const shortened = await (await fetch(`http://127.0.0.1:${service!.ports.ops}/metrics`)).text();
    expect(shortened, 'a history shorter than signed parks the log').to.match(/^transparency_log_parked 1$/m);
  });

  it('names a fork when an event signed before was edited: another root for the same size', async () => {
    await rewriteAndRestart(() => sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`));
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.match(/fork: .* signs two trees of 12 leaves/);
  });

  it('names a fork when an event was edited and the log grew since: the new tree does not extend the old', async () => {
    await rewriteAndRestart(async () => {
      sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`);
      await append('MW-0002');
    });
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('fork: the tree of 13 leaves does not extend the tree of 12 leaves');
  });

  it('names a rollback when the newest event was removed', async () => {
    await rewriteAndRestart(() => sql('DELETE FROM events WHERE position = 12'));
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.match(/rollback: .* now signs a tree of 11 leaves, after one of 12/);
  });
});
