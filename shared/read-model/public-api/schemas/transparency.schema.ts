/** The transparency log's public endpoints (docs/api.md, "Transparency log"): the proofs' queries, every answer's shape. */
import Type from 'typebox';
import { Ed25519PublicJwk } from '../../../signing/jwk-set.ts';
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

/** The leaf is named once: by `index` or by its event's `position`, never both (one would be ignored). */
export const InclusionQuery = Type.Object({
  lang: LangParam,
  index: Type.Optional(LogNumber(0, 'Leaf index (0-based). Give `index` or `position`, not both.')),
  position: Type.Optional(LogNumber(1, 'Event-store position of the event, instead of `index` (not both).')),
  tree_size: Type.Optional(LogNumber(1, 'Size of the tree the proof is against, at most the latest checkpoint\'s; the latest checkpoint\'s when not given.')),
}, { 'x-one-of': ['index', 'position'] });
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

/** The latest checkpoint as served: a C2SP signed note whose text is a C2SP tlog-checkpoint. */
export const SignedCheckpoint = Type.String({
  description: 'A C2SP signed note. Its text: the origin (`<host of PUBLIC_BASE_URL>/watchcat/events`), the tree size in '
    + 'decimal and the root hash in base64, each on a line of its own; then a blank line and one signature line '
    + '(`— <origin> <base64>`) per key, the log key first. Go\'s `note.Open` opens it with the verifier key.',
});

/** A verifier key of the log, as Go's `note.NewVerifier` reads it. */
export const VerifierKey = Type.String({
  description: '`<origin>+<8 hex digits of the key id>+<base64 of 0x01 || the Ed25519 public key>`.',
});

export const LogKeyHistory = Type.Object({
  keys: Type.Array(Type.Object({
    verifier_key: VerifierKey,
    kid: Ed25519PublicJwk.properties.kid,
    nbf: Type.Integer({ description: 'When the key began, or will begin, signing checkpoints (Unix seconds).' }),
    exp: Ed25519PublicJwk.properties.exp,
    revoked: Ed25519PublicJwk.properties.revoked,
  }, { title: 'LogKey' })),
}, { title: 'LogKeyHistory' });
export type LogKeyHistory = Type.Static<typeof LogKeyHistory>;

/** A C2SP tlog-tiles hash tile, bytes as stored. */
export const HashTile = Type.String({
  contentMediaType: 'application/octet-stream',
  description: 'The tile\'s hashes, 32 bytes each, concatenated: 256 for a full tile, `W` for a partial one.',
});

/** A tile's path after `tile/`, as C2SP tlog-tiles writes it. */
export const TilePathParams = Type.Object({
  level: Type.String({ pattern: '^[0-9]{1,2}$', description: 'Tile level `L`: its hashes are those of tree level 8L.' }),
  index: Type.String({
    pattern: '^(x[0-9]{3}/)*[0-9]{3}(\\.p/[0-9]{1,3})?$',
    description: 'Tile index `N` in groups of three digits, every group but the last prefixed with `x` (1234067: '
      + '`x001/x234/067`), then `.p/W` for a partial tile of W hashes (1 to 255); its slashes are sent as they are.',
  }),
});
