/**
 * `npm start` in embedded mode keeps a snapshot of its read models in DATA_DIR: written at a graceful stop (mode
 * 0600, like the events), loaded by the next start, which then serves what a full replay of the events serves.
 * Turned off with READ_SNAPSHOT_SECONDS=0.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { snapshot } from '../projector/support/history.ts';

function capturingLogger() {
  const messages: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { messages.push((JSON.parse(chunk.toString()) as { msg: string }).msg); done(); } });
  return { logger: pino({ level: 'info' }, sink), messages };
}

describe('npm start keeps a snapshot of its embedded read models', function () {
  this.timeout(120_000);
  let dataDir: string;
  const config = (extra: Record<string, string> = {}) =>
    loadConfig({ DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', ...extra });
  const file = () => join(dataDir, 'read-models.snapshot');

  beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'watchcat-start-snapshot-')); });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes it at stop and starts from it, serving what a full replay serves', async () => {
    const first = capturingLogger();
    await (await startWatchcat(config(), first.logger)).close();
    expect(first.messages).to.not.include('read models loaded from a snapshot; catching up from there');
    expect(statSync(file()).mode & 0o777).to.equal(0o600);

    const second = capturingLogger();
    const service = await startWatchcat(config(), second.logger);
    try {
      expect(second.messages).to.include('read models loaded from a snapshot; catching up from there');
      const events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
      const replayed = createMemoryReadStore();
      await rebuild({ eventStore: events, readStore: replayed });
      await events.close();
      expect(await snapshot(service.readStore)).to.deep.equal(await snapshot(replayed));
    } finally {
      await service.close();
    }
  });

  it('writes none with READ_SNAPSHOT_SECONDS=0', async () => {
    await (await startWatchcat(config({ READ_SNAPSHOT_SECONDS: '0' }), capturingLogger().logger)).close();
    expect(existsSync(file())).to.equal(false);
  });
});
