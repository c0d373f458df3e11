/**
 * The answer policy: the one module that decides, for every answer of the read API (an operation over HTTP, an MCP
 * tool call, an answer a cache kept, a 304, a signed answer), whether it may be given now and what it says of its
 * data (docs/api.md, "Honest answers"). A new answer is read through one snapshot of the store (the clock's
 * `Reading`: its control documents and the generations they name) and judged and stamped from that very snapshot;
 * a kept one is judged on where its projections stand now:
 * - **Refusal.** 503 with `Retry-After` when a read model the answer reads was never built, when it needs them fresh
 *   (the verification, within its own bound, judged before its read and again after it) and they are not, or when the
 *   store cannot be reached: never a confident answer from data nobody can vouch for. A snapshot that expired under a
 *   slow request is read again, once.
 * - **Read your writes.** A request with `X-Min-Position: P` is read from a snapshot at or past `P`, waited for up to
 *   `MIN_POSITION_WAIT_MS` (woken by the next reading: on a projector's word, or this process's own poll, one
 *   reading shared by every waiting request), else refused. A kept answer is given to it, by either cache or the
 *   route's, only when it was read at or past `P`; never one below.
 * - **Stamp.** `X-Read-Model-Position` is the lowest position of the projections read, or, read while the store stood
 *   behind what was served, the store's position: never newer than the data, and its reads never mix generations. A
 *   document read ahead of it (a reading pins the control documents, not the documents' contents) raises it to that
 *   document's position, and that answer is not kept: never older than the data either. A signed answer pins a tree of the transparency log holding no event after it (read-api/transparency/answer-checkpoint.ts).
 * - **Keeping.** Only an answer that succeeded and was not read behind is kept (its bytes, or a template whose time
 *   is renewed), under the stamp of its own reading; it is given again only while the projections it read stand where
 *   that stamp says, still built, and, for one that needs them fresh, still fresh, and while no answer of them was
 *   given since from a document ahead of that stamp (the clock's `aheadOf`): never an older state after a newer one.
 * - **Time.** The time an answer says (`checked_at`) is this policy's `now`, handed to the operation and renewed when a
 *   kept answer is given again; no freshness rule reads it (freshness is the clock's own monotonic time).
 * - **Data age.** An answer that needs fresh read models says how old its data is (`X-Data-Age`), kept ones too.
 * - **Health.** Status's `degraded` and readiness come from `readModelStanding`.
 * The answer caches (read-api/cache/, read-api/mcp/mcp-answer-cache.ts) are plain stores that ask `keep` before
 * keeping and `serving` before giving.
 */
import type { Language } from '../../events/common.ts';
import { ReadStoreUnavailableError, SnapshotExpiredError } from '../../ports/read-store.ts';
import type { Answer, OperationEnv, PublicOperation } from './operations/public-operation.ts';
import type {
  ParkedProjection, PolledReadModelClock, ProjectionFreshness, Reading, ReadModelClock, ReadStamp, ReadView, Refusal,
} from './read-model-clock.ts';
import type { ValidRequest } from './validation/request-validator.ts';
import { MIN_POSITION_HEADER } from './schemas/common.schema.ts';

/** What the policy's rules for kept answers need: the clock, and the time answers say. */
interface AnswerPolicyEnv {
  clock: ReadModelClock;
  /** The time answers say (`checked_at`): the wall clock unless given (a test's fixed time). */
  now?: () => Date;
}

/** What the read API holds to answer: everything an operation's env has but the store and the time, which each reading gives. */
export type ReadingEnv = Omit<OperationEnv, 'readStore' | 'clock' | 'now'> & AnswerPolicyEnv;

/**
 * An answer, with the stamp of the snapshot it was read from and where its data stands (`X-Read-Model-Position`);
 * of an operation that needs its read models fresh, how old its data is in whole seconds (`X-Data-Age`). A refusal
 * read nothing: no stamp.
 */
type StampedAnswer =
  | { answer: Answer; stamp: undefined; position?: undefined; dataAge?: undefined }
  | { answer: Answer; stamp: ReadStamp; position: number; dataAge?: number | undefined };

/**
 * How answers of an operation may be kept: `whole`, their bytes as they are (an answer that depends only on the
 * request and the read models); `timed`, as a template whose time field is renewed each time it is given; `none`.
 */
type Keeping = 'whole' | 'timed' | 'none';

/** What a kept answer holds to be judged again: the stamp of its reading, and where its projections stand now. */
export interface Kept {
  readonly stamp: ReadStamp;
  readonly view: ReadView;
}

/** How a kept answer is given now. */
export interface Serving {
  position: number;
  dataAge?: number | undefined;
}

/** The policy's rules for the kept answers of one operation. */
export interface KeptAnswerPolicy {
  readonly keeping: Keeping;
  /** The time an answer given now says: a new one's, or a kept one's whose time is renewed. */
  now(): Date;
  /** What to keep of an answer given under `stamp` (none: refused) that `succeeded`; undefined when it may not be kept. */
  keep(stamp: ReadStamp | undefined, succeeded: boolean): Kept | undefined;
  /**
   * How a kept answer is given now, to a request that needs data at or past `minPosition` (`X-Min-Position`) if
   * given; undefined when it may not be (read it again: it is then answered, or refused).
   */
  serving(kept: Kept, minPosition?: number): Serving | undefined;
}

/** The policy as it applies to one operation. */
interface OperationPolicy extends KeptAnswerPolicy {
  /** Reads and answers `request` through one snapshot, or refuses it. */
  answer(request: ValidRequest): Promise<StampedAnswer>;
}

/** Seconds a refused client is asked to wait: a few polls of the projector's confirmations. */
export const REFUSAL_RETRY_AFTER_SECONDS = 5;

export const REFUSALS: Record<'unbuilt' | 'unreachable' | 'registry' | 'behind', Record<Language, string>> = {
  unbuilt: {
    en: 'The catalogue is being prepared; try again shortly',
    fr: 'Le catalogue est en cours de préparation ; réessayez dans un instant',
  },
  // Every refusal of the verification operation, which needs its read model fresh, not only built.
  registry: {
    en: 'The registry cannot be checked right now; try again shortly',
    fr: 'Le registre ne peut pas être consulté pour le moment ; réessayez dans un instant',
  },
  unreachable: {
    en: 'The catalogue cannot be read right now; try again shortly',
    fr: 'Le catalogue ne peut pas être lu pour le moment ; réessayez dans un instant',
  },
  // The read models did not reach the request's `X-Min-Position` in time: they are on their way, soon there.
  behind: {
    en: 'The answer is not yet up to date with your change; try again shortly',
    fr: 'La réponse n\'est pas encore à jour de votre modification ; réessayez dans un instant',
  },
};

/** Seconds a request refused for its `X-Min-Position` is asked to wait: the read models are on their way. */
export const BEHIND_RETRY_AFTER_SECONDS = 1;

/** The position a request asks its answer to reflect at least (`X-Min-Position`, validated), if it asks one. */
export const minPositionOf = (request: ValidRequest): number | undefined => request.header[MIN_POSITION_HEADER] as number | undefined;

/** Where the data of a reading stands for an answer: the store's position while it stood behind what was served. */
const dataPosition = (stamp: ReadStamp): number => stamp.behindAt ?? stamp.position;

/**
 * Whether data of `reads` at `stamp` reflects every event up to `minPosition`. Not while one of them is parked: its
 * checkpoint counts positions it may never have applied (an event store put back to an older copy hands them out
 * again, docs/api.md "Stores put back from a copy"). Position 0 asks for no event.
 */
const reaches = (clock: ReadModelClock, reads: readonly string[], position: number, minPosition: number): boolean =>
  position >= minPosition && (minPosition === 0 || !clock.parkedAmong(reads));

/**
 * A reading whose data for `reads` is at or past `minPosition`, read within `waitMs` of the call; undefined when the
 * read models did not get there in time. Each reading after the first is the next one the clock reads: on the
 * projectors' word that a read model moved, or the clock's own poll for waiting requests (read-model-clock.ts,
 * `waitingPollMs`), one at a time per process, whoever waits.
 */
async function readingAtLeast(clock: ReadModelClock, reads: readonly string[], minPosition: number, deadline: number, renew: boolean): Promise<Reading | undefined> {
  let reading = await clock.reading(renew);
  while (!reaches(clock, reads, dataPosition(reading.stamp(reads)), minPosition)) {
    const left = deadline - performance.now();
    if (left <= 0) return undefined;
    reading = await clock.nextReading(left);
  }
  return reading;
}

/** The 503 of an operation refused for `why`, in the request's language. */
function refusedAnswer(operation: PublicOperation, why: Refusal | 'unreachable', lang: Language): Answer {
  // A model that is only built is enough for the other operations, so theirs can only be unbuilt or unreachable.
  const kind = operation.fresh === true ? 'registry' : why === 'unreachable' ? 'unreachable' : 'unbuilt';
  return { status: 503, body: { detail: REFUSALS[kind][lang] }, retryAfter: REFUSAL_RETRY_AFTER_SECONDS };
}

/** A snapshot that expired under a slow request is read again, once. */
const ATTEMPTS = 2;

const wallClock = () => new Date();

/** A kept answer's projections stand where its stamp says: the stores drop an entry once they do not. */
export const standsWhereRead = (kept: Kept): boolean => kept.stamp.key === kept.view().key;

export function keptAnswerPolicy(env: AnswerPolicyEnv, operation: PublicOperation): KeptAnswerPolicy {
  const { clock } = env;
  const { reads } = operation;
  const fresh = operation.fresh === true;
  const keeping: Keeping = operation.timeField !== undefined ? 'timed' : operation.cacheable ? 'whole' : 'none';
  let view: ReadView | undefined;
  return {
    keeping,
    now: env.now ?? wallClock,
    keep(stamp, succeeded) {
      // Read while the store stood behind what was served, it reflects only the store's position: not kept, so that
      // no kept answer is older than its stamp.
      if (keeping === 'none' || !succeeded || stamp === undefined || stamp.behindAt !== null) return undefined;
      return { stamp, view: (view ??= clock.view(reads)) };
    },
    serving(kept, minPosition) {
      if (minPosition !== undefined && !reaches(clock, reads, kept.stamp.position, minPosition)) return undefined;
      // Standing where it was read, its data may be older than an answer this process gave since from a document its
      // projector wrote before the checkpoint (a theft answered STOLEN): never the state of before it again.
      if (kept.stamp.position < clock.aheadOf(reads)) return undefined;
      // Standing where it was read, a kept answer's models may have lost their confirmation (a switch to a generation
      // never confirmed leaves the key as it was): the stamp says so. Fresh lapses with time alone: the clock is asked.
      const standing = kept.view();
      if (standing.key !== kept.stamp.key || standing.unbuilt === true) return undefined;
      if (fresh && clock.refusal(reads, true) !== undefined) return undefined;
      return { position: kept.stamp.position, ...(fresh ? { dataAge: clock.dataAge(reads) } : {}) };
    },
  };
}

export function operationPolicy(env: ReadingEnv, operation: PublicOperation): OperationPolicy {
  const kept = keptAnswerPolicy(env, operation);
  const { reads } = operation;
  const fresh = operation.fresh === true;
  return {
    ...kept,
    async answer(request) {
      const lang = (request.query['lang'] as Language | undefined) ?? 'en';
      const refused = (why: Refusal | 'unreachable'): StampedAnswer => ({ answer: refusedAnswer(operation, why, lang), stamp: undefined });
      const minPosition = minPositionOf(request);
      // One wait for the request, whatever is read again: a snapshot expired under it does not start another.
      const deadline = minPosition === undefined ? 0 : performance.now() + env.config.MIN_POSITION_WAIT_MS;
      for (let attempt = 1; ; attempt += 1) {
        try {
          const reading = minPosition === undefined
            ? await env.clock.reading(attempt > 1)
            : await readingAtLeast(env.clock, reads, minPosition, deadline, attempt > 1);
          if (reading === undefined) {
            return { answer: { status: 503, body: { detail: REFUSALS.behind[lang] }, retryAfter: BEHIND_RETRY_AFTER_SECONDS }, stamp: undefined };
          }
          // Judged on the snapshot the data is read from, as the stamp and the data's age are.
          const why = reading.refusal(reads, fresh);
          if (why !== undefined) return refused(why);
          const stamp = reading.stamp(reads);
          const read = await operation.handle(request, { ...env, readStore: reading.view, now: kept.now() });
          // Judged again once read: a read that took long (a slow store, a busy process) may have outlived the bound,
          // and the answer would say an `X-Data-Age` past it.
          const late = fresh ? reading.refusal(reads, true) : undefined;
          if (late !== undefined) return refused(late);
          // A document read ahead of the stamp (written by its projector before the checkpoint the reading holds): the
          // answer says the position of its data, not one where what it says was not yet so (a recovery signed at a
          // position where the serial stood stolen, pinning a tree that holds the theft and not the recovery). Given
          // once: a kept copy would be given again at its stamp's position.
          const ahead = read.dataAt !== undefined && read.dataAt > dataPosition(stamp) ? read.dataAt : undefined;
          if (ahead !== undefined) env.clock.answeredAhead(reads, ahead);
          const answer: Answer = ahead === undefined ? read : { ...read, once: true };
          return { answer, stamp, position: ahead ?? dataPosition(stamp), dataAge: fresh ? reading.dataAge(reads) : undefined };
        } catch (error) {
          if (error instanceof ReadStoreUnavailableError) return refused('unreachable');
          if (!(error instanceof SnapshotExpiredError) || attempt === ATTEMPTS) throw error;
        }
      }
    },
  };
}

export type Answerer = (operation: PublicOperation, request: ValidRequest) => Promise<StampedAnswer>;

/** Any operation's answers through the policy (the MCP tools'), each operation's rules made once. */
export function answerInSnapshot(env: ReadingEnv): Answerer {
  const policies = new Map<PublicOperation, OperationPolicy>();
  return (operation, request) => {
    let policy = policies.get(operation);
    if (policy === undefined) policies.set(operation, (policy = operationPolicy(env, operation)));
    return policy.answer(request);
  };
}

/** What the read models let this process say of itself: status's `degraded`, and readiness (read-api/server.ts). */
interface ReadModelStanding {
  /** Every projection with a live checkpoint, with its freshness now. */
  projections: ProjectionFreshness[];
  /** The read models the operations answer from that are not built: every operation reading one is refused. */
  unbuilt: string[];
  parked: readonly ParkedProjection[];
  /** Every projection fresh (within `READ_MODEL_MAX_LAG_SECONDS`). */
  fresh: boolean;
  /** Something cannot be vouched for in full: the store unreachable, a projection parked, stale or not built. */
  degraded: boolean;
}

/** `served`: the read models the operations answer from (the transparency log's tiles are none of them). */
export function readModelStanding(clock: PolledReadModelClock, served: readonly string[]): ReadModelStanding {
  const projections = clock.projections();
  const built = new Set(projections.flatMap((projection) => (projection.built ? [projection.name] : [])));
  const unbuilt = served.filter((name) => !built.has(name));
  const fresh = projections.every((projection) => projection.fresh);
  const { parked } = clock;
  return { projections, unbuilt, parked, fresh, degraded: !clock.reachable || parked.length > 0 || !fresh || unbuilt.length > 0 };
}
