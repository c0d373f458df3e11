/**
 * What the public API answers from a read store, built by the very operations the read API serves
 * (shared/read-model/public-api), requests validated by the same schemas, so defaults and shapes cannot differ from the live
 * API. Used on a scratch store projected up to a point in time: the operations are given that moment as their time
 * (a verification's `checked_at`), as the answer policy gives the live API's (shared/read-model/public-api/answer-policy.ts).
 */
import type { Config } from '../../shared/config/config.ts';
import { publicBrand } from '../../shared/brand.ts';
import type { Language } from '../../shared/events/common.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { ConfiguratorDoc, SerialsDoc } from '../../shared/read-model/documents/documents.ts';
import { catalogueOperation } from '../../shared/read-model/public-api/operations/catalogue.operation.ts';
import { collectionsOperation } from '../../shared/read-model/public-api/operations/collections.operation.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { optionsOperation } from '../../shared/read-model/public-api/operations/options.operation.ts';
import { priceOperation } from '../../shared/read-model/public-api/operations/price.operation.ts';
import type { Answer, OperationEnv, PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { watchDetailOperation } from '../../shared/read-model/public-api/operations/watch-detail.operation.ts';
import { compileRequestValidator, type RawRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';

/** The largest page the catalogue operation allows. */
const PAGE = 100;

/** An operation environment over `readStore`, frozen at `position` / `asOf`, which is the time its answers say. */
export function frozenEnv(readStore: ReadStore, config: Config, position: number, asOf: Date): OperationEnv {
  return {
    readStore, config, operations: publicOperations, brand: publicBrand(config), now: asOf,
    clock: { current: () => position, updatedAt: asOf.toISOString(), projections: () => [] },
    health: () => 'ok',
  };
}

/** Validates the request as the router does, then lets the operation answer; a validation failure is its 422. */
async function ask(operation: PublicOperation, env: OperationEnv, request: RawRequest): Promise<Answer> {
  try {
    return await operation.handle(compileRequestValidator(operation.spec)(request), env);
  } catch (error) {
    if (error instanceof RequestValidationError) return { status: 422, body: { detail: error.issues } };
    throw error;
  }
}

/** Every catalogue page of `PAGE` watches (`?lang=..&limit=100&offset=..`), at least one. */
export async function catalogueAnswers(env: OperationEnv, lang: Language): Promise<unknown[]> {
  const pages: unknown[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const answer = await ask(catalogueOperation, env, { query: { lang, limit: String(PAGE), offset: String(offset) }, path: {} });
    pages.push(answer.body);
    if (offset + PAGE >= (answer.body as { total: number }).total) return pages;
  }
}

export async function collectionsAnswer(env: OperationEnv, lang: Language): Promise<unknown> {
  return (await ask(collectionsOperation, env, { query: { lang }, path: {} })).body;
}

/** The options answer of every collection, by collection code. */
export async function optionsAnswers(env: OperationEnv, lang: Language): Promise<Record<string, unknown>> {
  const docs = await env.readStore.find<ConfiguratorDoc>('configurators', { lang }, { sort: { _id: 1 } });
  const answers: Record<string, unknown> = {};
  for (const { collection: { code } } of docs) {
    answers[code] = (await ask(optionsOperation, env, { query: { lang }, path: { collection: code } })).body;
  }
  return answers;
}

/**
 * The verification operation's answer for every serial the serials read model holds, checked at the env's moment: the
 * registered ones, and those whose stream holds an event of a type this version does not know. A refusal's body names
 * no serial (the API's caller asked for one), so here it is given with the serial it refuses: `{serial, detail}`.
 */
export async function serialAnswers(env: OperationEnv, lang: Language): Promise<unknown[]> {
  const docs = await env.readStore.find<SerialsDoc>('serials', {}, { sort: { _id: 1 } });
  const answers: unknown[] = [];
  for (const { serial } of docs) {
    const answer = await verification(env, lang, serial);
    answers.push(answer.status === 200 ? answer.body : { serial, ...(answer.body as object) });
  }
  return answers;
}

/** The detail operation's answer for one watch (`GET /api/public/catalogue/{reference}`): 200, or its 404. */
export async function watchAnswer(env: OperationEnv, lang: Language, reference: string): Promise<unknown> {
  return (await ask(watchDetailOperation, env, { query: { lang }, path: { reference } })).body;
}

/**
 * The verification operation's answer for one serial (`GET /api/public/verify/{serial}`) at the env's moment:
 * NOT_FOUND when it was not registered then, the 422 of a serial the operation does not take.
 */
export async function serialAnswer(env: OperationEnv, lang: Language, serial: string): Promise<unknown> {
  return (await verification(env, lang, serial)).body;
}

const verification = (env: OperationEnv, lang: Language, serial: string): Promise<Answer> =>
  ask(verifyOperation, env, { query: { lang }, path: { serial } });

/** The price operation's answer to `body`: 200 with the price, or 422 with the issues, as the API would say. */
export async function priceAnswer(env: OperationEnv, lang: Language, body: unknown): Promise<Answer> {
  return ask(priceOperation, env, { query: { lang }, path: {}, body });
}
