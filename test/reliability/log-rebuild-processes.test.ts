/**
 * Issue 40, defect 4, as real processes (a MongoDB leg): a BullMQ projector keeping the transparency log's lease, a
 * read API signing its checkpoints, Redis, MongoDB (FerretDB in CI) and one SQLite event store; a rebuild of the log
 * in a process of its own waits just before its check and switch while one event is appended. The preempted
 * projector hears the append before it renews its lease: its leaf must not land in the generation being replaced,
 * the signer must not sign it there, and the rebuild must switch, the log running and signed on from the new
 * generation. On main (6d537c4) the signer signed the stale leaf and the rebuild parked the live log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { appendAll } from '../projector/support/history.ts';
import { spawnTs } from '../support/child-process.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { logProjection } from '../support/signed-log.ts';
import { until } from '../support/until.ts';
import { servedCheckpoint, untilServedSize } from '../support/served-checkpoint.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

const CHILD = new URL('../support/crash-children/log-rebuild-child.ts', import.meta.url).pathname;
/** How often the read API looks at the log (log-publisher.ts's default period), a few times over. */
const SIGNER_LOOKS_MS = 5 * 200;

const serials = (count: number, from: number) => Array.from({ length: count }, (_, i) => serialRegistered(`PRC-${String(from + i).padStart(4, '0')}`));

describeMongo('a rebuild of the transparency log beside its live projector and signer, as real processes (issue 40, defect 4)', 'the log rebuild processes test', function (leg) {
  this.timeout(120_000);
  let redis: TestRedis;
  let dataDir: string;
  let env: Record<string, string>;
  let api: WatchcatProcess;
  let apiUrl: string;
  let projector: WatchcatProcess;
  let events: EventStore;

  before(async () => {
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-log-rebuild-'));
    env = {
      DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: leg.url, MONGODB_DB: leg.database('logrebuild'),
      HOST: '127.0.0.1', HEALTH_PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'https://watch.example',
    };
    projector = startWatchcatProcess('projector', 'projector/main.ts', env);
    await projector.waitForLine(/projector started/);
    const port = await freePort();
    api = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(await freePort()) });
    await api.waitForLine(/read API listening/);
    apiUrl = `http://127.0.0.1:${port}`;
    events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
  });
  after(async () => {
    await events?.close();
    await Promise.allSettled([api?.stop(), projector?.stop()]);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const served = () => servedCheckpoint(apiUrl);
  const untilSigned = (size: number) => untilServedSize(apiUrl, size, 30_000);

  it('the preempted projector adds no leaf to the replaced generation, nothing of it is signed, and the rebuild switches, the log signed on', async () => {
    await appendAll(events, serials(5, 0));
    await untilSigned(5);

    const goFile = join(dataDir, 'go');
    const rebuilding = spawnTs(CHILD, [join(dataDir, 'events.sqlite3'), goFile], { MONGODB_URL: env['MONGODB_URL'], MONGODB_DB: env['MONGODB_DB'] });
    await until('the rebuild waits before its switch', () => rebuilding.lines.includes('WAITING'), 60_000);
    await appendAll(events, serials(1, 5));
    await projector.waitForLine(/lease lost/);
    // What must not happen has no event to await: the signer looks a few times before the rebuild goes on.
    await sleep(SIGNER_LOOKS_MS);
    expect(await served(), 'signed while the rebuild waited').to.deep.include({ size: 5 });
    writeFileSync(goFile, '');
    await rebuilding.exited;
    expect(rebuilding.lines.find((line) => /^(SWITCHED|REFUSED)/.test(line)), rebuilding.lines.join('\n')).to.match(/^SWITCHED \d+$/);

    await appendAll(events, serials(1, 6));
    await untilSigned(7);
    const fresh = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore: fresh, projections: [logProjection] });
    const clean = Buffer.from(await (await TileLog.read(await fresh.snapshot())).root(7)).toString('base64');
    expect(await served()).to.deep.equal({ size: 7, root: clean });
  });
});
