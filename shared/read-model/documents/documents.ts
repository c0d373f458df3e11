/**
 * The read models: denormalised documents written by projector/ and read by read-api/. Money stays in integer
 * cents here; the API turns it into euros at the edge. Every document carries `position`, the global position
 * of the last event applied to it, which makes replays and duplicate deliveries harmless.
 */
import Type from 'typebox';
import { CategoryKey, StockStatus } from '../../events/common.ts';

export const Lang = Type.Union([Type.Literal('en'), Type.Literal('fr')]);

/** Logical collection names of the read store. */
const READ_COLLECTIONS = ['watches', 'collections', 'configurators', 'serials', 'tlog', 'checkpoints'] as const;
export type ReadCollection = (typeof READ_COLLECTIONS)[number];

/** One per (language, reference); `_id` is `${lang}:${reference}`. Withdrawn watches have no document. */
export const WatchDoc = Type.Object({
  _id: Type.String(),
  lang: Lang,
  reference: Type.String(),
  name: Type.String(),
  collection: Type.Object({ code: Type.String(), name: Type.String() }),
  short_description: Type.String(),
  description: Type.String(),
  price_cents: Type.Integer(),
  stock_status: StockStatus,
  /** `stock_status` is `in_stock` or `low_stock`. */
  in_stock: Type.Boolean(),
  /** The main image, `null` when the watch has none. */
  image: Type.Union([Type.Object({ url: Type.String(), alt: Type.String() }), Type.Null()]),
  images: Type.Array(Type.Object({ url: Type.String(), alt: Type.String(), role: Type.String() })),
  specifications: Type.Record(Type.String(), Type.String()),
  features: Type.Array(Type.String()),
  seo: Type.Object({
    title: Type.String(), description: Type.String(), keywords: Type.Array(Type.String()), canonical_path: Type.String(),
  }),
  manufacture: Type.Object({ name: Type.String(), origin: Type.String(), workshop: Type.Optional(Type.String()) }),
  customizable: Type.Boolean(),
  /** Case- and accent-folded name (see shared/text/fold.ts), the `name` sort key. */
  sort_name: Type.String(),
  /** Folded collection name, the first key of the `collection` sort. */
  sort_collection: Type.String(),
  /** Folded name, reference and description, searched as a literal substring. */
  search_text: Type.String(),
  /** The grams of `search_text` (shared/text/grams.ts): what the search index holds. */
  search_grams: Type.Array(Type.String()),
  position: Type.Integer(),
});
export type WatchDoc = Type.Static<typeof WatchDoc>;

/** One per (language, code); `_id` is `${lang}:${code}`. */
export const CollectionDoc = Type.Object({
  _id: Type.String(),
  lang: Lang,
  code: Type.String(),
  name: Type.String(),
  short_description: Type.String(),
  description: Type.String(),
  type: Type.String(),
  diameter_mm: Type.Number(),
  sort_name: Type.String(),
  position: Type.Integer(),
});
export type CollectionDoc = Type.Static<typeof CollectionDoc>;

/**
 * One per watch ever published, language-neutral, in the `collections` read collection; `_id` is
 * `member:${reference}`. A collection's published watches are those whose `member_of` is its code: their count and
 * price range are read through the `{member_of, price_cents}` index. A withdrawn watch keeps its record without
 * `member_of` and price.
 */
export const CollectionMemberDoc = Type.Object({
  _id: Type.String(),
  reference: Type.String(),
  member_of: Type.Optional(Type.String()),
  price_cents: Type.Optional(Type.Integer()),
  position: Type.Integer(),
});
export type CollectionMemberDoc = Type.Static<typeof CollectionMemberDoc>;

const ConfiguratorOptionDoc = Type.Object({
  code: Type.String(), label: Type.String(), price_cents: Type.Integer(), default: Type.Boolean(),
});
export const ConfiguratorCategoryDoc = Type.Object({
  key: CategoryKey, label: Type.String(), options: Type.Array(ConfiguratorOptionDoc),
});
export type ConfiguratorCategoryDoc = Type.Static<typeof ConfiguratorCategoryDoc>;

/**
 * One per (language, collection code); `_id` is `${lang}:${code}`. Exists for every defined collection. Its models
 * are not kept here: they are the collection's customizable watches, read from `watches` (one price, one source),
 * so a price change writes no configurator.
 */
export const ConfiguratorDoc = Type.Object({
  _id: Type.String(),
  lang: Lang,
  collection: Type.Object({ code: Type.String(), name: Type.String() }),
  /** Always the eleven categories in CATEGORY_KEYS order; one not offered has no options. */
  categories: Type.Array(ConfiguratorCategoryDoc),
  accessories: Type.Array(Type.Object({
    code: Type.String(), label: Type.String(), unit_price_cents: Type.Integer(), max_quantity: Type.Integer(),
  })),
  position: Type.Integer(),
});
export type ConfiguratorDoc = Type.Static<typeof ConfiguratorDoc>;

/**
 * The position of the first event of a type this version does not know in the serial's stream (a newer writer's,
 * during a rolling deploy): a change of the serial whose meaning this version cannot know, a theft as well as
 * anything else. A serial carrying it is answered by no verification (503) until a version that reads the event
 * rebuilds the serials read model (`watchcat rebuild --projection serials`).
 */
const UnreadableFrom = Type.Integer();

/** One per registered serial; `_id` is the upper-case serial. Language-neutral: the model name is kept in both languages. */
export const SerialDoc = Type.Object({
  _id: Type.String(),
  serial: Type.String(),
  status: Type.Union([Type.Literal('authentic'), Type.Literal('stolen')]),
  reference: Type.String(),
  collection: Type.String(),
  manufacture_year: Type.Integer(),
  model: Type.Object({ en: Type.String(), fr: Type.String() }),
  unreadable_from: Type.Optional(UnreadableFrom),
  position: Type.Integer(),
});
export type SerialDoc = Type.Static<typeof SerialDoc>;

/** A serial not registered (as far as this version reads) whose stream holds an event of a type it does not know. */
export const UnreadableSerialDoc = Type.Object({
  _id: Type.String(),
  serial: Type.String(),
  unreadable_from: UnreadableFrom,
  position: Type.Integer(),
});
export type UnreadableSerialDoc = Type.Static<typeof UnreadableSerialDoc>;

/** A document of the `serials` collection. */
export type SerialsDoc = SerialDoc | UnreadableSerialDoc;


/**
 * A hash tile of the transparency log (C2SP tlog-tiles, height 8): the hashes of tree level 8 * `level`, indexes
 * 256 * `index` on, in the `tlog` read collection. `_id` is `tile:<level>/<index>` once the tile is full (it never
 * changes again), `edge:<level>` for the one tile of its level still filling (the last, of `width` < 256 hashes).
 * A level-0 tile also holds the event position of each of its leaves.
 */
export const TileDoc = Type.Object({
  _id: Type.String(),
  level: Type.Integer(),
  index: Type.Integer(),
  width: Type.Integer(),
  /** The hashes in order, each as its 44 characters of base64 (so that appending one is appending text). */
  hashes: Type.String(),
  /**
   * Level 0: the position of each leaf, in decimal, each followed by a comma (appending one is appending text, as for
   * the hashes), and the position of the first (absent while the tile is empty).
   */
  positions: Type.Optional(Type.String()),
  first_position: Type.Optional(Type.Integer()),
  position: Type.Integer(),
  /**
   * Level 0: true when every serial event up to its last leaf has its serial index change stored (SerialIndexChangeDoc):
   * set on the edge made for the generation's first leaf by a projection that writes those changes, and carried by
   * each later write of the edge, but the one adding a serial's event this version cannot read (its change is lost).
   * An edge a version without them wrote lacks it (it writes the edge's fields by name), and so does every later one:
   * the index is then not built until the log's rebuild (checkpoint-index.ts).
   */
  index_from_start: Type.Optional(Type.Boolean()),
});
export type TileDoc = Type.Static<typeof TileDoc>;

/**
 * A change of a serial's status in the serial index (shared/read-model/transparency/serial-index.ts), kept beside the tiles in
 * `tlog`, `_id` `index:<position in 16 digits>` (read in position order by a range of `_id`, always indexed): one per serial event, in log order, from which the log's signer rebuilds the index
 * after exactly the events a checkpoint counts (read-api/transparency/checkpoint-index.ts). `registered`: the serial
 * enters the index (a status change of a serial never registered changes nothing, as in `serials`).
 */
export const SerialIndexChangeDoc = Type.Object({
  _id: Type.String(),
  serial: Type.String(),
  index_status: Type.Union([Type.Literal('AUTHENTIC'), Type.Literal('STOLEN')]),
  registered: Type.Boolean(),
  position: Type.Integer(),
});
export type SerialIndexChangeDoc = Type.Static<typeof SerialIndexChangeDoc>;
