/**
 * The transparency log's public routes (docs/api.md, "Transparency log"): the latest signed checkpoint (at
 * `/transparency/checkpoint` beside the tiles, and under `/.well-known/transparency/`) and the verifier key, and the inclusion and consistency proofs under `/api/public/`
 * (so the general rate limit counts them), and the hash tiles under `/transparency/tile/` (C2SP tlog-tiles; the
 * entry tiles are not served: entries are not public). Proofs and tiles come from trees no larger than the
 * published checkpoint. Every answer carries an `ETag` honoured in `If-None-Match` (cache/conditional-answer.ts);
 * the files limit counts the routes outside `/api/public` (rate-limit/rate-limits.ts).
 */
import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { ConsistencyQuery, InclusionQuery, LogProof } from '../../shared/read-model/public-api/schemas/transparency.schema.ts';
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { TRANSPARENCY_KEY_PATH } from '../../shared/read-model/public-api/operations/status.operation.ts';
import {
  checkpointSpec, consistencySpec, inclusionSpec, KEY_HISTORY_PATH, WELL_KNOWN_CHECKPOINT_PATH,
} from '../../shared/read-model/public-api/operations/transparency-endpoints.ts';
import { setTimeout } from 'node:timers/promises';
import type { Language } from '../../shared/events/common.ts';
import { BEHIND_RETRY_AFTER_SECONDS, REFUSALS } from '../../shared/read-model/public-api/answer-policy.ts';
import { MIN_POSITION_HEADER } from '../../shared/read-model/public-api/schemas/common.schema.ts';
import { checkedMinPosition, compileRequestValidator, readModelHeaders } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { issue, RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { JSON_TYPE } from '../middleware/front-door.ts';
import { GET_PREFLIGHT } from '../middleware/preflight.ts';
import { minPositionChecked } from '../middleware/min-position.ts';
import { sendRefusal, sendTagged } from '../cache/conditional-answer.ts';
import { etagOf } from '../cache/rendered-answer.ts';
import { nameRoute } from '../ops/metrics.ts';
import { parseTilePath, TILE_WIDTH } from '../../shared/read-model/transparency/tiles.ts';
import type { LogView, PublishedCheckpoint, TransparencyLog } from './log-publisher.ts';

/**
 * The latest checkpoint: beside the tiles under `/transparency`, so that a tlog-tiles client works from that one base
 * URL (`<base>/checkpoint`, `<base>/tile/...`), and at its first address under `/.well-known`, kept as an alias.
 */
const CHECKPOINT_PATHS = [checkpointSpec.path, WELL_KNOWN_CHECKPOINT_PATH];

const TEXT = 'text/plain; charset=utf-8';

const b64 = (hash: Uint8Array) => Buffer.from(hash).toString('base64');

/** A 422 in the contract's shape for a value that is well formed but outside the log. */
const outOfRange = (name: string, input: unknown, why: string) => new RequestValidationError([issue.valueError(['query', name], input, why)]);

interface Served { view: LogView; checkpoint: PublishedCheckpoint }

/**
 * The log refuses to answer now: 503 with `Retry-After`. Its detail is in each language, told by the route that
 * sends it: a refusal may come from a reading shared by requests in either language (`WaitingReads`).
 */
class LogRefusal extends Error {
  constructor(readonly detail: Record<Language, string>, readonly retryAfter: number) {
    super(detail.en);
  }
}

/** `error` as the 503 it is, in `lang`, when it is the log's refusal; any other error is thrown on. */
function sendLogRefusal(ctx: ParameterizedContext, error: unknown, lang: Language): void {
  if (!(error instanceof LogRefusal)) throw error;
  sendRefusal(ctx, 503, Buffer.from(JSON.stringify({ detail: error.detail[lang] })), error.retryAfter);
}

/** The log cannot be served now: parked, or not yet built up to its checkpoint. */
const UNAVAILABLE: Record<Language, string> = {
  en: 'The transparency log is unavailable; try again later',
  fr: 'Le journal de transparence est indisponible ; réessayez plus tard',
};
const unavailable = () => new LogRefusal(UNAVAILABLE, 60);

/** The log of one snapshot, with a checkpoint to answer under; 503 while it has none or its tiles are behind it. */
async function served(logs: TransparencyLog): Promise<Served> {
  const view = await logs.read();
  if (view.parked !== undefined) throw unavailable();
  const { checkpoint } = view;
  if (!checkpoint || view.log.size < checkpoint.size) throw unavailable();
  return { view, checkpoint };
}

/** The position of the last event the checkpoint counts (every event is a leaf, in position order); -1 for none. */
const lastCounted = async ({ view: { log }, checkpoint }: Served): Promise<number> => (await log.positionOf(checkpoint.size - 1)) ?? -1;

/** How often requests waiting for a checkpoint read the store again when this process signed or saw none meanwhile. */
const WAIT_READ_MS = 100;
/** How often they look for one this process signed or saw (in memory). */
const WAIT_LOOK_MS = 10;

/** A reading of the log, with the position of the last event its checkpoint counts. */
interface Reading { log: Served; last: number }

const readingOf = async (logs: TransparencyLog): Promise<Reading> => {
  const log = await served(logs);
  return { log, last: await lastCounted(log) };
};

/**
 * The readings of the log made for requests waiting for a checkpoint: one shared by every request waiting at once,
 * as the read models' waiting requests share theirs (docs/api.md, "Read your writes"), so that waiting requests cost
 * the store one reading every `WAIT_READ_MS` however many wait, not one each.
 */
class WaitingReads {
  #latest: { startedAt: number; reading: Promise<Reading> } | undefined;

  constructor(private readonly logs: TransparencyLog) {}

  /** A reading begun after `startedAt` (`performance.now()`): the last one begun if it was, else a new one. */
  after(startedAt: number): { startedAt: number; reading: Promise<Reading> } {
    if (this.#latest === undefined || this.#latest.startedAt <= startedAt) {
      this.#latest = { startedAt: performance.now(), reading: readingOf(this.logs) };
    }
    return this.#latest;
  }
}

/**
 * The log as served once its checkpoint counts every event up to `minPosition` (`X-Min-Position`), waiting up to
 * `waitMs` for a checkpoint that does, as every public answer does (docs/api.md, "Read your writes"). Read first on
 * its own, then woken when this process signs or sees a new checkpoint, and reading the store (another replica's)
 * every `WAIT_READ_MS` through `reads`, whose readings every waiting request shares.
 */
async function servedThrough(logs: TransparencyLog, reads: WaitingReads, minPosition: number | undefined, waitMs: number): Promise<Served> {
  const deadline = performance.now() + waitMs;
  if (minPosition === undefined) return served(logs);
  let startedAt = performance.now();
  let { log, last } = await readingOf(logs);
  for (;;) {
    if (last >= minPosition) return log;
    const readAgainAt = Math.min(deadline, performance.now() + WAIT_READ_MS);
    if (performance.now() >= deadline) throw new LogRefusal(REFUSALS.behind, BEHIND_RETRY_AFTER_SECONDS);
    while (performance.now() < readAgainAt && (logs.checkpoint()?.size ?? 0) <= log.checkpoint.size) {
      await setTimeout(Math.min(WAIT_LOOK_MS, Math.max(0, readAgainAt - performance.now())));
    }
    const next = reads.after(startedAt);
    startedAt = next.startedAt;
    ({ log, last } = await next.reading);
  }
}

/** The latest checkpoint does not count yet the event at `position` asked by `position=`: it may be on its way. */
const notYetCounted = (last: number, position: number): Record<Language, string> => ({
  en: `The latest checkpoint counts the events up to position ${last}, not yet the one at position ${position}; try again shortly`,
  fr: `Le dernier point de contrôle couvre les événements jusqu'à la position ${last}, pas encore celui de la position ${position} ; réessayez dans un instant`,
});

async function inclusionAnswer(through: Served, query: InclusionQuery): Promise<LogProof> {
  const { view: { log }, checkpoint } = through;
  const published = checkpoint.size;
  // Without a size, the proof is against the latest checkpoint: what a client holding only a position asks for.
  const treeSize = query.tree_size ?? published;
  if (treeSize > published) throw outOfRange('tree_size', treeSize, `the latest checkpoint holds ${published} leaves`);
  let index = query.index;
  if (index === undefined) {
    // The query names the leaf one way: by `index`, or else by `position` (`x-one-of` of its schema).
    const position = query.position as number;
    // An event the latest checkpoint does not count yet may be on its way (just appended): refused as not yet there,
    // to be asked again, never answered as absent from the log.
    const last = await lastCounted(through);
    if (query.tree_size === undefined && position > last) {
      throw new LogRefusal(notYetCounted(last, position), BEHIND_RETRY_AFTER_SECONDS);
    }
    index = await log.indexOf(position);
    // Past the tree of the size asked, it is refused just below, as a leaf outside that tree.
    if (index === undefined) {
      const why = position > last ? `the latest checkpoint counts the events up to position ${last}` : `no event of the log is at position ${position}`;
      throw outOfRange('position', position, why);
    }
  }
  if (index >= treeSize) {
    throw outOfRange(query.index === undefined ? 'position' : 'index', query.index ?? query.position, `leaf ${index} is not in a tree of ${treeSize} leaves`);
  }
  const { leaf, proof, root } = await log.inclusion(index, treeSize);
  return { tree_size: treeSize, root: b64(root), leaf_index: index, leaf_hash: b64(leaf), proof: proof.map(b64) };
}

async function consistencyAnswer({ view: { log }, checkpoint }: Served, query: ConsistencyQuery): Promise<LogProof> {
  const published = checkpoint.size;
  if (query.to > published) throw outOfRange('to', query.to, `the latest checkpoint holds ${published} leaves`);
  if (query.from > query.to) throw outOfRange('from', query.from, `the earlier tree cannot be larger than ${query.to} leaves`);
  const { proof, root } = await log.consistency(query.from, query.to);
  return { tree_size: query.to, root: b64(root), proof: proof.map(b64) };
}

function send(ctx: ParameterizedContext, type: string, text: string, cacheControl: string): void {
  const body = Buffer.from(text);
  sendTagged(ctx, type, body, etagOf(body), cacheControl);
}

const TILE_PREFIX = /^\/transparency\/(tile\/.+)$/;
/** The route tiles are counted under in the metrics (no router matches them). */
const TILE_ROUTE = '/transparency/tile/:level/:index';
/** Full tiles never change; a partial one is replaced by wider ones as the log grows. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A tile's hashes are fixed by its path: `X-Min-Position` is checked, never waited for (a client asks the checkpoint
 * with it for a tree counting its change, then that tree's tiles).
 */
const tiles = (logs: TransparencyLog): Middleware => async (ctx, next) => {
  const path = TILE_PREFIX.exec(ctx.path)?.[1];
  const tile = path === undefined ? undefined : parseTilePath(path);
  if (!tile) return next();
  nameRoute(ctx, TILE_ROUTE);
  const read = ctx.method === 'GET' || ctx.method === 'HEAD';
  if (ctx.method === 'OPTIONS') return GET_PREFLIGHT(ctx, next);
  if (!read) {
    // A known path, another method: 405 in the contract's shape (the front door writes its body), as every route's.
    ctx.set('Allow', 'HEAD, GET, OPTIONS');
    ctx.status = 405;
    return;
  }
  checkedMinPosition(ctx.req.headers);
  const { view: { log }, checkpoint } = await served(logs);
  const data = await log.tile(tile, checkpoint.size);
  if (!data) return next();
  const body = Buffer.from(data);
  sendTagged(ctx, 'application/octet-stream', body, etagOf(body), tile.width === TILE_WIDTH ? IMMUTABLE : 'public, max-age=60');
};

/**
 * A parked log (log-publisher.ts) serves nothing: no checkpoint, proof or tile of a history that was rewritten; nor
 * does a log whose tiles are not yet built up to its latest checkpoint (a read store being filled again). Refused as
 * every refused answer is (cache/conditional-answer.ts), with `Retry-After: 60`; in English for the checkpoint and the
 * tiles, which take no `lang` (the proofs send theirs in the language asked).
 */
const refuseUnavailable: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    sendLogRefusal(ctx, error, 'en');
  }
};

/**
 * `minPositionWaitMs`: how long an answer asked with `X-Min-Position` waits for a checkpoint counting that position
 * (`MIN_POSITION_WAIT_MS`).
 */
export function transparencyRoutes(logs: TransparencyLog, minPositionWaitMs = 0): Middleware {
  // Case-insensitive, trailing slash optional: the way the rate limits read a public path.
  const router = new Router({ sensitive: false, strict: false });
  const reads = new WaitingReads(logs);
  const validateCheckpoint = compileRequestValidator(checkpointSpec);
  router.get(CHECKPOINT_PATHS, async (ctx) => {
    const { header } = validateCheckpoint({ query: {}, path: {}, header: readModelHeaders(ctx.req.headers) });
    const { checkpoint } = await servedThrough(logs, reads, header[MIN_POSITION_HEADER] as number | undefined, minPositionWaitMs);
    send(ctx, TEXT, checkpoint.note, 'no-cache');
  });
  // Keys are not read at a position: `X-Min-Position` is checked, never waited for.
  router.get(TRANSPARENCY_KEY_PATH, minPositionChecked, (ctx) => send(ctx, TEXT, logs.verifierKey, 'public, max-age=300'));
  router.get(KEY_HISTORY_PATH, minPositionChecked, (ctx) => send(ctx, JSON_TYPE, logs.keyHistory, 'public, max-age=300'));
  /** `sized`: whether the query names every size, so that its proof never changes. */
  const proof = <Q>(spec: OperationSpec, answer: (log: Served, query: Q) => Promise<LogProof>, sized: (query: Q) => boolean) => {
    const validate = compileRequestValidator(spec);
    router.get(spec.id, spec.path, async (ctx) => {
      const { query, header } = validate({ query: ctx.query, path: {}, header: readModelHeaders(ctx.req.headers) });
      try {
        const log = await servedThrough(logs, reads, header[MIN_POSITION_HEADER] as number | undefined, minPositionWaitMs);
        // A proof for given sizes never changes: only its availability does, with the checkpoint. One against the
        // latest checkpoint (no size given) changes as the log grows.
        send(ctx, JSON_TYPE, JSON.stringify(await answer(log, query as Q)), sized(query as Q) ? 'public, max-age=3600' : 'no-cache');
      } catch (error) {
        // Their query's `lang` (transparency.schema.ts): a refusal is a message, in the language asked.
        sendLogRefusal(ctx, error, query['lang'] as Language);
      }
    });
  };
  proof(inclusionSpec, inclusionAnswer, (query: InclusionQuery) => query.tree_size !== undefined);
  proof(consistencySpec, consistencyAnswer, () => true);
  // A page on another site may ask them with `X-Min-Position` or `Accept-Signature`, which a browser asks leave for
  // first (the tiles' preflight: `tiles`).
  router.options([...CHECKPOINT_PATHS, TRANSPARENCY_KEY_PATH, KEY_HISTORY_PATH, inclusionSpec.path, consistencySpec.path], GET_PREFLIGHT);
  const routes = router.routes() as Middleware;
  const tileRoute = tiles(logs);
  return (ctx, next) => refuseUnavailable(ctx, () => tileRoute(ctx, () => routes(ctx, next)));
}
