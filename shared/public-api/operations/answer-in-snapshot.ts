/**
 * The one place that decides whether an answer may be given now, and under which stamp (docs/api.md, "Honest
 * answers"); the routes, the answer caches and the MCP tools all ask it. An answer is read through one snapshot of
 * the store (the clock's reading: its control documents and the generations they name) and stamped from that same
 * snapshot, so its stamp is never ahead of its data and its reads never mix generations. It is refused, 503 with
 * `Retry-After`, when a read model it needs was never built, when it needs a fresh one (verification, within its own
 * bound: the clock's `refusal`) and the one there is not, and when the store cannot be reached: never a confident
 * answer from data nobody can vouch for. An answer that needs fresh read models says how old its data is.
 */
import type { Language } from '../../events/common.ts';
import { ReadStoreUnavailableError, SnapshotExpiredError } from '../../ports/read-store.ts';
import type { ReadModelClock, ReadStamp, Refusal } from '../read-model-clock.ts';
import type { ValidRequest } from '../validation/request-validator.ts';
import type { Answer, OperationEnv, PublicOperation } from './public-operation.ts';

/** What the read API holds to answer: everything an operation's env has but the store, which each reading gives. */
export type ReadingEnv = Omit<OperationEnv, 'readStore' | 'clock'> & { clock: ReadModelClock };

/** An answer, and the stamp of the snapshot it was read from (none for a refusal, which read nothing). */
export interface StampedAnswer {
  answer: Answer;
  stamp: ReadStamp | undefined;
  /**
   * Of an operation that needs its read models fresh (the verification): how old its data is, in whole seconds, as
   * its reading says (`X-Data-Age`).
   */
  dataAge?: number | undefined;
}

/** Seconds a refused client is asked to wait: a few polls of the projector's confirmations. */
export const REFUSAL_RETRY_AFTER_SECONDS = 5;

const REFUSALS: Record<'unbuilt' | 'unreachable' | 'registry', Record<Language, string>> = {
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
};

/** The 503 of an operation refused for `why`, in the request's language. */
export function refusedAnswer(operation: PublicOperation, why: Refusal | 'unreachable', lang: Language): Answer {
  // A model that is only built is enough for the other operations, so theirs can only be unbuilt or unreachable.
  const kind = operation.fresh === true ? 'registry' : why === 'unreachable' ? 'unreachable' : 'unbuilt';
  return { status: 503, body: { detail: REFUSALS[kind][lang] }, retryAfter: REFUSAL_RETRY_AFTER_SECONDS };
}

/** A snapshot that expired under a slow request is read again, once. */
const ATTEMPTS = 2;

export type Answerer = (operation: PublicOperation, request: ValidRequest) => Promise<StampedAnswer>;

export function answerInSnapshot(env: ReadingEnv): Answerer {
  return async (operation, request) => {
    const lang = (request.query['lang'] as Language | undefined) ?? 'en';
    const refused = (why: Refusal | 'unreachable'): StampedAnswer => ({ answer: refusedAnswer(operation, why, lang), stamp: undefined });
    for (let attempt = 1; ; attempt += 1) {
      try {
        const reading = await env.clock.reading(attempt > 1);
        // Judged on the projections as that reading left them: nothing newer is needed to refuse.
        const why = env.clock.refusal(operation.reads, operation.fresh === true);
        if (why !== undefined) return refused(why);
        const stamp = reading.stamp(operation.reads);
        const answer = await operation.handle(request, { ...env, readStore: reading.view });
        return { answer, stamp, ...(operation.fresh === true ? { dataAge: reading.dataAge(operation.reads) } : {}) };
      } catch (error) {
        if (error instanceof ReadStoreUnavailableError) return refused('unreachable');
        if (!(error instanceof SnapshotExpiredError) || attempt === ATTEMPTS) throw error;
      }
    }
  };
}
