/** The transparency log's proof endpoints (docs/api.md, "Transparency log"): their queries and their answer. */
import Type from 'typebox';
import { LangParam } from './common.schema.ts';

/**
 * A count or index of the log, named one way only: canonical decimal digits (no sign, no leading zero, no space),
 * at most 2^53 - 1 (beyond, a JSON number would round it); anything else is a 422, as is the parameter given twice
 * (the proof operations refuse repeated parameters, transparency-routes.ts).
 */
const LogNumber = (minimum: number, description: string) => Type.Integer({
  minimum, maximum: Number.MAX_SAFE_INTEGER, 'x-canonical': true,
  description: `${description} Canonical decimal digits only, given once.`,
});

export const InclusionQuery = Type.Object({
  lang: LangParam,
  index: Type.Optional(LogNumber(0, 'Leaf index (0-based); `position` may name the event instead.')),
  position: Type.Optional(LogNumber(1, 'Event-store position of the event, when `index` is not given.')),
  tree_size: Type.Optional(LogNumber(1, 'Size of the tree the proof is against, at most the latest checkpoint\'s; the latest checkpoint\'s when not given.')),
});
export type InclusionQuery = Type.Static<typeof InclusionQuery>;

export const ConsistencyQuery = Type.Object({
  lang: LangParam,
  from: LogNumber(1, 'Size of the earlier tree.'),
  to: LogNumber(1, 'Size of the later tree, at most the latest checkpoint\'s.'),
});
export type ConsistencyQuery = Type.Static<typeof ConsistencyQuery>;

const Base64Hash = Type.String({ description: 'SHA-256 hash, base64.' });

export const LogProof = Type.Object({
  tree_size: Type.Integer(),
  root: Base64Hash,
  leaf_index: Type.Optional(Type.Integer()),
  leaf_hash: Type.Optional(Base64Hash),
  proof: Type.Array(Base64Hash, { description: 'RFC 9162 inclusion or consistency proof, in the RFC\'s order.' }),
}, { title: 'LogProof' });
export type LogProof = Type.Static<typeof LogProof>;
