/** The transparency log's proof endpoints (CONTRACT.md, "Transparency log"): their queries and their answer. */
import Type from 'typebox';
import { LangParam } from './common.schema.ts';

export const InclusionQuery = Type.Object({
  lang: LangParam,
  index: Type.Optional(Type.Integer({ minimum: 0, description: 'Leaf index (0-based); `position` may name the event instead.' })),
  position: Type.Optional(Type.Integer({ minimum: 1, description: 'Event-store position of the event, when `index` is not given.' })),
  tree_size: Type.Integer({ minimum: 1, description: 'Size of the tree the proof is against, at most the latest checkpoint\'s.' }),
});
export type InclusionQuery = Type.Static<typeof InclusionQuery>;

export const ConsistencyQuery = Type.Object({
  lang: LangParam,
  from: Type.Integer({ minimum: 1, description: 'Size of the earlier tree.' }),
  to: Type.Integer({ minimum: 1, description: 'Size of the later tree, at most the latest checkpoint\'s.' }),
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
