/**
 * The `configurators` read collection: one document per (language, collection) for every defined collection,
 * with the eleven categories and the accessories. Watch events do not reach it: a collection's models are its
 * customizable watches, which the read side takes from `watches` (shared/public-api/operations/collection-models.ts),
 * so a price change costs no configurator write whatever the size of its collection.
 */
import { assertNever, LANGUAGES, type EventType } from '../../shared/events/index.ts';
import { langIds, type DocChange, type PositionedEvent, type Projection, type Touches } from './projection.ts';
import type { ConfiguratorDoc } from '../../shared/read-models/documents.ts';
import { editAccessories, editOptions, emptyConfigurator, upsertByCode } from './configurator-document.ts';

const HANDLED: EventType[] = [
  'CollectionDefined', 'CollectionRevised', 'ConfiguratorOptionOffered', 'ConfiguratorOptionRepriced', 'ConfiguratorOptionWithdrawn', 'ConfiguratorDefaultChosen',
  'AccessoryOffered', 'AccessoryRepriced', 'AccessoryWithdrawn',
];

function touches(event: PositionedEvent): Touches {
  switch (event.type) {
    case 'CollectionDefined':
    case 'CollectionRevised':
      return { ids: langIds(event.data.code) };
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
      return { ids: langIds(event.data.collection) };
    case 'WatchPublished':
    case 'WatchRevised':
    case 'WatchPriceChanged':
    case 'WatchWithdrawn':
    case 'WatchStockChanged':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return { ids: [] };
    default:
      return assertNever(event);
  }
}

type Docs = ReadonlyMap<string, ConfiguratorDoc>;
type Change = DocChange<ConfiguratorDoc>;

/** Applies `edit` to every touched document that exists. */
function each(docs: Docs, edit: (doc: ConfiguratorDoc) => ConfiguratorDoc): Change[] {
  return [...docs.values()].map((doc) => ({ put: edit(doc) }));
}

function apply(event: PositionedEvent, docs: Docs): Change[] {
  const { position } = event;
  switch (event.type) {
    case 'CollectionDefined': {
      const { code, name } = event.data;
      return LANGUAGES.map((lang) => ({ put: emptyConfigurator(lang, code, name[lang], position) }));
    }
    case 'CollectionRevised': {
      const { name } = event.data;
      if (!name) return [];
      return each(docs, (doc) => ({ ...doc, collection: { ...doc.collection, name: name[doc.lang] }, position }));
    }
    case 'ConfiguratorOptionOffered': {
      const { category, code, label, price_cents } = event.data;
      return each(docs, (doc) => editOptions(doc, category, (options) => {
        const wasDefault = options.find((option) => option.code === code)?.default ?? false;
        return upsertByCode(options, { code, label: label[doc.lang], price_cents, default: wasDefault });
      }, position));
    }
    case 'ConfiguratorOptionRepriced': {
      const { category, code, price_cents } = event.data;
      return each(docs, (doc) => editOptions(doc, category, (options) =>
        options.map((option) => (option.code === code ? { ...option, price_cents } : option)), position));
    }
    case 'ConfiguratorOptionWithdrawn': {
      const { category, code } = event.data;
      return each(docs, (doc) => editOptions(doc, category, (options) => options.filter((option) => option.code !== code), position));
    }
    case 'ConfiguratorDefaultChosen': {
      const { category, code } = event.data;
      return each(docs, (doc) => editOptions(doc, category, (options) =>
        options.map((option) => ({ ...option, default: option.code === code })), position));
    }
    case 'AccessoryOffered': {
      const { code, label, unit_price_cents, max_quantity } = event.data;
      return each(docs, (doc) => editAccessories(doc, (accessories) =>
        upsertByCode(accessories, { code, label: label[doc.lang], unit_price_cents, max_quantity }), position));
    }
    case 'AccessoryRepriced': {
      const { code, unit_price_cents } = event.data;
      return each(docs, (doc) => editAccessories(doc, (accessories) =>
        accessories.map((accessory) => (accessory.code === code ? { ...accessory, unit_price_cents } : accessory)), position));
    }
    case 'AccessoryWithdrawn': {
      const { code } = event.data;
      return each(docs, (doc) => editAccessories(doc, (accessories) => accessories.filter((accessory) => accessory.code !== code), position));
    }
    case 'WatchPublished':
    case 'WatchRevised':
    case 'WatchPriceChanged':
    case 'WatchWithdrawn':
    case 'WatchStockChanged':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return [];
    default:
      return assertNever(event);
  }
}

export const configuratorsProjection: Projection<ConfiguratorDoc> = {
  name: 'configurators',
  collection: 'configurators',
  handles: new Set(HANDLED),
  touches,
  apply,
};
