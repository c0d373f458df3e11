/**
 * The `serials` read collection: one language-neutral document per registered serial, its status and the model
 * it belongs to. The hot path of a rebuild (histories are mostly registrations), so a registration builds its
 * document directly without looking at anything; a watch rename reaches the watch's serials by a filter.
 */
import { assertNever, type EventType } from '../../shared/events/index.ts';
import type { SerialDoc } from '../../shared/read-models/documents.ts';
import type { DocChange, PositionedEvent, Projection, Touches } from './projection.ts';

const HANDLED: EventType[] = ['SerialRegistered', 'SerialReportedStolen', 'SerialRecovered', 'WatchRevised'];

function touches(event: PositionedEvent): Touches {
  switch (event.type) {
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return { ids: [event.data.serial] };
    case 'WatchRevised':
      return event.data.name ? { ids: [], filter: { reference: event.data.reference } } : { ids: [] };
    case 'CollectionDefined':
    case 'CollectionRevised':
    case 'WatchPublished':
    case 'WatchPriceChanged':
    case 'WatchStockChanged':
    case 'WatchWithdrawn':
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
      return { ids: [] };
    default:
      return assertNever(event);
  }
}

function withStatus(docs: ReadonlyMap<string, SerialDoc>, serial: string, status: SerialDoc['status'], position: number): DocChange<SerialDoc>[] {
  const doc = docs.get(serial);
  return doc ? [{ put: { ...doc, status, position } }] : [];
}

function apply(event: PositionedEvent, docs: ReadonlyMap<string, SerialDoc>): DocChange<SerialDoc>[] {
  const { position } = event;
  switch (event.type) {
    case 'SerialRegistered': {
      const { serial, reference, collection, manufacture_year, model } = event.data;
      return [{
        put: { _id: serial, serial, status: 'authentic', reference, collection, manufacture_year, model: { en: model.en, fr: model.fr }, position },
      }];
    }
    case 'SerialReportedStolen':
      return withStatus(docs, event.data.serial, 'stolen', position);
    case 'SerialRecovered':
      return withStatus(docs, event.data.serial, 'authentic', position);
    case 'WatchRevised': {
      const { reference, name } = event.data;
      if (!name) return [];
      return [...docs.values()]
        .filter((doc) => doc.reference === reference)
        .map((doc) => ({ put: { ...doc, model: { en: name.en, fr: name.fr }, position } }));
    }
    case 'CollectionDefined':
    case 'CollectionRevised':
    case 'WatchPublished':
    case 'WatchPriceChanged':
    case 'WatchStockChanged':
    case 'WatchWithdrawn':
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
      return [];
    default:
      return assertNever(event);
  }
}

export const serialsProjection: Projection<SerialDoc> = {
  name: 'serials',
  collection: 'serials',
  handles: new Set(HANDLED),
  touches,
  apply,
};
