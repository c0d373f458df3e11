/**
 * docs/api.md, "Honest answers": an event of a type a projection does not handle is projected without failing; an
 * event that cannot be decoded stops the projections that must read it, as a failing event does (the runner then
 * parks them), and only those. The expected documents are those of the same history without the unreadable record.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { UnreadableEvent } from '../../../shared/ports/event-store.ts';
import { FIRST_GENERATION } from '../../../shared/ports/read-store.ts';
import { projectBatch, ProjectionEventError } from '../../../shared/read-model/projections/batch.ts';
import { PROJECTIONS, READ_MODEL_PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import type { PositionedRecord } from '../../../shared/read-model/projections/projection.ts';
import { collectionDefined, eventMetadata, serialRegistered, watchPriceChanged, watchPublished } from '../../fixtures/events.ts';
import { documents, positioned, project } from './support/projection-spec.ts';

/** Positions 1, 2, then 4, 5: the unreadable record takes 3. */
const readable = [
  ...positioned([collectionDefined('tempo'), watchPublished('TMP-1', 'tempo', { customizable: true, price_cents: 100_000 })]),
  ...positioned([serialRegistered('TMP-0001', { reference: 'TMP-1', collection: 'tempo' }), watchPriceChanged('TMP-1', 150_000, 100_000)], 4),
];

function unreadable(type: string, problem: string): UnreadableEvent {
  return { type, id: 'id-3', stream: 'serial-TMP-0001', revision: 1, position: 3, metadata: eventMetadata(), unreadable: problem };
}

/** The readable history with `record` in its place, at position 3. */
const withRecord = (record: UnreadableEvent): PositionedRecord[] => [...readable.slice(0, 2), record, ...readable.slice(2)];

describe('projections meeting events this version cannot read', () => {
  // The transparency log makes a leaf of every stored event, from its texts (test/unit/transparency/log-projection.test.ts).
  for (const projection of READ_MODEL_PROJECTIONS) {
    it(`${projection.name}: skips an event of a type this version does not know, as it skips any type it does not handle`, async () => {
      const expected = createMemoryReadStore();
      await project(expected, projection, readable);
      const actual = createMemoryReadStore();
      const ops = await projectBatch(projection, withRecord(unreadable('SerialTransferred', 'unknown event type')), actual.generation(projection.collection, FIRST_GENERATION));
      await actual.write(projection.collection, ops);
      expect(await documents(actual, projection)).to.deep.equal(await documents(expected, projection));
    });
  }

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
