/**
 * The `collections` read collection: one document per (language, code) with the collection's descriptive fields,
 * and one language-neutral record per watch ever published (`member:{reference}`, no `lang`, so no public query
 * by language matches it): the collection it belongs to (`member_of`) and its price. Price and withdrawal events
 * name the watch only, and reach its record by id; the count and price range of a collection are read from its
 * records through the `{member_of, price_cents}` index (shared/read-model/public-api/operations/collection-figures.ts), so
 * one price change writes one small record, whatever the size of its collection or of the catalogue, and the
 * figures stay exact through publications, price changes, withdrawals and a watch published into another collection.
 * A withdrawn watch keeps its record without `member_of`, its position refusing an older publication delivered again.
 */
import { LANGUAGES } from '../../events/index.ts';
import { fold } from '../../text/fold.ts';
import type { CollectionDoc, CollectionMemberDoc } from '../documents/documents.ts';
import { langId, langIds, projectionOf, type Touches } from './projection.ts';

type CollectionsProjectionDoc = CollectionDoc | CollectionMemberDoc;

const memberId = (reference: string): string => `member:${reference}`;

/** A watch's price and withdrawal touch its record. */
const memberRecord = (event: { data: { reference: string } }): Touches => ({ ids: [memberId(event.data.reference)] });

const isMember = (doc: CollectionsProjectionDoc | undefined): doc is CollectionMemberDoc => doc !== undefined && 'reference' in doc;

/** The record of a published watch, or undefined when it was withdrawn or never published. */
function publishedMember(docs: ReadonlyMap<string, CollectionsProjectionDoc>, reference: string): CollectionMemberDoc | undefined {
  const doc = docs.get(memberId(reference));
  return isMember(doc) && doc.member_of !== undefined ? doc : undefined;
}

export const collectionsProjection = projectionOf<CollectionsProjectionDoc>({
  name: 'collections',
  collection: 'collections',
  on: {
    CollectionDefined: {
      touches: (event) => ({ ids: langIds(event.data.code) }),
      apply: (event) => {
        const { data, position } = event;
        return LANGUAGES.map((lang) => ({
          put: {
            _id: langId(lang, data.code), lang, code: data.code, name: data.name[lang],
            short_description: data.short_description[lang], description: data.description[lang], type: data.type,
            diameter_mm: data.diameter_mm, sort_name: fold(data.name[lang]), position,
          },
        }));
      },
    },
    CollectionRevised: {
      touches: (event) => ({ ids: langIds(event.data.code) }),
      apply: (event, docs) => {
        const { name, short_description, description, type, diameter_mm } = event.data;
        return langIds(event.data.code).flatMap((id) => {
          const doc = docs.get(id);
          if (!doc || isMember(doc)) return [];
          const next: CollectionDoc = { ...doc, position: event.position };
          if (name) Object.assign(next, { name: name[doc.lang], sort_name: fold(name[doc.lang]) });
          if (short_description) next.short_description = short_description[doc.lang];
          if (description) next.description = description[doc.lang];
          if (type) next.type = type;
          if (diameter_mm !== undefined) next.diameter_mm = diameter_mm;
          return [{ put: next }];
        });
      },
    },
    WatchPublished: {
      touches: (event) => ({ ids: [...langIds(event.data.collection), memberId(event.data.reference)] }),
      apply: (event, docs) => {
        const { reference, collection, price_cents } = event.data;
        // A watch of a collection never defined is not counted anywhere, as before its collection exists.
        if (!langIds(collection).some((id) => docs.has(id))) return [];
        return [{ put: { _id: memberId(reference), reference, member_of: collection, price_cents, position: event.position } }];
      },
    },
    WatchPriceChanged: {
      touches: memberRecord,
      apply: (event, docs) => {
        const member = publishedMember(docs, event.data.reference);
        return member ? [{ put: { ...member, price_cents: event.data.price_cents, position: event.position } }] : [];
      },
    },
    WatchWithdrawn: {
      touches: memberRecord,
      apply: (event, docs) => {
        const { reference } = event.data;
        return publishedMember(docs, reference) ? [{ put: { _id: memberId(reference), reference, position: event.position } }] : [];
      },
    },
  },
});
