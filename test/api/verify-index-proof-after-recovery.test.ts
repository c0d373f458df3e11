/**
 * verify `proof=index` answers STOLEN when the index proves a theft the registry has not applied yet (the index
 * ahead). The index behind the registry must not pass for that: a serial reported stolen, then recovered, the recovery
 * applied by the (fresh) registry but not yet in the log's signed index (a replica's index catching up, the log on
 * another worker). The registry vouches for AUTHENTIC; a STOLEN there would tell the owner of a recovered watch to
 * call the police. The answer is refused until the index reaches the recovery (verify.operation.ts, `indexAheadAt`).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { indexProofs, startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialRecovered, serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const SERIAL = 'IR-2024-0001';

describe('verify with proof=index while the index is behind a recovery the registry has applied', function () {
  this.timeout(60_000);
  let dir: string;
  let events: EventStore;
  let log: TransparencyLog;
  let api: ReadApiUnderTest;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-index-recovery-'));
    events = openSqliteEventStore(join(dir, 'events.sqlite3'));
    await events.append(`serial-${SERIAL}`, [serialRegistered(SERIAL)], 'no_stream');
    await events.append(`serial-${SERIAL}`, [serialReportedStolen(SERIAL)], 0);
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore, projections: [...PROJECTIONS] });
    // The recovery, then the read models alone projected again: the log (and its index) is behind them.
    await events.append(`serial-${SERIAL}`, [serialRecovered(SERIAL)], 1);
    await rebuild({ eventStore: events, readStore, projections: PROJECTIONS.filter((projection) => projection.name !== 'transparency-log') });
    log = await startTransparencyLog({ readStore, key: generateKeyPairSync('ed25519').privateKey, origin: 'watch.example/watchcat/events', logger: createLogger('silent', 'index-recovery') });
    api = await startReadApiUnderTest({ readStore, signingKeys: await testSigningKeys(), extraRoutes: [transparencyRoutes(log)], serialIndex: indexProofs(log) });
  });
  after(async () => {
    await api?.close();
    await log?.stop();
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not answer STOLEN about a serial the fresh registry holds recovered', async function () {
    const plain = await (await fetch(`${api.url}/api/public/verify/${SERIAL}`)).json() as { verification_status: string };
    expect(plain.verification_status, 'the registry has applied the recovery').to.equal('AUTHENTIC');
    const proved = await fetch(`${api.url}/api/public/verify/${SERIAL}?proof=index`);
    if (proved.status === 200) {
      const body = await proved.json() as { verification_status: string };
      expect(body.verification_status, 'a proof of a theft the registry has left since').to.not.equal('STOLEN');
    } else {
      expect(proved.status, 'refused until the index proves the registry\'s status').to.equal(503);
    }
  });
});
