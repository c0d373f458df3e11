/**
 * The `serials` read collection: one language-neutral document per registered serial, its status and the model
 * it belongs to. The hot path of a rebuild (histories are mostly registrations), so a registration builds its
 * document directly without looking at anything; a watch rename reaches the watch's serials by a filter.
 */
import type { SerialDoc } from '../documents/documents.ts';
import { projectionOf, type DocChange, type Touches } from './projection.ts';

/** A serial's own events touch its document. */
const serialDoc = (event: { data: { serial: string } }): Touches => ({ ids: [event.data.serial] });

function withStatus(docs: ReadonlyMap<string, SerialDoc>, serial: string, status: SerialDoc['status'], position: number): DocChange<SerialDoc>[] {
  const doc = docs.get(serial);
  return doc ? [{ put: { ...doc, status, position } }] : [];
}

export const serialsProjection = projectionOf<SerialDoc>({
  name: 'serials',
  collection: 'serials',
  on: {
    SerialRegistered: {
      touches: serialDoc,
      apply: (event) => {
        const { serial, reference, collection, manufacture_year, model } = event.data;
        return [{
          put: {
            _id: serial, serial, status: 'authentic', reference, collection, manufacture_year, model: { en: model.en, fr: model.fr },
            position: event.position,
          },
        }];
      },
    },
    SerialReportedStolen: {
      touches: serialDoc,
      apply: (event, docs) => withStatus(docs, event.data.serial, 'stolen', event.position),
    },
    SerialRecovered: {
      touches: serialDoc,
      apply: (event, docs) => withStatus(docs, event.data.serial, 'authentic', event.position),
    },
    WatchRevised: {
      touches: (event) => (event.data.name ? { ids: [], filter: { reference: event.data.reference } } : { ids: [] }),
      apply: (event, docs) => {
        const { reference, name } = event.data;
        if (!name) return [];
        return [...docs.values()]
          .filter((doc) => doc.reference === reference)
          .map((doc) => ({ put: { ...doc, model: { en: name.en, fr: name.fr }, position: event.position } }));
      },
    },
  },
});
