/**
 * The serials read model after a small history, written out by hand (not taken from rebuild()): both the
 * incremental path (batches through the projector's batch applier) and rebuild() must give exactly these
 * documents, so an error common to the two paths is caught. docs/api.md: a serial is STOLEN while reported stolen
 * and not since recovered; the model name follows the watch's revisions.
 */
import { expect } from 'chai';
import { collectionDefined, serialRecovered, serialRegistered, serialReportedStolen, watchPublished } from '../../fixtures/events.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import type { NewEvent } from '../../../shared/ports/event-store.ts';
import { serialsProjection } from '../../../shared/read-model/projections/serials.projection.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import type { SerialDoc } from '../../../shared/read-model/documents/documents.ts';
import { appendAll, newEvent } from '../../projector/support/history.ts';
import { given } from './support/projection-spec.ts';

const lumiere = { en: 'Lumière Date', fr: 'Lumière Quantième' };
const night = { en: 'Lumière Night', fr: 'Lumière Nuit' };
const abyss = { en: 'Abyss 300', fr: 'Abysse 300' };

// Positions 1 to 11, in this order.
const HISTORY: NewEvent[] = [
  collectionDefined('lumiere'), // 1
  watchPublished('LUM-01', 'lumiere'), // 2
  serialRegistered('LUM-0001', { reference: 'LUM-01', collection: 'lumiere', model: lumiere, manufacture_year: 2021 }), // 3
  serialRegistered('LUM-0002', { reference: 'LUM-01', collection: 'lumiere', model: lumiere, manufacture_year: 2022 }), // 4
  serialRegistered('ABY-0001', { reference: 'ABY-01', collection: 'abysse', model: abyss, manufacture_year: 2019 }), // 5
  serialReportedStolen('LUM-0001'), // 6
  serialReportedStolen('ABY-0001'), // 7
  serialRecovered('ABY-0001'), // 8
  newEvent('WatchRevised', { reference: 'LUM-01', name: night }), // 9
  serialReportedStolen('ABY-0001'), // 10
  serialRecovered('LUM-0001'), // 11
];

const serial = (id: string, rest: Omit<SerialDoc, '_id' | 'serial'>): SerialDoc => ({ _id: id, serial: id, ...rest });
const EXPECTED: SerialDoc[] = [
  serial('ABY-0001', { status: 'stolen', reference: 'ABY-01', collection: 'abysse', manufacture_year: 2019, model: abyss, position: 10 }),
  serial('LUM-0001', { status: 'authentic', reference: 'LUM-01', collection: 'lumiere', manufacture_year: 2021, model: night, position: 11 }),
  serial('LUM-0002', { status: 'authentic', reference: 'LUM-01', collection: 'lumiere', manufacture_year: 2022, model: night, position: 9 }),
];

const byId = (docs: Iterable<SerialDoc>) => [...docs].sort((a, b) => a._id.localeCompare(b._id));

describe('serials read model after a hand-written history', () => {
  for (const batchSize of [1, 4, Number.POSITIVE_INFINITY]) {
    it(`holds exactly the expected documents, projected in batches of ${batchSize}`, async () => {
      const docs = await given<SerialDoc>(serialsProjection, HISTORY, batchSize);
      expect(byId(docs.values())).to.deep.equal(EXPECTED);
    });
  }

  it('holds exactly the expected documents after rebuild() of that history', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const readStore = createMemoryReadStore();
    try {
      expect(await appendAll(eventStore, HISTORY)).to.equal(11);
      const result = await rebuild({ eventStore, readStore, projections: [serialsProjection] });
      expect(result.position).to.equal(11);
      expect(byId(await readStore.find<SerialDoc>('serials', {}))).to.deep.equal(EXPECTED);
    } finally {
      await eventStore.close();
      await readStore.close();
    }
  });
});
