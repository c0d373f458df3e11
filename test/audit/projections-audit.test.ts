import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createReadStore } from '../../shared/adapters/read-store.factory.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { streams, type EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { createProjector } from '../../projector/runner.ts';
import { auditProjections } from '../../services/audit/projections-audit.ts';
import { watchPriceChanged } from '../fixtures/events.ts';
import { writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';
import { describeMongo } from '../support/mongodb-leg.ts';

/** Builds live read models the way the server does: the incremental projector catching up. */
async function project(eventStore: EventStore, readStore: ReadStore): Promise<ReadStore> {
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const projector = createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }), batchSize: 5 });
  await projector.catchUp();
  await queue.close();
  return readStore;
}

/** Changes a live document by hand, as a stray write would (a later position gets past the store's rule). */
async function alterPrice(live: ReadStore, id: string, priceCents: number): Promise<void> {
  const doc = (await live.get<WatchDoc>('watches', id))!;
  const altered: WatchDoc = { ...doc, price_cents: priceCents, position: doc.position + 1 };
  await live.write('watches', [{ put: altered }]);
}

describe('audit projections: live read models against the history', () => {
  let store: TempStore;
  let eventStore: EventStore;
  let live: ReadStore;

  beforeEach(async () => {
    store = await writeKnownHistory();
    eventStore = openSqliteEventStore(store.file);
    live = await project(eventStore, createMemoryReadStore());
  });
  afterEach(async () => {
    await live.close();
    await eventStore.close();
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  it('finds no difference between faithfully projected read models and the history', async () => {
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([]);
    expect(audit).to.include({ moved: false });
    expect(audit.positions).to.deep.equal({ watches: 12, collections: 12, configurators: 12, serials: 12, 'transparency-log': 12 });
  });

  it('compares at the live position when the history has moved on since', async () => {
    await eventStore.append(streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_300_000, 1_250_000)], 1);
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([]);
    expect(audit.positions['watches']).to.equal(12);
  });

  it('names the document and the fields changed by hand in the live read model', async () => {
    await alterPrice(live, 'fr:RG-1', 1);
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([{
      collection: 'watches', id: 'fr:RG-1', kind: 'different',
      fields: [{ path: 'price_cents', live: 1, shadow: 1_250_000 }, { path: 'position', live: 5, shadow: 4 }],
    }]);
  });

  it('names a document missing from the live read model and one the history does not produce', async () => {
    await live.write('serials', [{ delete: { _id: 'SN-0001', position: 100 } }]);
    const stray = { ...(await live.get<WatchDoc>('watches', 'en:RG-1'))!, _id: 'en:RG-9', reference: 'RG-9' };
    await live.write('watches', [{ put: stray }]);
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences.map(({ collection, id, kind }) => ({ collection, id, kind }))).to.deep.equal([
      { collection: 'watches', id: 'en:RG-9', kind: 'only_in_live' },
      { collection: 'serials', id: 'SN-0001', kind: 'missing_in_live' },
    ]);
  });

  it('the CLI refuses in the embedded mode, whose live read models only the server can see', async () => {
    const withoutKey = await watchcat(store.env, 'audit', 'projections');
    expect(withoutKey.code).to.equal(1);
    expect(withoutKey.notes.join('\n')).to.contain('needs a key with the audit scope in ADMIN_API_KEYS');
    const result = await watchcat({ ...store.env, ADMIN_API_KEYS: 'audit-key-0123456789abcdef0123456789abcdef:audit' }, 'audit', 'projections');
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('set MONGODB_URL');
  });
});

describeMongo('audit projections against MongoDB', 'watchcat audit projections over MongoDB read models', (leg) => {
  let store: TempStore;
  let eventStore: EventStore;

  beforeEach(async () => {
    store = await writeKnownHistory();
    eventStore = openSqliteEventStore(store.file);
  });
  afterEach(async () => {
    await eventStore.close();
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  it('watchcat audit projections exits 0 on a MongoDB read model the projector built and 1, naming the document, after a hand edit', async () => {
    const database = leg.database('audit');
    const mongo = await createReadStore({ MONGODB_URL: leg.url, MONGODB_DB: database });
    try {
      await project(eventStore, mongo);
      const env = { ...store.env, MONGODB_URL: leg.url, MONGODB_DB: database };
      const healthy = await watchcat(env, 'audit', 'projections');
      expect(healthy.code, healthy.notes.join('\n')).to.equal(0);
      expect(healthy.out).to.deep.equal(['read models match the history: watches at 12, collections at 12, configurators at 12, serials at 12, transparency-log at 12']);
      await alterPrice(mongo, 'en:RG-1', 1);
      const altered = await watchcat(env, 'audit', 'projections');
      expect(altered.code).to.equal(1);
      expect(altered.out[0]).to.match(/^watches en:RG-1: price_cents is 1 live, 1250000 from the history/);
    } finally {
      await mongo.close();
    }
  });
});
