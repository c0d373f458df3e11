/**
 * Issue 20, "Why" 2 and 3: one writer per projection, nothing going backwards, failures that heal.
 * - Two projector workers run one projection at once (BullMQ after a lost lock): the one that lost its lease
 *   writes nothing more, and its stale put cannot bring back the watch the other withdrew.
 * - On each read store: a put older than a delete does not pass it (a tombstone); of two writers inserting one
 *   new document at once, the newer position wins.
 * - A read-store outage longer than any retry budget (22 s in the report; shortened here) does not stop a
 *   projection until restart: it resumes by itself once the store is back.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectionDefined, watchPriceChanged, watchPublished, watchWithdrawn } from '../fixtures/events.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ControlDoc, ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import { watchesProjection } from '../../shared/read-model/projections/watches.projection.ts';
import { appendAll } from '../projector/support/history.ts';
import { gate, isRead, within, type Call } from '../support/controlled-read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { until } from '../support/until.ts';
import { DEFAULT_LEASE_TTL_MS } from '../../shared/read-model/projections/lease.ts';
import {
  cleanRebuildView, fakeClock, positionsSeen, readersView, simulatedWorker, type FakeClock, type SimulatedWorker,
} from '../support/simulated-workers.ts';

const STEP_MS = 5_000;
const HISTORY = [collectionDefined('tempo'), watchPublished('TMP-1', 'tempo', { price_cents: 1_000_000 })];

describe('projector workers sharing one read store (issue 20, why 2 and 3)', function () {
  this.timeout(20_000);
  let eventStore: EventStore;
  let shared: ReadStore;
  let workers: SimulatedWorker[];
  let clock: FakeClock;

  beforeEach(async () => {
    clock = fakeClock();
    eventStore = openSqliteEventStore(':memory:');
    shared = createMemoryReadStore();
    workers = [];
    await appendAll(eventStore, HISTORY);
  });
  afterEach(async () => {
    for (const worker of workers) await worker.close();
    await eventStore.close();
  });

  const worker = (settings: Parameters<typeof simulatedWorker>[2] = {}): SimulatedWorker => {
    const made = simulatedWorker(eventStore, shared, { projections: [watchesProjection], clock, ...settings });
    workers.push(made);
    return made;
  };

  it('a worker paused mid-batch past its lease writes nothing once another took the projection over: no withdrawn watch comes back', async () => {
    const [first, second] = [worker(), worker()];
    await first.projector.catchUp();
    await appendAll(eventStore, [watchPublished('TMP-3', 'tempo')]);
    const paused = gate();
    first.control.intercept({ method: 'generation.write', times: 1, run: paused.pass });
    const firstRun = first.projector.catchUp();
    await within(paused.reached, STEP_MS, 'the first worker about to write the new watch');
    // The first worker's event loop is stuck past its lease; meanwhile the watch is withdrawn and the second
    // worker, to which the queue handed the projection, applies both events. It judges the lease by its own watch
    // (lease-watch.ts): it finds it held, then sees it unchanged past a lease.
    await appendAll(eventStore, [watchWithdrawn('TMP-3')]);
    const secondRun = second.projector.catchUp();
    await until('the second worker found the lease held', () => second.projector.counters().leaseHeld >= 1);
    clock.advance(DEFAULT_LEASE_TTL_MS + 1);
    await within(secondRun, STEP_MS, 'the second worker');
    const taken = await readersView(shared);
    expect(taken['watches']!.map((doc) => doc._id), 'the second worker withdrew TMP-3').to.not.include('en:TMP-3');
    // What readers see after each write the first worker makes from now on (it goes on to the head itself).
    const seen: unknown[] = [];
    first.control.intercept({ method: /.*/, stage: 'after', when: (call) => !isRead(call), run: async () => { seen.push(await readersView(shared)); } });
    const resumedAt = first.control.calls.length;
    paused.open();
    await within(firstRun, STEP_MS, 'the first worker resuming');
    expect(first.control.calls.slice(resumedAt).filter((call) => !isRead(call)), 'writes the first worker tried once resumed').to.not.be.empty;
    seen.forEach((view, index) => expect(view, `readers' view after write ${index + 1} of the worker that lost its lease`).to.deep.equal(taken));
    expect(await readersView(shared), 'readers\' view once the first worker is done').to.deep.equal(taken);
    await second.projector.catchUp();
    expect(await readersView(shared)).to.deep.equal(await cleanRebuildView(eventStore, [watchesProjection]));
  });

  it('a worker resuming past its lease while another is taking the projection over moves no reader\'s position back', async () => {
    const [first, second] = [worker(), worker()];
    await first.projector.catchUp();
    const changed = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
    const paused = gate();
    const savingCheckpoint = (call: Call) => call.method === 'setControl' && (call.args[0] as ControlDoc)._id.startsWith('checkpoint:')
      && (call.args[0] as ControlDoc)['position'] === changed;
    first.control.intercept({ method: 'setControl', when: savingCheckpoint, times: 1, run: paused.pass });
    const firstRun = first.projector.catchUp();
    await within(paused.reached, STEP_MS, 'the first worker about to store its checkpoint');
    const seen: number[] = [];
    const look = async () => { seen.push((await positionsSeen(shared)).get('watches') ?? 0); };
    // The first worker resumes right after the second took the lease, before the second fenced the checkpoint.
    second.control.intercept({
      method: 'setControl', stage: 'after', times: 1, when: (call) => (call.args[0] as ControlDoc)._id.startsWith('lease:'),
      run: async () => {
        paused.open();
        await within(firstRun, STEP_MS, 'the first worker resuming');
        await look();
      },
    });
    second.control.intercept({ method: /.*/, stage: 'after', when: (call) => !isRead(call), run: look });
    // The second worker finds the lease held, then sees it unchanged past a lease (its own watch, lease-watch.ts).
    const secondRun = second.projector.catchUp();
    await until('the second worker found the lease held', () => second.projector.counters().leaseHeld >= 1);
    clock.advance(DEFAULT_LEASE_TTL_MS + 1);
    await within(secondRun, STEP_MS, 'the second worker');
    await look();
    expect(seen.length, 'looks taken').to.be.at.least(2);
    seen.forEach((position, i) => expect(position, `look ${i + 1} of ${seen.join(', ')}`).to.be.at.least(Math.max(...seen.slice(0, i), 0)));
    expect(await readersView(shared)).to.deep.equal(await cleanRebuildView(eventStore, [watchesProjection]));
  });

  it('a read-store outage longer than the retries does not stop the projection: handed back to the queue, it resumes by itself once the store is back', async () => {
    // Timings shortened a hundredfold: main's queue retried 5 times from 1 ms here (1 s in production), which the
    // 200 ms outage below outlasts as 22 s outlast the real ones; the workers' engine backoff is 1 to 20 ms here.
    const only = worker({ policy: { attempts: 5, backoffMs: 1 }, pollIntervalMs: 20 });
    only.projector.start();
    await within(only.projector.waitFor(2), STEP_MS, 'the first catch-up');
    only.control.outage();
    const changed = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
    await until('the job retried', () => only.projector.counters().retries >= 1);
    // The outage outlasts a lease on the runner's clock: the job hands the projection back to the queue, and
    // the periodic signal starts it again.
    clock.advance(DEFAULT_LEASE_TTL_MS + 1);
    await until('the projection handed back', () => only.projector.counters().handedBack >= 1);
    await sleep(200);
    only.control.heal();
    const later = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_200_000, 1_100_000)]);
    await within(only.projector.waitFor(later, STEP_MS), STEP_MS + 100, `the projection resuming past ${changed}`);
    expect(only.projector.status().map((p) => [p.name, p.status, p.parked])).to.deep.equal([['watches', 'running', null]]);
    expect(await readersView(shared)).to.deep.equal(await cleanRebuildView(eventStore, [watchesProjection]));
  });
});

/** The position rule of every read store, under writers that race. */
function positionRule(open: () => Promise<ReadStore>): void {
  let store: ReadStore;
  beforeEach(async () => { store = await open(); });
  afterEach(() => store.close());

  const watch = (reference: string, position: number): StoredDoc & { reference: string } => ({ _id: `en:${reference}`, position, reference });

  it('a put older than a delete does not bring the document back (the delete leaves a tombstone)', async () => {
    await store.write('watches', [{ put: watch('TMP-1', 2) }]);
    await store.write('watches', [{ delete: { _id: 'en:TMP-1', position: 4 } }]);
    await store.write('watches', [{ put: watch('TMP-1', 3) }]);
    expect(await store.get('watches', 'en:TMP-1')).to.equal(null);
    expect(await store.find('watches', {})).to.deep.equal([]);
    await store.write('watches', [{ put: watch('TMP-1', 5) }]);
    expect(await store.get('watches', 'en:TMP-1'), 'a newer put than the delete').to.deep.include({ position: 5 });
  });

  it('of two writers inserting the same new documents at once, the newer position wins every time', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `REF-${i}`);
    // Two writers, each its own connection, race to insert each document first: the older or the newer.
    const other = await open();
    try {
      await Promise.all(ids.map((reference, i) => Promise.all(i % 2 === 0
        ? [store.write('watches', [{ put: watch(reference, 3) }]), other.write('watches', [{ put: watch(reference, 5) }])]
        : [other.write('watches', [{ put: watch(reference, 5) }]), store.write('watches', [{ put: watch(reference, 3) }])])));
    } finally {
      await other.close();
    }
    const stored = await store.find('watches', {}, { sort: { _id: 1 } });
    expect(stored.filter((doc) => doc.position !== 5).map((doc) => doc._id), 'documents left at the older position').to.deep.equal([]);
    expect(stored).to.have.length(ids.length);
  });
}

describe('the position rule of the in-memory read store under racing writers (issue 20, why 2)', function () {
  let shared: ReadStore | undefined;
  // Two connections to one in-memory store: the same store twice (closing either closes nothing shared).
  positionRule(async () => {
    shared ??= createMemoryReadStore();
    const store = shared;
    return { ...store, close: async () => {} };
  });
  afterEach(() => { shared = undefined; });
});

describeMongo('the position rule of the MongoDB read store under racing writers (issue 20, why 2)', 'the MongoDB position rule races', function (leg) {
  this.timeout(30_000);
  let database: string | undefined;
  positionRule(() => createMongoReadStore(leg.url, (database ??= leg.database('position'))));
  afterEach(() => { database = undefined; });
});
