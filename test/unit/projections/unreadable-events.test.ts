/**
 * docs/api.md, "Honest answers": an event of a type a projection does not handle is projected without failing; an
 * event that cannot be decoded stops the projections that must read it, as a failing event does (the runner then
 * parks them), and only those. The expected documents are those of the same history without the unreadable record,
 * but in the serials read model: there an event of a type this version does not know in a serial's stream marks the
 * serial's document with its position (`unreadable_from`), which no verification answers for.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { UnreadableEvent } from '../../../shared/ports/event-store.ts';
import { FIRST_GENERATION } from '../../../shared/ports/read-store.ts';
import { projectBatch, ProjectionEventError } from '../../../shared/read-model/projections/batch.ts';
import { PROJECTIONS, READ_MODEL_PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import type { PositionedRecord } from '../../../shared/read-model/projections/projection.ts';
import type { SerialsDoc } from '../../../shared/read-model/documents/documents.ts';
import { serialsProjection } from '../../../shared/read-model/projections/serials.projection.ts';
import { collectionDefined, eventMetadata, serialRegistered, serialReportedStolen, watchPriceChanged, watchPublished } from '../../fixtures/events.ts';
import { doc, documents, positioned, project } from './support/projection-spec.ts';

/** Positions 1, 2, then 4, 5: the unreadable record takes 3. */
const readable = [
  ...positioned([collectionDefined('tempo'), watchPublished('TMP-1', 'tempo', { customizable: true, price_cents: 100_000 })]),
  ...positioned([serialRegistered('TMP-0001', { reference: 'TMP-1', collection: 'tempo' }), watchPriceChanged('TMP-1', 150_000, 100_000)], 4),
];

function unreadable(type: string, problem: string, stream = 'serial-TMP-0001', position = 3): UnreadableEvent {
  return { type, id: `id-${position}`, stream, revision: 1, position, metadata: eventMetadata(), unreadable: problem };
}

/** An event of a type this version does not know (a newer writer's), in `stream`. */
const newerType = (stream: string, position: number) => unreadable('SerialTransferred', 'unknown event type', stream, position);

/** The readable history with `record` in its place, at position 3. */
const withRecord = (record: UnreadableEvent): PositionedRecord[] => [...readable.slice(0, 2), record, ...readable.slice(2)];

describe('projections meeting events this version cannot read', () => {
  // The transparency log makes a leaf of every stored event, from its texts (test/unit/transparency/log-projection.test.ts).
  for (const projection of READ_MODEL_PROJECTIONS) {
    // The serials read model marks the serial whose stream holds one (below).
    const streams = projection.name === 'serials' ? ['watch-TMP-1'] : ['watch-TMP-1', 'serial-TMP-0001'];
    it(`${projection.name}: skips an event of a type this version does not know in ${streams.join(' or ')}, as it skips any type it does not handle`, async () => {
      const expected = createMemoryReadStore();
      await project(expected, projection, readable);
      for (const stream of streams) {
        const actual = createMemoryReadStore();
        const ops = await projectBatch(projection, withRecord(newerType(stream, 3)), actual.generation(projection.collection, FIRST_GENERATION));
        await actual.write(projection.collection, ops);
        expect(await documents(actual, projection), stream).to.deep.equal(await documents(expected, projection));
      }
    });
  }

  describe('serials: an event of a type this version does not know in a serial\'s stream, a change of the serial it cannot read', () => {
    const registered = { reference: 'TMP-1', collection: 'tempo', model: { en: 'Tempo', fr: 'Tempo' }, manufacture_year: 2024 };
    /** Every serials document after `records`, projected in batches of `batchSize`, then all of them again (a replay). */
    async function serialsAfter(records: readonly PositionedRecord[], batchSize: number): Promise<Map<string, SerialsDoc>> {
      const store = createMemoryReadStore();
      await project(store, serialsProjection, records, batchSize);
      const projected = await documents<SerialsDoc>(store, serialsProjection);
      await project(store, serialsProjection, records);
      expect(await documents(store, serialsProjection), 'replayed').to.deep.equal(projected);
      return projected;
    }

    for (const batchSize of [1, 10]) {
      it(`marks a registered serial with the first one's position, keeps its other fields and the changes it reads after it (batches of ${batchSize})`, async () => {
        const [registration, theft] = positioned([serialRegistered('TMP-0001', registered), serialReportedStolen('TMP-0001')], 1);
        const marked = await serialsAfter([registration!, newerType('serial-TMP-0001', 2)], batchSize);
        expect(doc(marked, 'TMP-0001')).to.deep.equal({
          _id: 'TMP-0001', serial: 'TMP-0001', status: 'authentic', ...registered, unreadable_from: 2, position: 2,
        });
        const later = await serialsAfter([registration!, newerType('serial-TMP-0001', 2), { ...theft!, position: 3 }, newerType('serial-TMP-0001', 4)], batchSize);
        expect(doc(later, 'TMP-0001')).to.include({ status: 'stolen', unreadable_from: 2, position: 3 });
      });

      it(`makes a marked document for a serial it does not hold, which a registration after it keeps marked (batches of ${batchSize})`, async () => {
        const [theft, registration] = positioned([serialReportedStolen('TMP-0002'), serialRegistered('TMP-0002', registered)], 2);
        const marked = await serialsAfter([newerType('serial-TMP-0002', 1), theft!], batchSize);
        expect([...marked.values()]).to.deep.equal([{ _id: 'TMP-0002', serial: 'TMP-0002', unreadable_from: 1, position: 1 }]);
        const registeredAfter = await serialsAfter([newerType('serial-TMP-0002', 1), theft!, registration!], batchSize);
        expect(doc(registeredAfter, 'TMP-0002')).to.deep.equal({
          _id: 'TMP-0002', serial: 'TMP-0002', status: 'authentic', ...registered, unreadable_from: 1, position: 3,
        });
      });
    }

    it('is not failed by it, and leaves the other serials as they were', async () => {
      const history = withRecord(newerType('serial-TMP-0002', 3));
      const expected = createMemoryReadStore();
      await project(expected, serialsProjection, readable);
      const actual = await serialsAfter(history, 10);
      expect(doc(actual, 'TMP-0001')).to.deep.equal(doc(await documents<SerialsDoc>(expected, serialsProjection), 'TMP-0001'));
      expect(doc(actual, 'TMP-0002')).to.deep.equal({ _id: 'TMP-0002', serial: 'TMP-0002', unreadable_from: 3, position: 3 });
    });
  });

  it('fails only the projections that handle the type of an event that does not decode, naming the event and the problem', async () => {
    const problem = "data must have required property 'serial'";
    const batch = withRecord(unreadable('SerialReportedStolen', problem));
    for (const projection of READ_MODEL_PROJECTIONS) {
      const store = createMemoryReadStore();
      const outcome = projectBatch(projection, batch, store.generation(projection.collection, FIRST_GENERATION));
      if (projection.name !== 'serials') {
        const expected = createMemoryReadStore();
        await project(expected, projection, readable);
        await store.write(projection.collection, await outcome);
        expect(await documents(store, projection), projection.name).to.deep.equal(await documents(expected, projection));
        continue;
      }
      const error = await outcome.then(() => undefined, (thrown: unknown) => thrown);
      expect(error).to.be.instanceOf(ProjectionEventError);
      expect(error).to.include({ projection: 'serials', position: 3, eventType: 'SerialReportedStolen' });
      expect((error as Error).message).to.equal(`projection serials cannot apply SerialReportedStolen at position 3: this version cannot read it: ${problem}`);
    }
  });

  it('fails the transparency log on an event it cannot read and whose texts the store does not keep: no leaf is made up', async () => {
    const log = PROJECTIONS.find((projection) => projection.everyRecord)!;
    const store = createMemoryReadStore();
    const error = await projectBatch(log, withRecord(unreadable('SerialTransferred', 'unknown event type')), store.generation(log.collection, FIRST_GENERATION))
      .then(() => undefined, (thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(ProjectionEventError);
    expect(error).to.include({ projection: 'transparency-log', position: 3, eventType: 'SerialTransferred' });
    expect((error as Error).message).to.match(/cannot read it and the store keeps no text of it: unknown event type$/);
  });
});
