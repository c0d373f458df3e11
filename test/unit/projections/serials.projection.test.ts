import { expect } from 'chai';
import { serialRecovered, serialRegistered, serialReportedStolen } from '../../fixtures/events.ts';
import type { SerialDoc } from '../../../shared/read-model/documents/documents.ts';
import { serialsProjection } from '../../../shared/read-model/projections/serials.projection.ts';
import { doc, event, given, positioned } from './support/projection-spec.ts';

const registered = serialRegistered('LUM-0001', {
  reference: 'LUM-01', collection: 'lumiere', model: { en: 'Lumière Date', fr: 'Lumière Quantième' }, manufacture_year: 2023,
});

describe('serials projection', () => {
  it('registers a serial as authentic with its watch, collection, year and model in both languages', async () => {
    const docs = await given<SerialDoc>(serialsProjection, [registered]);
    expect(doc(docs, 'LUM-0001')).to.deep.equal({
      _id: 'LUM-0001', serial: 'LUM-0001', status: 'authentic', reference: 'LUM-01', collection: 'lumiere',
      manufacture_year: 2023, model: { en: 'Lumière Date', fr: 'Lumière Quantième' }, position: 1,
    });
  });

  it('reports a serial stolen, then authentic again once recovered', async () => {
    const stolen = await given<SerialDoc>(serialsProjection, [registered, serialReportedStolen('LUM-0001')]);
    expect(doc(stolen, 'LUM-0001')).to.include({ status: 'stolen', position: 2 });
    const recovered = await given<SerialDoc>(serialsProjection, [registered, serialReportedStolen('LUM-0001'), serialRecovered('LUM-0001')]);
    expect(doc(recovered, 'LUM-0001')).to.include({ status: 'authentic', position: 3 });
  });

  it('reaches the serials of a renamed watch by its reference alone, and none for a revision that keeps the name', async () => {
    const [renamed, described] = positioned([
      event('WatchRevised', { reference: 'LUM-01', name: { en: 'Lumière Night', fr: 'Lumière Nuit' } }),
      event('WatchRevised', { reference: 'LUM-01', features: { en: [], fr: [] } }),
    ], 2);
    expect(serialsProjection.touches(renamed!)).to.deep.equal({ ids: [], filter: { reference: 'LUM-01' } });
    expect(serialsProjection.touches(described!)).to.deep.equal({ ids: [] });
    // Even with the watch's serials at hand, a revision that keeps the name changes none of them.
    const held = await given<SerialDoc>(serialsProjection, [registered]);
    expect(serialsProjection.apply(described!, held)).to.deep.equal([]);
  });

  for (const batchSize of [1, 10]) {
    it(`renames the model of every serial of a revised watch and of no other (batches of ${batchSize})`, async () => {
      const docs = await given<SerialDoc>(serialsProjection, [
        registered,
        serialRegistered('LUM-0002', { reference: 'LUM-01' }),
        serialRegistered('OTH-0001', { reference: 'OTH-01', model: { en: 'Other', fr: 'Autre' } }),
        event('WatchRevised', { reference: 'LUM-01', name: { en: 'Lumière Night', fr: 'Lumière Nuit' } }),
        event('WatchRevised', { reference: 'LUM-01', features: { en: [], fr: [] } }),
      ], batchSize);
      expect(doc(docs, 'LUM-0001').model).to.deep.equal({ en: 'Lumière Night', fr: 'Lumière Nuit' });
      expect(doc(docs, 'LUM-0002')).to.deep.include({ model: { en: 'Lumière Night', fr: 'Lumière Nuit' }, position: 4 });
      expect(doc(docs, 'OTH-0001').model).to.deep.equal({ en: 'Other', fr: 'Autre' });
    });
  }
});
