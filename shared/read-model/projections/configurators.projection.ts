/**
 * The `configurators` read collection: one document per (language, collection) for every defined collection,
 * with the eleven categories and the accessories. Watch events do not reach it: a collection's models are its
 * customizable watches, which the read side takes from `watches` (shared/read-model/public-api/operations/collection-models.ts),
 * so a price change costs no configurator write whatever the size of its collection.
 */
import { LANGUAGES } from '../../events/index.ts';
import { langIds, projectionOf, type DocChange, type Touches } from './projection.ts';
import type { ConfiguratorDoc } from '../documents/documents.ts';
import { editAccessories, editOptions, emptyConfigurator, upsertByCode } from './configurator-document.ts';

/** An option's or accessory's events touch the configurator of its collection, in each language. */
const configuratorDocs = (event: { data: { collection: string } }): Touches => ({ ids: langIds(event.data.collection) });

type Docs = ReadonlyMap<string, ConfiguratorDoc>;
type Change = DocChange<ConfiguratorDoc>;

/** Applies `edit` to every touched document that exists. */
function each(docs: Docs, edit: (doc: ConfiguratorDoc) => ConfiguratorDoc): Change[] {
  return [...docs.values()].map((doc) => ({ put: edit(doc) }));
}

export const configuratorsProjection = projectionOf<ConfiguratorDoc>({
  name: 'configurators',
  collection: 'configurators',
  on: {
    CollectionDefined: {
      touches: (event) => ({ ids: langIds(event.data.code) }),
      apply: (event) => {
        const { code, name } = event.data;
        return LANGUAGES.map((lang) => ({ put: emptyConfigurator(lang, code, name[lang], event.position) }));
      },
    },
    CollectionRevised: {
      touches: (event) => ({ ids: langIds(event.data.code) }),
      apply: (event, docs) => {
        const { name } = event.data;
        if (!name) return [];
        return each(docs, (doc) => ({ ...doc, collection: { ...doc.collection, name: name[doc.lang] }, position: event.position }));
      },
    },
    ConfiguratorOptionOffered: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { category, code, label, price_cents } = event.data;
        return each(docs, (doc) => editOptions(doc, category, (options) => {
          const wasDefault = options.find((option) => option.code === code)?.default ?? false;
          return upsertByCode(options, { code, label: label[doc.lang], price_cents, default: wasDefault });
        }, event.position));
      },
    },
    ConfiguratorOptionRepriced: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { category, code, price_cents } = event.data;
        return each(docs, (doc) => editOptions(doc, category, (options) =>
          options.map((option) => (option.code === code ? { ...option, price_cents } : option)), event.position));
      },
    },
    ConfiguratorOptionWithdrawn: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { category, code } = event.data;
        return each(docs, (doc) => editOptions(doc, category, (options) => options.filter((option) => option.code !== code), event.position));
      },
    },
    ConfiguratorDefaultChosen: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { category, code } = event.data;
        return each(docs, (doc) => editOptions(doc, category, (options) =>
          options.map((option) => ({ ...option, default: option.code === code })), event.position));
      },
    },
    AccessoryOffered: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { code, label, unit_price_cents, max_quantity } = event.data;
        return each(docs, (doc) => editAccessories(doc, (accessories) =>
          upsertByCode(accessories, { code, label: label[doc.lang], unit_price_cents, max_quantity }), event.position));
      },
    },
    AccessoryRepriced: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { code, unit_price_cents } = event.data;
        return each(docs, (doc) => editAccessories(doc, (accessories) =>
          accessories.map((accessory) => (accessory.code === code ? { ...accessory, unit_price_cents } : accessory)), event.position));
      },
    },
    AccessoryWithdrawn: {
      touches: configuratorDocs,
      apply: (event, docs) => {
        const { code } = event.data;
        return each(docs, (doc) => editAccessories(doc, (accessories) => accessories.filter((accessory) => accessory.code !== code), event.position));
      },
    },
  },
});
