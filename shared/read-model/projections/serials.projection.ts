/**
 * The `serials` read collection: one language-neutral document per registered serial, its status and the model
 * it belongs to. The hot path of a rebuild (histories are mostly registrations), so a registration builds its
 * document directly from the event; a watch rename reaches the watch's serials by a filter.
 *
 * An event of a type this version does not know in a serial's stream (a newer writer's, during a rolling deploy) is
 * a change of that serial whose meaning cannot be known here: the serial's document is marked with its position
 * (`unreadable_from`), made for a serial not registered too, and kept marked whatever follows, so that no verification
 * answers for it (verify.operation.ts) until a version that reads the event rebuilds this read model.
 */
import type { SerialDoc, SerialsDoc } from '../documents/documents.ts';
import { serialOfStream } from '../../ports/event-store.ts';
import { projectionOf, type DocChange, type Touches } from './projection.ts';

/** A serial's own events touch its document. */
const serialDoc = (event: { data: { serial: string } }): Touches => ({ ids: [event.data.serial] });

const isRegistered = (doc: SerialsDoc | undefined): doc is SerialDoc => doc !== undefined && 'status' in doc;

/** A status change of a serial never registered changes nothing. */
function withStatus(docs: ReadonlyMap<string, SerialsDoc>, serial: string, status: SerialDoc['status'], position: number): DocChange<SerialsDoc>[] {
  const doc = docs.get(serial);
  return isRegistered(doc) ? [{ put: { ...doc, status, position } }] : [];
}

export const serialsProjection = projectionOf<SerialsDoc>({
  name: 'serials',
  collection: 'serials',
  on: {
    SerialRegistered: {
      touches: serialDoc,
      apply: (event, docs) => {
        const { serial, reference, collection, manufacture_year, model } = event.data;
        const unreadableFrom = docs.get(serial)?.unreadable_from;
        return [{
          put: {
            _id: serial, serial, status: 'authentic', reference, collection, manufacture_year, model: { en: model.en, fr: model.fr },
            ...(unreadableFrom !== undefined && { unreadable_from: unreadableFrom }),
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
          .filter((doc) => isRegistered(doc) && doc.reference === reference)
          .map((doc) => ({ put: { ...doc, model: { en: name.en, fr: name.fr }, position: event.position } }));
      },
    },
  },
  unknownTypes: {
    touches: ({ stream }) => {
      const serial = serialOfStream(stream);
      return { ids: serial === undefined ? [] : [serial] };
    },
    apply: ({ stream, position }, docs) => {
      const serial = serialOfStream(stream);
      if (serial === undefined) return [];
      const doc = docs.get(serial);
      // The first such event is the one a rebuild must read; a later one changes nothing more.
      if (doc?.unreadable_from !== undefined) return [];
      return [{ put: doc ? { ...doc, unreadable_from: position, position } : { _id: serial, serial, unreadable_from: position, position } }];
    },
  },
});
