/**
 * Generations left behind are dropped by the next rebuild, on every read store: one a rebuild that crashed before
 * its switch was building, and one a rebuild switched away from but crashed before dropping. A generation that a
 * running rebuild reserved is kept, and so is the live one, and every projection's live checkpoint. A reservation
 * lapses only once a process has seen it unchanged for its whole length on its own clock, never by a time another
 * process wrote (issue 40). The lease tokens recorded in the pointer only grow, and a switch holds only under the
 * latest.
 */
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import {
  RESERVATION_TTL_MS, dropLeftBehind, recordLeaseToken, releaseReservation, renewReservation, reserveGeneration, switchGenerations, takeBackLapsed,
} from '../../shared/read-model/projections/generations.ts';
import { GENERATIONS_ID } from '../../shared/ports/read-store.ts';
import type { LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { LeaseWatch } from '../../shared/read-model/projections/lease-watch.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { checkpointId, newCheckpoint, readControlDocs } from '../../shared/read-model/projections/control-docs.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { watchesProjection } from '../../shared/read-model/projections/watches.projection.ts';
import { appendAll, catalogueHistory } from '../projector/support/history.ts';

export function orphanGenerationsContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`${name}: generations left behind`, function () {
    this.timeout(30_000);
    let store: ReadStore;
    let eventStore: EventStore;
    beforeEach(async () => {
      store = await factory();
      eventStore = openSqliteEventStore(':memory:');
    });
    afterEach(async () => {
      await store.close();
      eventStore.close();
    });

    /** A projector's watch of the reservations: it looks now, and again a whole reservation later by its clock. */
    const lapseUnrenewed = async (): Promise<number[]> => {
      const watch = new LeaseWatch();
      await takeBackLapsed(store, watch, 0);
      return takeBackLapsed(store, watch, RESERVATION_TTL_MS);
    };

    it('a rebuild that saw a crashed rebuild\'s reservation unchanged for its whole length drops its generation, and keeps the live one and a renewed one', async () => {
      await appendAll(eventStore, catalogueHistory(3));
      let now = 0;
      const clock: LeaseClock = { monotonic: () => now, wall: () => now };
      const building = async (generation: number) => {
        await store.resetGeneration('watches', generation);
        await store.generation('watches', generation).write([{ put: { _id: `built-in-${generation}`, position: 1 } }]);
      };
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      // Generation 2 went live, and the rebuild crashed before dropping generation 1.
      const switched = await reserveGeneration(store);
      await building(switched);
      await switchGenerations(store, ['watches'], switched, {});
      // Generation 3: a rebuild crashed before its switch.
      const crashed = await reserveGeneration(store);
      await building(crashed);
      // Generation 4: a rebuild still running, which renews its reservation as the other rebuild goes.
      const running = await reserveGeneration(store);
      await building(running);
      expect(await store.storedGenerations('watches')).to.deep.equal([1, switched, crashed, running]);

      const renewals: Promise<void>[] = [];
      const result = await rebuild({
        eventStore, readStore: store, projections: [watchesProjection], clock, batchSize: 1,
        onProgress: () => {
          now += RESERVATION_TTL_MS / 10;
          renewals.push(renewReservation(store, running));
        },
        beforeSwitch: async () => {
          await Promise.all(renewals);
          expect(now, 'the rebuild ran longer than a reservation').to.be.above(RESERVATION_TTL_MS);
        },
      });
      expect(await store.storedGenerations('watches')).to.deep.equal([running, result.generation]);
      expect(await store.generation('watches', running).getStored([`built-in-${running}`]), 'the running rebuild\'s work').to.have.length(1);
    });

    it('a reservation first seen by a process whose clock reads far ahead is not taken back: what it holds is a count, not a time', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const running = await reserveGeneration(store);
      await store.resetGeneration('watches', running);
      await store.generation('watches', running).write([{ put: { _id: 'built', position: 1 } }]);
      const ahead = new LeaseWatch();
      // A year ahead of anything: had the reservation held a writer's time, any reader this far ahead would see it lapsed.
      expect(await takeBackLapsed(store, ahead, 365 * 86_400_000)).to.deep.equal([]);
      expect(await dropLeftBehind(store, [watchesProjection])).to.deep.equal([]);
      expect(await store.storedGenerations('watches')).to.deep.equal([1, running]);
    });

    it('a rebuild whose reservation lapsed and was taken back can neither renew it nor switch readers to its generation', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const stalled = await reserveGeneration(store);
      await store.resetGeneration('watches', stalled);
      await store.generation('watches', stalled).write([{ put: { _id: 'built', position: 1 } }]);
      const renewed = await reserveGeneration(store);
      const watch = new LeaseWatch();
      expect(await takeBackLapsed(store, watch, 0), 'first seen').to.deep.equal([]);
      await renewReservation(store, renewed);
      expect(await takeBackLapsed(store, watch, RESERVATION_TTL_MS - 1), 'seen unchanged for less than its length').to.deep.equal([]);
      expect(await takeBackLapsed(store, watch, RESERVATION_TTL_MS), 'the renewed one is kept').to.deep.equal([stalled]);
      const dropped = await dropLeftBehind(store, [watchesProjection]);
      expect(dropped).to.deep.equal([['watches', stalled]]);
      const refusals = await Promise.all([
        renewReservation(store, stalled), switchGenerations(store, ['watches'], stalled, {}),
      ].map((step) => step.then(() => 'done', (error: unknown) => (error as Error).message)));
      expect(refusals.every((message) => /lapsed/.test(message)), refusals.join('; ')).to.equal(true);
      expect(await store.get('watches', 'live-1'), 'readers stay on the live generation').to.deep.include({ _id: 'live-1' });
    });

    /** The control documents as readers see them, and every version the store keeps of them (MongoDB keeps two). */
    const controlCounts = async () => ({ documents: (await store.readControl()).length, stored: (await store.find('checkpoints', {})).length });

    // Five are enough: what failed rebuilds leaked before issue 28 (a checkpoint each) grows with every failure.
    it('5 failed rebuilds leave the control documents as few as before: each one\'s checkpoints go with its generation', async function () {
      this.timeout(60_000);
      await appendAll(eventStore, catalogueHistory(3));
      await rebuild({ eventStore, readStore: store, projections: [watchesProjection] });
      const before = await store.readControl();
      for (let failure = 1; failure <= 5; failure += 1) {
        const failed = rebuild({ eventStore, readStore: store, projections: [watchesProjection], beforeSwitch: () => { throw new Error(`failure ${failure}`); } });
        expect(await failed.then(() => 'switched', (error: Error) => error.message)).to.equal(`failure ${failure}`);
      }
      expect((await store.readControl()).map((doc) => doc._id).sort()).to.deep.equal(before.map((doc) => doc._id).sort());
      const { documents, stored } = await controlCounts();
      expect(stored, 'versions kept of each control document').to.be.at.most(2 * documents);
    });

    it('the next rebuild removes the checkpoints of rebuilds that crashed before their switch, with their generations', async function () {
      this.timeout(60_000);
      await appendAll(eventStore, catalogueHistory(3));
      await rebuild({ eventStore, readStore: store, projections: [watchesProjection] });
      const before = (await store.readControl()).length;
      for (let crash = 1; crash <= 3; crash += 1) {
        // The process dies at its switch: nothing it would clean up on failure reaches the store.
        let dead = false;
        const dying = new Proxy(store, {
          get: (target, key) => {
            const value = Reflect.get(target, key) as unknown;
            return typeof value === 'function' ? (...args: unknown[]) => (dead ? Promise.reject(new Error('dead')) : value.apply(target, args)) : value;
          },
        });
        const crashed = rebuild({ eventStore, readStore: dying, projections: [watchesProjection], beforeSwitch: () => { dead = true; } });
        await crashed.then(() => expect.fail('the crashed rebuild switched'), () => undefined);
      }
      expect((await store.readControl()).length, 'what the crashed rebuilds left').to.be.above(before);
      expect(await lapseUnrenewed(), 'the crashed rebuilds\' reservations').to.have.length(3);
      await rebuild({ eventStore, readStore: store, projections: [watchesProjection] });
      expect((await store.readControl()).length).to.equal(before);
      expect(await store.storedGenerations('watches')).to.have.length(1);
    });

    it('a generation another rebuild reserves between the pointer read and the listing of generations is kept', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      let started: number | undefined;
      // The listing is where the other rebuild slips in: it reserves its generation and starts building it.
      const racing: ReadStore = {
        ...store,
        storedGenerations: async (collection) => {
          if (started === undefined) {
            started = await reserveGeneration(store);
            await store.resetGeneration('watches', started);
            await store.generation('watches', started).write([{ put: { _id: 'built', position: 1 } }]);
          }
          return store.storedGenerations(collection);
        },
      };
      expect(await dropLeftBehind(racing, [watchesProjection])).to.deep.equal([]);
      expect(await store.storedGenerations('watches')).to.deep.equal([1, started]);
      expect(await store.generation('watches', started!).getStored(['built'])).to.have.length(1);
    });

    it('a rebuild running longer than its reservation renews it: another rebuild starting meanwhile leaves its generation alone', async () => {
      await appendAll(eventStore, catalogueHistory(3));
      let now = 0;
      const clock: LeaseClock = { monotonic: () => now, wall: () => now };
      let generation: number | undefined;
      let dropped: unknown[] = [];
      // Another rebuild (or a projector) watches the reservations on a clock of its own, at every batch.
      const other = new LeaseWatch();
      const looks: Promise<number[]>[] = [];
      const result = await rebuild({
        eventStore, readStore: store, projections: [watchesProjection], clock, batchSize: 1,
        // Each batch takes a tenth of the reservation's life on the rebuild's clock; past 1.5 lives, the other
        // drops what it finds left behind.
        onProgress: () => {
          now += RESERVATION_TTL_MS / 10;
          looks.push(takeBackLapsed(store, other, now + 150_000));
        },
        beforeSwitch: async () => {
          generation ??= Math.max(...await store.storedGenerations('watches'));
          expect(now).to.be.above(RESERVATION_TTL_MS * 1.5);
          expect((await Promise.all(looks)).flat(), 'reservations taken back').to.deep.equal([]);
          dropped = await dropLeftBehind(store, [watchesProjection]);
        },
      });
      expect(dropped).to.deep.equal([]);
      expect(result.generation).to.equal(generation);
      expect(await store.storedGenerations('watches')).to.deep.equal([result.generation]);
    });

    it('a failed rebuild drops its generation and gives its reservation up', async () => {
      await appendAll(eventStore, catalogueHistory(3));
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const failure = await rebuild({
        eventStore, readStore: store, projections: [watchesProjection],
        beforeSwitch: () => { throw new Error('the rebuild fails here'); },
      }).then(() => undefined, (error: unknown) => error);
      expect(String(failure)).to.match(/the rebuild fails here/);
      expect(await store.storedGenerations('watches'), 'its generation dropped').to.deep.equal([1]);
      const pointer = (await store.readControl()).find((doc) => doc._id === GENERATIONS_ID);
      expect(pointer?.['reservations'] ?? {}, 'no reservation left').to.deep.equal({});
      expect(await store.get('watches', 'live-1'), 'readers stay on the live generation').to.deep.include({ _id: 'live-1' });
    });

    it('rebuilds reserving at once get distinct generations, and one giving its reservation up leaves the other\'s', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const [first, second] = await Promise.all([reserveGeneration(store), reserveGeneration(store)]);
      expect([first, second].sort()).to.deep.equal([2, 3]);
      for (const generation of [first!, second!]) {
        await store.resetGeneration('watches', generation);
        await store.generation('watches', generation).write([{ put: { _id: `built-in-${generation}`, position: 1 } }]);
      }
      await releaseReservation(store, first!);
      expect(await dropLeftBehind(store, [watchesProjection])).to.deep.equal([['watches', first]]);
      await switchGenerations(store, ['watches'], second!, {});
      const third = await reserveGeneration(store);
      await store.resetGeneration('watches', third);
      await store.generation('watches', third).write([{ put: { _id: 'built-in-third', position: 1 } }]);
      expect(await dropLeftBehind(store, [watchesProjection])).to.deep.equal([['watches', 1]]);
      expect(await store.storedGenerations('watches')).to.deep.equal([second, third]);
    });

    it('the last generation reserved is dropped once its reservation lapsed', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const crashed = await reserveGeneration(store);
      await store.resetGeneration('watches', crashed);
      await store.generation('watches', crashed).write([{ put: { _id: 'built', position: 1 } }]);
      expect(await dropLeftBehind(store, [watchesProjection]), 'while reserved').to.deep.equal([]);
      expect(await lapseUnrenewed()).to.deep.equal([crashed]);
      expect(await dropLeftBehind(store, [watchesProjection])).to.deep.equal([['watches', crashed]]);
      expect(await store.storedGenerations('watches')).to.deep.equal([1]);
    });

    // Each projection's checkpoints belong to its own collection's generations: serials rebuilt alone is live at 2
    // while watches stays at 1, so serials' checkpoint at 2 is live, not left behind by watches' measure.
    it('keeps the live checkpoint of a projection rebuilt alone, whose generation is not the live one of the others', async () => {
      const serialsLive = await reserveGeneration(store);
      await store.resetGeneration('serials', serialsLive);
      await switchGenerations(store, ['serials'], serialsLive, {});
      await store.setControl(newCheckpoint('serials', serialsLive, 1, 5), {}, true);
      await store.setControl(newCheckpoint('watches', 1, 1, 5), {}, true);
      await dropLeftBehind(store, [watchesProjection, serialsProjection]);
      const kept = [...(await readControlDocs(store)).keys()].filter((id) => id.startsWith('checkpoint:')).sort();
      expect(kept).to.deep.equal([checkpointId('serials', serialsLive), checkpointId('watches', 1)]);
    });

    // An older owner recording its token late must neither win nor lower the newer one: the switch checks it.
    it('a lease token lower than the one recorded is refused and leaves it: a switch under it is refused naming both tokens, one under the newer goes through', async () => {
      expect(await recordLeaseToken(store, 'watches', 6)).to.equal(true);
      expect(await recordLeaseToken(store, 'watches', 5)).to.equal(false);
      const generation = await reserveGeneration(store);
      await store.resetGeneration('watches', generation);
      // The older owner's switch is refused, and the operator is told which tokens: its own and the newer one.
      const refusal = await switchGenerations(store, ['watches'], generation, { watches: 5 }).then(() => '', (error: Error) => error.message);
      expect(refusal).to.match(/watches/).and.match(/\b6\b/).and.match(/\b5\b/);
      expect(await switchGenerations(store, ['watches'], generation, { watches: 6 })).to.deep.equal(new Map([['watches', 1]]));
    });
  });
}
