/**
 * A rolling deploy that updates the writers first (docs/api.md, "Honest answers": events are read tolerantly;
 * ARCHITECTURE.md, "Tolerant reader, strict writer"). A newer version appends to the event store while this
 * version's projector and read API keep serving:
 * - a price change with a new optional field (and new metadata, under schema_version 2), and an event of a new type:
 *   nothing stops, the price shows through the public API, the new type is skipped;
 * - then an event whose shape changed (a renamed required field): only the projection that handles its type parks,
 *   named with the event's position and the problem on /readyz, status and /metrics, while the others go on; this
 *   version's command handler refuses to decide on the stream that holds it;
 * - the newer projector is deployed (the same projector, reading through a decoder that knows the new shape), the
 *   operator resumes the parked projection, and it applies the event: the theft shows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { CollectionDefined, WatchPublished } from '../../shared/events/index.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { isUnreadable, type EventStore, type StoredEvent } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector } from '../../projector/projector.ts';
import { PROJECTION_RETRY_POLICY } from '../../projector/retry-policy.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { collectionDefined, eventMetadata, watchPublished } from '../fixtures/events.ts';
import { send } from '../support/http.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const WATCH = 'TMP-1';
const SERIAL = 'TMP-0001';
/** The newer version's shape of a theft report: `serial` renamed `serial_number`. */
const NEWER_THEFT = { serial_number: SERIAL };

/**
 * The newer version's reader, as far as this test needs it: what this version cannot read, it reads from the stored
 * text with its own schema (here, the renamed field of a theft report). Nothing else of the projector changes.
 */
function newerDecoder(store: EventStore, file: string): EventStore {
  const db = new Database(file, { readonly: true });
  const storedData = db.prepare('SELECT data FROM events WHERE id = ?').pluck();
  const decode = (events: StoredEvent[]): StoredEvent[] => events.map((event) => {
    if (!isUnreadable(event) || event.type !== 'SerialReportedStolen' || !event.metadata) return event;
    const data = JSON.parse(storedData.get(event.id) as string) as typeof NEWER_THEFT;
    const { unreadable: _, ...place } = event;
    return { ...place, type: 'SerialReportedStolen', data: { serial: data.serial_number }, metadata: event.metadata };
  });
  return {
    append: (...args) => store.append(...args),
    readStream: async (...args) => decode(await store.readStream(...args)),
    readAll: async (...args) => decode(await store.readAll(...args)),
    headPosition: () => store.headPosition(),
    onAppended: (listener) => store.onAppended(listener),
    close: async () => {
      db.close();
      await store.close();
    },
  };
}

function rollingDeploySuite(storeName: string, openReadStore: () => Promise<ReadStore>): void {
  describe(`a rolling deploy: a newer writer beside this version's projector and API (${storeName})`, function () {
    this.timeout(60_000);
    let dir: string;
    let eventStore: EventStore;
    let readStore: ReadStore;
    let api: ReadApiUnderTest;
    const projectors: Projector[] = [];
    const closing: EventStore[] = [];

    function startProjector(store: EventStore): Projector {
      const projector = createProjector({
        eventStore: store, readStore, queue: createInlineJobQueue(PROJECTION_RETRY_POLICY),
        logger: createLogger('silent', 'rolling-deploy-test'), pollIntervalMs: 50, backoff: { firstMs: 5, maxMs: 20 },
      });
      projector.start();
      projectors.push(projector);
      return projector;
    }

    const get = (path: string) => send(api.url, path);
    const ops = (path: string) => send(api.opsUrl, path);
    async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
      const deadline = Date.now() + 20_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`not seen within 20 s: ${what}`);
        await sleep(20);
      }
    }
    const servesUpTo = (position: number) => async () => (await get('/api/public/status')).json().read_model.position >= position;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'watchcat-rolling-'));
      eventStore = openSqliteEventStore(join(dir, 'events.sqlite3'));
      readStore = await openReadStore();
      api = await startReadApiUnderTest({ readStore });
    });
    afterEach(async () => {
      for (const projector of projectors.splice(0)) await projector.stop();
      await api.close();
      await readStore.close();
      for (const store of [eventStore, ...closing.splice(0)]) await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('keeps projecting through additive changes, parks only the projection an undecodable event stops, and resumes once the newer projector runs', async () => {
      const file = join(dir, 'events.sqlite3');
      const commands = createCommandService(eventStore, { actor: 'older-services' });
      await commands.defineCollection(collectionDefined('tempo').data as CollectionDefined);
      await commands.publishWatch(watchPublished(WATCH, 'tempo', { price_cents: 100_000 }).data as WatchPublished);
      const { position: seeded } = await commands.registerSerial(SERIAL, WATCH, 2024);
      startProjector(eventStore);
      await eventually('the seeded history served', servesUpTo(seeded));

      // Additive changes: a new optional field in the data and in the metadata, and a new event type.
      const newerMetadata = { ...eventMetadata({ actor: 'newer-services' }), schema_version: 2, tenant: 'aurore' };
      const [, additive] = appendAsNewerVersion(file, `watch-${WATCH}`, [
        { type: 'WatchPriceChanged', data: { reference: WATCH, price_cents: 150_000, previous_price_cents: 100_000, reason: 'annual review' }, metadata: newerMetadata },
        { type: 'WatchCertified', data: { reference: WATCH, certificate: 'COSC' }, metadata: newerMetadata },
      ]);
      await eventually('the additive changes served', servesUpTo(additive!));
      expect((await get(`/api/public/catalogue/${WATCH}`)).json()).to.include({ price_eur: 1500 });
      expect((await ops('/readyz')).status).to.equal(200);
      // Fresh once each projection's confirmation past the additive changes is seen (a poll or the projectors' word
      // later than the position served): a parked or stale projection would keep the status degraded.
      await eventually('the status ok: nothing parked, every read model confirmed', async () => (await get('/api/public/status')).json().status === 'ok');

      // A changed shape: a theft report whose `serial` is renamed. Then a readable price change after it.
      const [undecodable] = appendAsNewerVersion(file, `serial-${SERIAL}`, [{ type: 'SerialReportedStolen', data: NEWER_THEFT, metadata: newerMetadata }]);
      const [after] = appendAsNewerVersion(file, `watch-${WATCH}`, [
        { type: 'WatchPriceChanged', data: { reference: WATCH, price_cents: 175_000, previous_price_cents: 150_000 }, metadata: newerMetadata },
      ]);
      const reason = `projection serials cannot apply SerialReportedStolen at position ${undecodable}: this version cannot read it: `
        + "data must have required property 'serial'";
      await eventually('serials parked on /readyz', async () => (await ops('/readyz')).status === 503);
      expect((await ops('/readyz')).json().checks.parked_projections).to.deep.equal([{ name: 'serials', position: undecodable, reason }]);
      expect((await get('/api/public/status')).json().status).to.equal('degraded');
      expect((await ops('/metrics')).text).to.match(new RegExp(`^projection_parked_position\\{projection="serials",reason="[^"]+"\\} ${undecodable}$`, 'm'));
      await eventually('the watch projection past the undecodable event', async () => (await get(`/api/public/catalogue/${WATCH}`)).json().price_eur === 1750);
      expect(after).to.be.above(undecodable!);

      // This version's command handler will not decide on the stream that holds it.
      const refusal = await commands.recoverSerial(SERIAL).then(() => undefined, (error: unknown) => error);
      expect(refusal).to.be.instanceOf(DomainError);
      expect(refusal).to.include({ kind: 'conflict' });
      expect((refusal as Error).message).to.equal(`serial-${SERIAL} holds an event this version cannot read (SerialReportedStolen at revision 1: `
        + "data must have required property 'serial'); run this command with the version that wrote it");

      // The newer projector replaces this one; the operator resumes the parked projection (`watchcat projections resume serials`).
      for (const projector of projectors.splice(0)) await projector.stop();
      const newer = newerDecoder(openSqliteEventStore(file), file);
      closing.push(newer);
      expect(await resumeProjection(readStore, serialsProjection)).to.equal(true);
      startProjector(newer);
      await eventually('serials resumed to the head', servesUpTo(after!));
      await eventually('/readyz ready again', async () => (await ops('/readyz')).status === 200);
      expect((await get(`/api/public/verify/${SERIAL}`)).json()).to.include({ verification_status: 'STOLEN', stolen: true });
      expect((await get(`/api/public/catalogue/${WATCH}`)).json()).to.include({ price_eur: 1750 });
    });
  });
}

rollingDeploySuite('in memory', async () => createMemoryReadStore());
describeMongo('rolling deploy on MongoDB', 'the rolling deploy over a MongoDB read store', (leg) => {
  rollingDeploySuite('MongoDB', () => createMongoReadStore(leg.url, leg.database('rolling')));
});
