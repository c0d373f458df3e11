/**
 * Every public answer is made from one snapshot of the read store (ReadStore.snapshot), resolved once per request
 * and handed to the operation as its env's `readStore`: an answer of several reads (a page and its total, the
 * collections and their members) never mixes generations, whatever rebuild switches meanwhile.
 */
import { SnapshotExpiredError, type ReadStore, type ReadView } from '../../ports/read-store.ts';
import type { ValidRequest } from '../validation/request-validator.ts';
import type { Answer, OperationEnv, PublicOperation } from './public-operation.ts';

/** The env the read API holds: the store itself, from which each request takes its snapshot. */
export interface StoreEnv extends OperationEnv {
  readStore: ReadStore;
}

/** A request whose snapshot expired (it read too slowly) is answered again from a new one, once. */
const ATTEMPTS = 2;

export type Answerer = (operation: PublicOperation, request: ValidRequest) => Promise<Answer>;

export function answerInSnapshot(env: StoreEnv): Answerer {
  // The env of the last snapshot, reused while the store hands out the same one (the in-memory store does until
  // a switch): no allocation per request on the hot path.
  let last: { view: ReadView; env: OperationEnv } | undefined;
  const envOf = (view: ReadView): OperationEnv => {
    if (last?.view !== view) last = { view, env: { ...env, readStore: view } };
    return last.env;
  };
  return async (operation, request) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await operation.handle(request, envOf(await env.readStore.snapshot()));
      } catch (error) {
        if (!(error instanceof SnapshotExpiredError) || attempt === ATTEMPTS) throw error;
      }
    }
  };
}
