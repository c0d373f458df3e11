/**
 * The `watches` read collection: one document per (language, reference) for every published, not withdrawn,
 * watch. Beside the watch documents the projection keeps two kinds of small records of its own, without `lang`
 * so that no public query (they all filter by language) ever matches them:
 * - per collection, its names (`collection:{code}`): watch events name their collection by code only, and a
 *   rename rewrites the name into every watch of the collection;
 * - per withdrawn watch, the position of its withdrawal (`withdrawn:{reference}`): the watch documents are gone,
 *   so without it a replayed publication would bring them back.
 */
import { assertNever, LANGUAGES, type EventType, type LocalizedText } from '../../shared/events/index.ts';
import type { StoredDoc } from '../../shared/ports/read-store.ts';
import type { WatchDoc } from '../../shared/read-models/documents.ts';
import { langIds, required, type DocChange, type PositionedEvent, type Projection, type Touches } from './projection.ts';
import { isInStock, publishedWatch, renamedCollection, revisedWatch } from './watch-document.ts';

/** The watches projection's record of a collection's names. */
export interface CollectionNamesDoc extends StoredDoc {
  kind: 'collection';
  code: string;
  name: LocalizedText;
}

/** The watches projection's record that a watch was withdrawn (at `position`). */
export interface WithdrawnWatchDoc extends StoredDoc {
  kind: 'withdrawn';
  reference: string;
}

export type WatchesProjectionDoc = WatchDoc | CollectionNamesDoc | WithdrawnWatchDoc;

export const collectionNamesId = (code: string): string => `collection:${code}`;
export const withdrawnId = (reference: string): string => `withdrawn:${reference}`;

const HANDLED: EventType[] = [
  'CollectionDefined', 'CollectionRevised',
  'WatchPublished', 'WatchRevised', 'WatchPriceChanged', 'WatchStockChanged', 'WatchWithdrawn',
];

function touches(event: PositionedEvent): Touches {
  switch (event.type) {
    case 'CollectionDefined':
      return { ids: [collectionNamesId(event.data.code)] };
    case 'CollectionRevised':
      return event.data.name
        ? { ids: [collectionNamesId(event.data.code)], filter: { 'collection.code': event.data.code } }
        : { ids: [] };
    case 'WatchPublished':
      return { ids: [...langIds(event.data.reference), collectionNamesId(event.data.collection), withdrawnId(event.data.reference)] };
    case 'WatchWithdrawn':
      return { ids: [...langIds(event.data.reference), withdrawnId(event.data.reference)] };
    case 'WatchRevised':
    case 'WatchPriceChanged':
    case 'WatchStockChanged':
      return { ids: langIds(event.data.reference) };
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return { ids: [] };
    default:
      return assertNever(event);
  }
}

/** The existing watch documents of a reference (both languages, or none once withdrawn). */
function watchDocs(docs: ReadonlyMap<string, WatchesProjectionDoc>, reference: string): WatchDoc[] {
  return langIds(reference).flatMap((id) => {
    const doc = docs.get(id);
    return doc && !('kind' in doc) ? [doc] : [];
  });
}

const put = (doc: WatchesProjectionDoc): DocChange<WatchesProjectionDoc> => ({ put: doc });

function apply(event: PositionedEvent, docs: ReadonlyMap<string, WatchesProjectionDoc>): DocChange<WatchesProjectionDoc>[] {
  const { position } = event;
  switch (event.type) {
    case 'CollectionDefined': {
      const { code, name } = event.data;
      return [put({ _id: collectionNamesId(code), kind: 'collection', code, name, position })];
    }
    case 'CollectionRevised': {
      const { code, name } = event.data;
      if (!name) return [];
      const names = required(docs, collectionNamesId(code), event) as CollectionNamesDoc;
      const watches = [...docs.values()].filter((doc): doc is WatchDoc => !('kind' in doc) && doc.collection.code === code);
      return [
        put({ ...names, name, position }),
        ...watches.map((doc) => put(renamedCollection(doc, name[doc.lang], position))),
      ];
    }
    case 'WatchPublished': {
      const withdrawal = docs.get(withdrawnId(event.data.reference));
      if (withdrawal && withdrawal.position > position) return [];
      const names = required(docs, collectionNamesId(event.data.collection), event) as CollectionNamesDoc;
      return LANGUAGES.map((lang) => put(publishedWatch(lang, event.data, names.name[lang], position)));
    }
    case 'WatchRevised':
      return watchDocs(docs, event.data.reference).map((doc) => put(revisedWatch(doc, event.data, position)));
    case 'WatchPriceChanged': {
      const { price_cents } = event.data;
      return watchDocs(docs, event.data.reference).map((doc) => put({ ...doc, price_cents, position }));
    }
    case 'WatchStockChanged': {
      const { stock_status } = event.data;
      return watchDocs(docs, event.data.reference).map((doc) => put({ ...doc, stock_status, in_stock: isInStock(stock_status), position }));
    }
    case 'WatchWithdrawn': {
      const { reference } = event.data;
      return [
        ...watchDocs(docs, reference).map((doc): DocChange<WatchesProjectionDoc> => ({ delete: doc._id })),
        put({ _id: withdrawnId(reference), kind: 'withdrawn', reference, position }),
      ];
    }
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return [];
    default:
      return assertNever(event);
  }
}

export const watchesProjection: Projection<WatchesProjectionDoc> = {
  name: 'watches',
  collection: 'watches',
  handles: new Set(HANDLED),
  touches,
  apply,
};
