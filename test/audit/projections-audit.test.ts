import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createReadStore } from '../../shared/adapters/read-store.factory.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { streams, type EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { checkpointPrefix, type CheckpointState } from '../../shared/read-model/projections/control-docs.ts';
import { auditProjections } from '../../services/audit/projections-audit.ts';
import { formatMark, historyMark } from '../../services/audit/history-mark.ts';
import { watchPriceChanged } from '../fixtures/events.ts';
import { writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { AUDIT_KEY, CATALOGUE_KEY, closeLive, liveOverKnownHistory, project, serveAudit } from './support/projections-audit-live.ts';
import { watchcat } from './support/watchcat-run.ts';
import { describeMongo } from '../support/mongodb-leg.ts';

/** Changes a live document by hand, as a stray write would (a later position gets past the store's rule). */
async function alterPrice(live: ReadStore, id: string, priceCents: number): Promise<void> {
  const doc = (await live.get<WatchDoc>('watches', id))!;
  const altered: WatchDoc = { ...doc, price_cents: priceCents, position: doc.position + 1 };
  await live.write('watches', [{ put: altered }]);
}

/**
 * `store` as a reader of its control documents sees it once `change` has rewritten each checkpoint: what a projector
 * that moves or parks meanwhile looks like (`read` counts the reads of the control documents, from 1).
 */
function withCheckpoints(store: ReadStore, change: (checkpoint: CheckpointState, read: number) => CheckpointState): ReadStore {
  let reads = 0;
  return {
    ...store,
    readControl: async () => {
      reads += 1;
      const read = reads;
      return (await store.readControl()).map((doc) => doc._id.startsWith('checkpoint:') ? change(doc as CheckpointState, read) : doc);
    },
  };
}

const isCheckpointOf = (checkpoint: CheckpointState, ...names: string[]) => names.some((name) => checkpoint._id.startsWith(checkpointPrefix(name)));
const parked = (...names: string[]) => (checkpoint: CheckpointState): CheckpointState =>
  isCheckpointOf(checkpoint, ...names) ? { ...checkpoint, status: 'parked', parked: { position: 5, reason: 'test' } } : checkpoint;
/** The watches projection further on at every read. */
const alwaysMoving = (checkpoint: CheckpointState, read: number): CheckpointState =>
  isCheckpointOf(checkpoint, 'watches') ? { ...checkpoint, position: checkpoint.position + read } : checkpoint;
/** The watches projection one event further on from the second read on. */
const movingOnce = (checkpoint: CheckpointState, read: number): CheckpointState =>
  isCheckpointOf(checkpoint, 'watches') && read > 1 ? { ...checkpoint, position: checkpoint.position + 1 } : checkpoint;

describe('audit projections: live read models against the history', () => {
  let store: TempStore;
  let eventStore: EventStore;
  let live: ReadStore;

  beforeEach(async () => ({ store, eventStore, live } = await liveOverKnownHistory()));
  afterEach(() => closeLive({ store, eventStore, live }));

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

  it('audits a live store no projection has a checkpoint in yet at position 0, with nothing to differ', async () => {
    const empty = createMemoryReadStore();
    try {
      const audit = await auditProjections({ eventStore, live: empty });
      expect(audit).to.deep.equal({
        positions: { watches: 0, collections: 0, configurators: 0, serials: 0, 'transparency-log': 0 }, failed: [], differences: [], moved: false, unreadable: [], ahead: [],
      });
    } finally {
      await empty.close();
    }
  });

  it('names the live projections parked on an event they cannot apply', async () => {
    const audit = await auditProjections({ eventStore, live: withCheckpoints(live, parked('watches', 'serials')) });
    expect(audit.failed).to.deep.equal(['watches', 'serials']);
  });

  it('compares again when the live checkpoints moved during the comparison, and reports the second, still one', async () => {
    const audit = await auditProjections({ eventStore, live: withCheckpoints(live, movingOnce) });
    expect(audit.moved).to.equal(false);
    expect(audit.positions).to.deep.equal({ watches: 13, collections: 12, configurators: 12, serials: 12, 'transparency-log': 12 });
  });

  it('says the live read models moved when they move again during the second comparison', async function () {
    this.timeout(5_000);
    const audit = await auditProjections({ eventStore, live: withCheckpoints(live, alwaysMoving) });
    expect(audit.moved).to.equal(true);
  });

  it('tells onProgress how far the shadow rebuild got through the history', async () => {
    const reached: number[] = [];
    await auditProjections({ eventStore, live, onProgress: (progress) => reached.push(progress.position) });
    expect(reached.at(-1)).to.equal(12);
  });

  it('the audit route answers 200 only when nothing differs, and 409 with the differing document, the parked or the moving projections', async () => {
    const history = formatMark((await historyMark(eventStore))!);
    const get = (url: string, key = AUDIT_KEY) => fetch(`${url}/audit/projections?history=${history}`, { headers: { authorization: `Bearer ${key}` } });
    const healthy = await serveAudit(eventStore, live);
    try {
      expect((await get(healthy.url, CATALOGUE_KEY)).status, 'a key without the audit scope').to.equal(403);
      expect((await get(healthy.url)).status).to.equal(200);
      const noHistory = await fetch(`${healthy.url}/audit/projections`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } });
      expect(noHistory.status).to.equal(400);
      expect(((await noHistory.json()) as { detail: string }).detail).to.contain('?history=');
      await alterPrice(live, 'fr:RG-1', 1);
      const altered = await get(healthy.url);
      expect(altered.status, 'a second audit after the first one ended').to.equal(409);
      expect(((await altered.json()) as { differences: string[] }).differences).to.have.length(1);
    } finally {
      await healthy.close();
    }
    for (const [why, change, body] of [
      ['parked', parked('serials'), { failed: ['serials'], moved: false }],
      ['moving', alwaysMoving, { failed: [], moved: true }],
    ] as const) {
      const server = await serveAudit(eventStore, withCheckpoints(await project(eventStore, createMemoryReadStore()), change));
      try {
        const answer = await get(server.url);
        expect(answer.status, why).to.equal(409);
        expect(await answer.json(), why).to.deep.include(body);
      } finally {
        await server.close();
      }
    }
  });

  describe('watchcat audit projections against a server', () => {
    const env = () => ({ ...store.env, ADMIN_API_KEYS: `${AUDIT_KEY}:audit` });

    it('exits 0 and names the position each projection was compared at when the read models match', async () => {
      const server = await serveAudit(eventStore, live);
      try {
        const result = await watchcat(env(), 'audit', 'projections', '--server', server.url);
        expect(result.code, result.notes.join('\n')).to.equal(0);
        expect(result.out).to.deep.equal(['read models match the history: watches at 12, collections at 12, configurators at 12, serials at 12, transparency-log at 12']);
      } finally {
        await server.close();
      }
    });

    it('exits 1 naming the parked projections, and 1 when the read models kept moving', async function () {
      this.timeout(10_000);
      const parkedServer = await serveAudit(eventStore, withCheckpoints(live, parked('watches', 'serials')));
      try {
        const result = await watchcat(env(), 'audit', 'projections', '--server', parkedServer.url);
        expect(result.code).to.equal(1);
        expect(result.notes.at(-1)).to.contain('watches, serials');
      } finally {
        await parkedServer.close();
      }
      const movingServer = await serveAudit(eventStore, withCheckpoints(live, alwaysMoving));
      try {
        const result = await watchcat(env(), 'audit', 'projections', '--server', movingServer.url);
        expect(result.code).to.equal(1);
        expect(result.notes.at(-1)).to.contain('moving');
      } finally {
        await movingServer.close();
      }
    });

    it('exits 1 naming the status of a server that refuses its key, and the reason of one that throttles it', async () => {
      const server = await serveAudit(eventStore, live, `${CATALOGUE_KEY}:audit`, 1);
      try {
        const refused = await watchcat(env(), 'audit', 'projections', '--server', server.url);
        expect(refused.code).to.equal(1);
        expect(refused.notes.at(-1)).to.contain('401');
        const throttled = await watchcat(env(), 'audit', 'projections', '--server', server.url);
        expect(throttled.code).to.equal(1);
        expect(throttled.notes.at(-1)).to.contain('too many failed authentications');
      } finally {
        await server.close();
      }
    });

    it('refuses --projection, which only MongoDB read models take (docs/audit.md)', async () => {
      const server = await serveAudit(eventStore, live);
      try {
        const result = await watchcat(env(), 'audit', 'projections', '--projection', 'watches', '--server', server.url);
        expect(result.code).to.equal(1);
        expect(result.notes.at(-1)).to.contain('--projection');
      } finally {
        await server.close();
      }
    });

    it('refuses an empty history, and a DATA_DIR without one, which it does not create', async () => {
      const emptyDir = mkdtempSync(join(tmpdir(), 'watchcat-audit-'));
      try {
        const absent = await watchcat({ DATA_DIR: emptyDir, ADMIN_API_KEYS: `${AUDIT_KEY}:audit` }, 'audit', 'projections', '--server', 'http://127.0.0.1:9');
        expect(absent.code).to.equal(1);
        expect(absent.notes.at(-1)).to.contain('no event store');
        expect(existsSync(join(emptyDir, 'events.sqlite3'))).to.equal(false);
        await openSqliteEventStore(join(emptyDir, 'events.sqlite3')).close();
        const empty = await watchcat({ DATA_DIR: emptyDir, ADMIN_API_KEYS: `${AUDIT_KEY}:audit` }, 'audit', 'projections', '--server', 'http://127.0.0.1:9');
        expect(empty.code).to.equal(1);
        expect(empty.notes.at(-1)).to.contain('is empty');
      } finally {
        rmSync(emptyDir, { recursive: true, force: true });
      }
    });
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

  it('watchcat audit projections over MongoDB refuses a DATA_DIR without a history, which it does not create', async () => {
    const emptyDir = mkdtempSync(join(tmpdir(), 'watchcat-audit-'));
    try {
      const result = await watchcat({ DATA_DIR: emptyDir, MONGODB_URL: leg.url, MONGODB_DB: leg.database('audit-absent') }, 'audit', 'projections');
      expect(result.code).to.equal(1);
      expect(result.notes.at(-1)).to.contain('no event store');
      expect(existsSync(join(emptyDir, 'events.sqlite3'))).to.equal(false);
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});
