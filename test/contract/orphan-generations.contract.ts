/**
 * Generations left behind are dropped by the next rebuild, on every read store: one a rebuild that crashed before
 * its switch was building, and one a rebuild switched away from but crashed before dropping. A generation that a
 * running rebuild reserved is kept, and so is the live one, and every projection's live checkpoint. The lease tokens
 * recorded in the pointer only grow, and a switch holds only under the latest.
 */
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { RESERVATION_TTL_MS, dropLeftBehind, recordLeaseToken, releaseReservation, renewReservation, reserveGeneration, switchGenerations } from '../../shared/projections/generations.ts';
import { GENERATIONS_ID } from '../../shared/ports/read-store.ts';
import type { LeaseClock } from '../../shared/projections/lease.ts';
import { rebuild } from '../../shared/projections/rebuild.ts';
import { checkpointId, newCheckpoint, readControlDocs } from '../../shared/projections/control-docs.ts';
import { serialsProjection } from '../../shared/projections/serials.projection.ts';
import { watchesProjection } from '../../shared/projections/watches.projection.ts';
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

    it('the next rebuild drops what crashed rebuilds left, and keeps the live generation and a running rebuild\'s', async () => {
      await appendAll(eventStore, catalogueHistory(3));
      let wall = 0;
      const clock: LeaseClock = { monotonic: () => wall, wall: () => wall };
      const building = async (generation: number) => {
        await store.resetGeneration('watches', generation);
        await store.generation('watches', generation).write([{ put: { _id: `built-in-${generation}`, position: 1 } }]);
      };
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      // Generation 2 went live, and the rebuild crashed before dropping generation 1.
      const switched = await reserveGeneration(store, wall);
      await building(switched);
      await switchGenerations(store, ['watches'], switched, {});
      // Generation 3: a rebuild crashed before its switch.
      const crashed = await reserveGeneration(store, wall);
      await building(crashed);
      // Generation 4: a rebuild still running, its reservation just taken.
      wall = RESERVATION_TTL_MS;
      const running = await reserveGeneration(store, wall);
      await building(running);
      expect(await store.storedGenerations('watches')).to.deep.equal([1, switched, crashed, running]);

      wall = RESERVATION_TTL_MS + 1;
      const result = await rebuild({ eventStore, readStore: store, projections: [watchesProjection], clock });
      expect(await store.storedGenerations('watches')).to.deep.equal([running, result.generation]);
      expect(await store.generation('watches', running).getStored([`built-in-${running}`]), 'the running rebuild\'s work').to.have.length(1);
    });

    it('a rebuild whose reservation lapsed and was taken back can neither renew it nor switch readers to its generation', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const stalled = await reserveGeneration(store, 0);
      await store.resetGeneration('watches', stalled);
      await store.generation('watches', stalled).write([{ put: { _id: 'built', position: 1 } }]);
      const renewed = await reserveGeneration(store, 0);
      await renewReservation(store, renewed, RESERVATION_TTL_MS);
      const dropped = await dropLeftBehind(store, [watchesProjection], RESERVATION_TTL_MS + 1);
      expect(dropped).to.deep.equal([['watches', stalled]]);
      const refusals = await Promise.all([
        renewReservation(store, stalled, RESERVATION_TTL_MS + 1), switchGenerations(store, ['watches'], stalled, {}),
      ].map((step) => step.then(() => 'done', (error: unknown) => (error as Error).message)));
      expect(refusals.every((message) => /lapsed/.test(message)), refusals.join('; ')).to.equal(true);
      expect(await store.get('watches', 'live-1'), 'readers stay on the live generation').to.deep.include({ _id: 'live-1' });
    });

    /** The control documents as readers see them, and every version the store keeps of them (MongoDB keeps two). */
    const controlCounts = async () => ({ documents: (await store.readControl()).length, stored: (await store.find('checkpoints', {})).length });

    it('25 failed rebuilds leave the control documents as few as before: each one\'s checkpoints go with its generation', async function () {
      this.timeout(120_000);
      await appendAll(eventStore, catalogueHistory(3));
      await rebuild({ eventStore, readStore: store, projections: [watchesProjection] });
      const before = await store.readControl();
      for (let failure = 1; failure <= 25; failure += 1) {
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
      let wall = 0;
      const clock: LeaseClock = { monotonic: () => wall, wall: () => wall };
      await rebuild({ eventStore, readStore: store, projections: [watchesProjection], clock });
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
        const crashed = rebuild({ eventStore, readStore: dying, projections: [watchesProjection], clock, beforeSwitch: () => { dead = true; } });
        await crashed.then(() => expect.fail('the crashed rebuild switched'), () => undefined);
      }
      expect((await store.readControl()).length, 'what the crashed rebuilds left').to.be.above(before);
      wall = RESERVATION_TTL_MS + 1;
      await rebuild({ eventStore, readStore: store, projections: [watchesProjection], clock });
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
            started = await reserveGeneration(store, 0);
            await store.resetGeneration('watches', started);
            await store.generation('watches', started).write([{ put: { _id: 'built', position: 1 } }]);
          }
          return store.storedGenerations(collection);
        },
      };
      expect(await dropLeftBehind(racing, [watchesProjection], 0)).to.deep.equal([]);
      expect(await store.storedGenerations('watches')).to.deep.equal([1, started]);
      expect(await store.generation('watches', started!).getStored(['built'])).to.have.length(1);
    });

    it('a rebuild running longer than its reservation renews it: another rebuild starting meanwhile leaves its generation alone', async () => {
      await appendAll(eventStore, catalogueHistory(3));
      let wall = 0;
      const clock: LeaseClock = { monotonic: () => wall, wall: () => wall };
      let generation: number | undefined;
      let dropped: unknown[] = [];
      const result = await rebuild({
        eventStore, readStore: store, projections: [watchesProjection], clock, batchSize: 1,
        // Each batch takes a tenth of the reservation's life on the rebuild's clock; past 1.5 lives, another
        // rebuild starts and drops what it finds left behind.
        onProgress: () => { wall += RESERVATION_TTL_MS / 10; },
        beforeSwitch: async () => {
          generation ??= Math.max(...await store.storedGenerations('watches'));
          expect(wall).to.be.above(RESERVATION_TTL_MS * 1.5);
          dropped = await dropLeftBehind(store, [watchesProjection], wall);
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
      const [first, second] = await Promise.all([reserveGeneration(store, 0), reserveGeneration(store, 0)]);
      expect([first, second].sort()).to.deep.equal([2, 3]);
      for (const generation of [first!, second!]) {
        await store.resetGeneration('watches', generation);
        await store.generation('watches', generation).write([{ put: { _id: `built-in-${generation}`, position: 1 } }]);
      }
      await releaseReservation(store, first!);
      expect(await dropLeftBehind(store, [watchesProjection], 1)).to.deep.equal([['watches', first]]);
      await switchGenerations(store, ['watches'], second!, {});
      const third = await reserveGeneration(store, 1);
      await store.resetGeneration('watches', third);
      await store.generation('watches', third).write([{ put: { _id: 'built-in-third', position: 1 } }]);
      expect(await dropLeftBehind(store, [watchesProjection], 2)).to.deep.equal([['watches', 1]]);
      expect(await store.storedGenerations('watches')).to.deep.equal([second, third]);
    });

    it('the last generation reserved is dropped once its reservation lapsed', async () => {
      await store.write('watches', [{ put: { _id: 'live-1', position: 1 } }]);
      const crashed = await reserveGeneration(store, 0);
      await store.resetGeneration('watches', crashed);
      await store.generation('watches', crashed).write([{ put: { _id: 'built', position: 1 } }]);
      expect(await dropLeftBehind(store, [watchesProjection], RESERVATION_TTL_MS + 1)).to.deep.equal([['watches', crashed]]);
      expect(await store.storedGenerations('watches')).to.deep.equal([1]);
    });

    // Each projection's checkpoints belong to its own collection's generations: serials rebuilt alone is live at 2
    // while watches stays at 1, so serials' checkpoint at 2 is live, not left behind by watches' measure.
    it('keeps the live checkpoint of a projection rebuilt alone, whose generation is not the live one of the others', async () => {
      const serialsLive = await reserveGeneration(store, 0);
      await store.resetGeneration('serials', serialsLive);
      await switchGenerations(store, ['serials'], serialsLive, {});
      await store.setControl(newCheckpoint('serials', serialsLive, 1, 5), {}, true);
      await store.setControl(newCheckpoint('watches', 1, 1, 5), {}, true);
      await dropLeftBehind(store, [watchesProjection, serialsProjection], 1);
      const kept = [...(await readControlDocs(store)).keys()].filter((id) => id.startsWith('checkpoint:')).sort();
      expect(kept).to.deep.equal([checkpointId('serials', serialsLive), checkpointId('watches', 1)]);
    });

    // An older owner recording its token late must neither win nor lower the newer one: the switch checks it.
    it('a lease token lower than the one recorded is refused and leaves it: a switch under it is refused naming both tokens, one under the newer goes through', async () => {
      expect(await recordLeaseToken(store, 'watches', 6)).to.equal(true);
      expect(await recordLeaseToken(store, 'watches', 5)).to.equal(false);
      const generation = await reserveGeneration(store, 0);
      await store.resetGeneration('watches', generation);
      // The older owner's switch is refused, and the operator is told which tokens: its own and the newer one.
      const refusal = await switchGenerations(store, ['watches'], generation, { watches: 5 }).then(() => '', (error: Error) => error.message);
      expect(refusal).to.match(/watches/).and.match(/\b6\b/).and.match(/\b5\b/);
      expect(await switchGenerations(store, ['watches'], generation, { watches: 6 })).to.deep.equal(new Map([['watches', 1]]));
    });
  });
}
