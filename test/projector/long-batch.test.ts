/**
 * A batch whose projection takes longer than the lease (issue 28: 11.5 s of synchronous work against a 10 s lease)
 * keeps its lease: the runner checks it between events, so at no moment of the batch has the lease expired, and
 * another worker could not take it over and do the same work again; and a worker whose lease was taken in the
 * middle of a batch finds out at its next check instead of at the batch's end. Lease time is a fake clock that each
 * applied event moves on, as a slow projection would.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { SerialsDoc } from '../../shared/read-model/documents/documents.ts';
import { createProjector } from '../../projector/runner.ts';
import { leaseId, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { ProjectionLease, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import type { Projection } from '../../shared/read-model/projections/projection.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { appendAll } from './support/history.ts';

const TTL = 10_000;
const EVENTS = 2_000;
/** Per event: the batch of 2,000 takes 20 s, twice the lease. */
const EVENT_MS = 10;

/** A serials projector on a fake clock that each applied event moves on by `EVENT_MS`; `onApply` sees each event. */
function slowProjector(onApply: (position: number) => void) {
  const clock = { now: 1_000_000 };
  const leaseClock: LeaseClock = { monotonic: () => clock.now, wall: () => clock.now };
  const store = createMemoryReadStore();
  const seen: { lease?: LeaseDoc } = {};
  // The lease as the store holds it, after each change that went through.
  const watched: ReadStore = {
    ...store,
    setControl: async (doc, condition, insert) => {
      const done = await store.setControl(doc, condition, insert);
      if (done && doc._id === leaseId('serials')) seen.lease = doc as LeaseDoc;
      return done;
    },
  };
  const slow: Projection<SerialsDoc> = {
    ...serialsProjection,
    apply: (event, docs) => {
      clock.now += EVENT_MS;
      onApply(event.position);
      return serialsProjection.apply(event, docs);
    },
  };
  const eventStore = openSqliteEventStore(':memory:');
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const projector = createProjector({
    eventStore, readStore: watched, queue, logger: pino({ level: 'silent' }), projections: [slow], leaseTtlMs: TTL, clock: leaseClock,
  });
  const history = Array.from({ length: EVENTS }, (_, i) => serialRegistered(`LB-${String(i).padStart(5, '0')}`));
  return {
    clock, store, seen, projector, leaseClock,
    append: () => appendAll(eventStore, history),
    close: async () => {
      await projector.stop();
      await queue.close();
      await eventStore.close();
    },
  };
}

describe('projector: a batch longer than the lease', () => {
  it('keeps the lease at every event of the batch, by checking it between events, and projects the whole batch', async () => {
    const expiredAt: number[] = [];
    const run = slowProjector((position) => {
      if (!run.seen.lease || run.seen.lease.expires_at <= run.clock.now) expiredAt.push(position);
    });
    try {
      const head = await run.append();
      await run.projector.catchUp();
      expect(expiredAt, 'events applied while the lease had expired').to.deep.equal([]);
      expect(run.projector.positions()).to.deep.equal({ serials: head });
      expect(await run.store.count('serials', {})).to.equal(EVENTS);
      expect(run.projector.counters()).to.include({ leaseLost: 0, retries: 0 });
    } finally {
      await run.close();
    }
  });

  it('stops within a third of the lease once another owner took it in the middle of the batch, and writes nothing', async () => {
    const TAKEN_AFTER = EVENTS / 4;
    let taken = false;
    let applied = 0;
    const run = slowProjector(() => {
      applied += 1;
      // Goes through when the event loop next gets a turn: at the batch's next check-in, or after the batch.
      if (applied === TAKEN_AFTER) {
        void ProjectionLease.acquire(run.store, serialsProjection, 'another worker', { ttlMs: TTL, clock: run.leaseClock, preempt: true })
          .then((lease) => { taken = lease !== null; });
      }
    });
    try {
      await run.append();
      await run.projector.catchUp();
      expect(taken, 'the other worker took the lease').to.equal(true);
      // The next check-in (every 100 ms of the batch) lets the takeover in, and the lease is checked against the
      // store once a third of it has passed since its last renewal.
      const bound = (100 + TTL / 3 + 100) / EVENT_MS;
      expect(applied - TAKEN_AFTER, 'events applied after the takeover began').to.be.at.most(bound);
      expect(await run.store.count('serials', {})).to.equal(0);
      expect(run.projector.counters()).to.include({ leaseLost: 1 });
    } finally {
      await run.close();
    }
  });
});
