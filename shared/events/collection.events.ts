/** Events of the `collection-{code}` streams. */
import Type from 'typebox';
import { CollectionCode, LocalizedText, literalUnion } from './common.ts';

const COLLECTION_TYPES = ['dress', 'sport', 'diver', 'chronograph', 'pilot', 'complication', 'heritage'] as const;
const CollectionType = literalUnion(COLLECTION_TYPES);

export const CollectionDefined = Type.Object(
  {
    code: CollectionCode,
    name: LocalizedText,
    short_description: LocalizedText,
    description: LocalizedText,
    type: CollectionType,
    diameter_mm: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
  },
  { additionalProperties: false },
);
export type CollectionDefined = Type.Static<typeof CollectionDefined>;

/** A revision names only what changed. */
export const CollectionRevised = Type.Object(
  {
    code: CollectionCode,
    name: Type.Optional(LocalizedText),
    short_description: Type.Optional(LocalizedText),
    description: Type.Optional(LocalizedText),
    type: Type.Optional(CollectionType),
    diameter_mm: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
);
export type CollectionRevised = Type.Static<typeof CollectionRevised>;

export const collectionEventSchemas = { CollectionDefined, CollectionRevised } as const;
