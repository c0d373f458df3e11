/**
 * The `watches` read collection: one document per (language, reference) for every published, not withdrawn,
 * watch. Beside the watch documents the projection keeps two kinds of small records of its own, without `lang`
 * so that no public query (they all filter by language) ever matches them:
 * - per collection, its names (`collection:{code}`): watch events name their collection by code only, and a
 *   rename rewrites the name into every watch of the collection;
 * - per withdrawn watch, the position of its withdrawal (`withdrawn:{reference}`): the watch documents are gone,
 *   so without it a replayed publication would bring them back.
 */
import { LANGUAGES, type LocalizedText } from '../../events/index.ts';
import type { StoredDoc } from '../../ports/read-store.ts';
import type { WatchDoc } from '../documents/documents.ts';
import { langIds, projectionOf, required, type DocChange, type Touches } from './projection.ts';
import { isInStock, publishedWatch, renamedCollection, revisedWatch } from './watch-document.ts';

/** The watches projection's record of a collection's names. */
interface CollectionNamesDoc extends StoredDoc {
  kind: 'collection';
  code: string;
  name: LocalizedText;
}

/** The watches projection's record that a watch was withdrawn (at `position`). */
interface WithdrawnWatchDoc extends StoredDoc {
  kind: 'withdrawn';
  reference: string;
}

export type WatchesProjectionDoc = WatchDoc | CollectionNamesDoc | WithdrawnWatchDoc;

const collectionNamesId = (code: string): string => `collection:${code}`;
export const withdrawnId = (reference: string): string => `withdrawn:${reference}`;

/** The documents of a watch's own events: its document in each language. */
const watchDocsOf = (event: { data: { reference: string } }): Touches => ({ ids: langIds(event.data.reference) });

/** The existing watch documents of a reference (both languages, or none once withdrawn). */
function watchDocs(docs: ReadonlyMap<string, WatchesProjectionDoc>, reference: string): WatchDoc[] {
  return langIds(reference).flatMap((id) => {
    const doc = docs.get(id);
    return doc && !('kind' in doc) ? [doc] : [];
  });
}

const put = (doc: WatchesProjectionDoc): DocChange<WatchesProjectionDoc> => ({ put: doc });

export const watchesProjection = projectionOf<WatchesProjectionDoc>({
  name: 'watches',
  collection: 'watches',
  on: {
    CollectionDefined: {
      touches: (event) => ({ ids: [collectionNamesId(event.data.code)] }),
      apply: (event) => {
        const { code, name } = event.data;
        return [put({ _id: collectionNamesId(code), kind: 'collection', code, name, position: event.position })];
      },
    },
    CollectionRevised: {
      touches: (event) => (event.data.name
        ? { ids: [collectionNamesId(event.data.code)], filter: { 'collection.code': event.data.code } }
        : { ids: [] }),
      apply: (event, docs) => {
        const { code, name } = event.data;
        if (!name) return [];
        const names = required(docs, collectionNamesId(code), event) as CollectionNamesDoc;
        const watches = [...docs.values()].filter((doc): doc is WatchDoc => !('kind' in doc) && doc.collection.code === code);
        return [
          put({ ...names, name, position: event.position }),
          ...watches.map((doc) => put(renamedCollection(doc, name[doc.lang], event.position))),
        ];
      },
    },
    WatchPublished: {
      touches: (event) => ({
        ids: [...langIds(event.data.reference), collectionNamesId(event.data.collection), withdrawnId(event.data.reference)],
      }),
      apply: (event, docs) => {
        const { position } = event;
        const withdrawal = docs.get(withdrawnId(event.data.reference));
        if (withdrawal && withdrawal.position > position) return [];
        const names = required(docs, collectionNamesId(event.data.collection), event) as CollectionNamesDoc;
        return LANGUAGES.map((lang) => put(publishedWatch(lang, event.data, names.name[lang], position)));
      },
    },
    WatchRevised: {
      touches: watchDocsOf,
      apply: (event, docs) => watchDocs(docs, event.data.reference).map((doc) => put(revisedWatch(doc, event.data, event.position))),
    },
    WatchPriceChanged: {
      touches: watchDocsOf,
      apply: (event, docs) => {
        const { price_cents } = event.data;
        return watchDocs(docs, event.data.reference).map((doc) => put({ ...doc, price_cents, position: event.position }));
      },
    },
    WatchStockChanged: {
      touches: watchDocsOf,
      apply: (event, docs) => {
        const { stock_status } = event.data;
        return watchDocs(docs, event.data.reference)
          .map((doc) => put({ ...doc, stock_status, in_stock: isInStock(stock_status), position: event.position }));
      },
    },
    WatchWithdrawn: {
      touches: (event) => ({ ids: [...langIds(event.data.reference), withdrawnId(event.data.reference)] }),
      apply: (event, docs) => {
        const { reference } = event.data;
        return [
          ...watchDocs(docs, reference).map((doc): DocChange<WatchesProjectionDoc> => ({ delete: doc._id })),
          put({ _id: withdrawnId(reference), kind: 'withdrawn', reference, position: event.position }),
        ];
      },
    },
  },
});
