/**
 * The transparency log's public endpoints (docs/api.md, "Transparency log") as the discovery files describe them:
 * the OpenAPI document, llms.txt and llms-full.txt. They are not operations of the catalogue (no MCP tool, no read
 * model): read-api/transparency/transparency-routes.ts serves them. The checkpoint and the hash tiles sit under one
 * prefix, `/transparency`, so that a C2SP tlog-tiles client works from that one base URL; the entry bundles are not
 * public (the admin API's `audit` scope serves the same layout with them, under `/admin/transparency`).
 */
import { NotFound, rateLimitedResponse, ReadModelHeaders, Unavailable, UnwaitedHeaders, validationResponse } from '../schemas/common.schema.ts';
import {
  ConsistencyQuery, HashTile, InclusionQuery, LogKeyHistory, LogProof, SignedCheckpoint, TilePathParams, VerifierKey,
} from '../schemas/transparency.schema.ts';
import type { OperationSpec } from './operation.ts';
import { TRANSPARENCY_KEY_PATH } from './status.operation.ts';

/** The log's base URL on the public port, as tlog-tiles names it: `<prefix>/checkpoint`, `<prefix>/tile/...`. */
export const LOG_PREFIX = '/transparency';
/** The checkpoint's first address, kept as an alias of `<prefix>/checkpoint`. */
export const WELL_KNOWN_CHECKPOINT_PATH = '/.well-known/transparency/checkpoint';
export const KEY_HISTORY_PATH = '/.well-known/transparency/keys';

const TEXT = 'text/plain; charset=utf-8';
const TAGS = ['Transparency'];
const unavailable = {
  description: 'The log serves nothing while it refuses a rewritten history or its tiles are being built again; retry after `Retry-After` seconds',
  schema: Unavailable,
};
/** The checkpoint and the proofs also wait for `X-Min-Position`, and a proof for an event not yet counted. */
const unavailableOrBehind = {
  ...unavailable,
  description: `${unavailable.description}. Also (\`Retry-After: 1\`) when no checkpoint counting the \`X-Min-Position\` asked came within \`MIN_POSITION_WAIT_MS\`, or for a proof against the latest checkpoint of an event it does not count yet`,
};

export const checkpointSpec: OperationSpec = {
  id: 'getLogCheckpoint',
  method: 'GET',
  path: `${LOG_PREFIX}/checkpoint`,
  summary: 'Latest signed checkpoint of the transparency log',
  description: `The tree the log commits to now, signed with the log key (C2SP tlog-checkpoint in a signed note), beside the tiles so that a tlog-tiles client works from the one base URL \`${LOG_PREFIX}\`. Also at \`${WELL_KNOWN_CHECKPOINT_PATH}\`. A checkpoint covers an appended event within a second; its tree size never decreases.`,
  tags: TAGS,
  params: { header: ReadModelHeaders },
  responses: { '200': { description: 'The signed checkpoint', schema: SignedCheckpoint, mediaType: TEXT }, '422': validationResponse, '429': rateLimitedResponse, '503': unavailableOrBehind },
  cacheControl: 'no-cache',
};

const tileSpec: OperationSpec = {
  id: 'getLogTile',
  method: 'GET',
  path: `${LOG_PREFIX}/tile/:level/:index`,
  summary: 'Hash tile of the transparency log',
  description: 'A C2SP tlog-tiles hash tile (height 8) of the tree the latest checkpoint signs: full tiles never change (`Cache-Control: public, max-age=31536000, immutable`), a partial one is replaced by wider ones as the log grows (`public, max-age=60`). Entry bundles are not public.',
  tags: TAGS,
  params: { path: TilePathParams, header: UnwaitedHeaders },
  responses: {
    '200': { description: 'The tile', schema: HashTile, mediaType: 'application/octet-stream' },
    '404': { description: 'No such tile in the tree of the latest checkpoint', schema: NotFound },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': unavailable,
  },
};

export const verifierKeySpec: OperationSpec = {
  id: 'getLogVerifierKey',
  method: 'GET',
  path: TRANSPARENCY_KEY_PATH,
  summary: 'Verifier key of the transparency log',
  description: 'The key that opens the checkpoints, named after the log\'s origin.',
  tags: TAGS,
  params: { header: UnwaitedHeaders },
  responses: { '200': { description: 'The verifier key', schema: VerifierKey, mediaType: TEXT }, '422': validationResponse, '429': rateLimitedResponse },
  cacheControl: 'public, max-age=300',
};

export const keyHistorySpec: OperationSpec = {
  id: 'getLogKeyHistory',
  method: 'GET',
  path: KEY_HISTORY_PATH,
  summary: 'Every key of the transparency log, with its dates',
  description: 'Every key that signed or will sign checkpoints, for monitors that follow a rotation: when each began, when it was retired, and whether it leaked.',
  tags: TAGS,
  params: { header: UnwaitedHeaders },
  responses: { '200': { description: 'The key history', schema: LogKeyHistory }, '422': validationResponse, '429': rateLimitedResponse },
  cacheControl: 'public, max-age=300',
};

const proofResponses = {
  '200': { description: 'The proof', schema: LogProof }, '422': validationResponse, '429': rateLimitedResponse, '503': unavailableOrBehind,
};

export const inclusionSpec: OperationSpec = {
  id: 'getInclusionProof',
  method: 'GET',
  path: '/api/public/transparency/inclusion',
  summary: 'Inclusion proof of an event in the transparency log',
  description: 'RFC 9162 inclusion proof of leaf `index` (or of the event at `position`: one of the two, both or neither is a 422) in the tree of `tree_size` leaves (the latest checkpoint\'s tree when `tree_size` is not given).',
  tags: TAGS,
  params: { query: InclusionQuery, header: ReadModelHeaders },
  refusesRepeatedQuery: true,
  responses: proofResponses,
};

export const consistencySpec: OperationSpec = {
  id: 'getConsistencyProof',
  method: 'GET',
  path: '/api/public/transparency/consistency',
  summary: 'Consistency proof between two sizes of the transparency log',
  description: 'RFC 9162 consistency proof that the tree of `to` leaves extends the tree of its first `from` leaves.',
  tags: TAGS,
  params: { query: ConsistencyQuery, header: ReadModelHeaders },
  refusesRepeatedQuery: true,
  responses: proofResponses,
};

/** In the order a client uses them: what the log says, its tiles, the key that checks it, proofs by request. */
export const transparencyEndpoints: readonly OperationSpec[] = [checkpointSpec, tileSpec, verifierKeySpec, keyHistorySpec, inclusionSpec, consistencySpec];
