/**
 * The `configurators` read collection: one document per (language, collection) for every defined collection,
 * with its customizable watches as models (at their current catalogue price: one price, one source), the eleven
 * categories and the accessories. Watch events after publication name the watch only, so they reach the
 * documents holding it by a filter on `member_watches.reference`.
 */
import { assertNever, LANGUAGES, type EventType } from '../../shared/events/index.ts';
import { langIds, type DocChange, type PositionedEvent, type Projection, type Touches } from './projection.ts';
import {
  editAccessories, editMember, editOptions, emptyConfigurator, upsertByCode, withMembers, type ConfiguratorProjectionDoc,
} from './configurator-document.ts';

export type { ConfiguratorProjectionDoc } from './configurator-document.ts';

const HANDLED: EventType[] = [
  'CollectionDefined', 'CollectionRevised', 'WatchPublished', 'WatchRevised', 'WatchPriceChanged', 'WatchWithdrawn',
  'ConfiguratorOptionOffered', 'ConfiguratorOptionRepriced', 'ConfiguratorOptionWithdrawn', 'ConfiguratorDefaultChosen',
  'AccessoryOffered', 'AccessoryRepriced', 'AccessoryWithdrawn',
];

const holding = (reference: string) => ({ 'member_watches.reference': reference });

function touches(event: PositionedEvent): Touches {
  switch (event.type) {
    case 'CollectionDefined':
    case 'CollectionRevised':
      return { ids: langIds(event.data.code) };
    case 'WatchPublished':
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
      return { ids: langIds(event.data.collection) };
    case 'WatchRevised':
      return event.data.name || event.data.customizable !== undefined
        ? { ids: [], filter: holding(event.data.reference) }
        : { ids: [] };
    case 'WatchPriceChanged':
    case 'WatchWithdrawn':
      return { ids: [], filter: holding(event.data.reference) };
    case 'WatchStockChanged':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return { ids: [] };
    default:
      return assertNever(event);
  }
}

type Docs = ReadonlyMap<string, ConfiguratorProjectionDoc>;
type Change = DocChange<ConfiguratorProjectionDoc>;

/** Applies `edit` to every touched document that exists. */
function each(docs: Docs, edit: (doc: ConfiguratorProjectionDoc) => ConfiguratorProjectionDoc): Change[] {
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
    case 'WatchPublished': {
      const { reference, name, price_cents, customizable } = event.data;
      return each(docs, (doc) => withMembers(doc, [
        ...doc.member_watches.filter((member) => member.reference !== reference),
        { reference, name: name[doc.lang], price_cents, customizable },
      ], position));
    }
    case 'WatchRevised': {
      const { reference, name, customizable } = event.data;
      return each(docs, (doc) => editMember(doc, reference, (member) => ({
        ...member,
        ...(name ? { name: name[doc.lang] } : {}),
        ...(customizable !== undefined ? { customizable } : {}),
      }), position));
    }
    case 'WatchPriceChanged': {
      const { reference, price_cents } = event.data;
      return each(docs, (doc) => editMember(doc, reference, (member) => ({ ...member, price_cents }), position));
    }
    case 'WatchWithdrawn':
      return each(docs, (doc) => editMember(doc, event.data.reference, () => null, position));
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
    case 'WatchStockChanged':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return [];
    default:
      return assertNever(event);
  }
}

export const configuratorsProjection: Projection<ConfiguratorProjectionDoc> = {
  name: 'configurators',
  collection: 'configurators',
  handles: new Set(HANDLED),
  touches,
  apply,
};
