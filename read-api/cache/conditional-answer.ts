/**
 * The HTTP manners of a public operation's answer, beyond the front door and the rate limits: the read-model
 * position it was made at, `Cache-Control` and `ETag` on a 200, and 304 when the client already holds it. The forms
 * an answer can take at a position are made once and kept on the answer, so sending it again builds nothing.
 */
import type { Context } from 'koa';
import { JSON_TYPE } from '../middleware/front-door.ts';
import { matchesIfNoneMatch, type RenderedAnswer } from './rendered-answer.ts';

interface ConditionalAnswer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  /** None on a 304. */
  readonly body: Buffer | undefined;
}

interface AnswerContext {
  position: number;
  cacheControl: string | undefined;
  /** A GET or HEAD: the answer carries an ETag and honours `If-None-Match`. */
  conditional: boolean;
  ifNoneMatch: string | undefined;
}

/** The forms of one answer at one position with one `Cache-Control`. */
interface AnswerForms {
  position: number;
  cacheControl: string | undefined;
  /** A 200 to a GET or HEAD (with its ETag), the 304 to one, and the answer to any other request. */
  full: ConditionalAnswer;
  notModified: ConditionalAnswer;
  plain: ConditionalAnswer;
}

export function conditionalAnswer(answer: RenderedAnswer, context: AnswerContext): ConditionalAnswer {
  const forms = formsOf(answer, context.position, context.cacheControl);
  if (answer.status !== 200 || !context.conditional) return forms.plain;
  return matchesIfNoneMatch(context.ifNoneMatch, answer.etag) ? forms.notModified : forms.full;
}

function formsOf(answer: RenderedAnswer, position: number, cacheControl: string | undefined): AnswerForms {
  const kept = answer.forms as AnswerForms | undefined;
  if (kept !== undefined && kept.position === position && kept.cacheControl === cacheControl) return kept;
  // Names in lower case, as Node indexes them: it lowercases every name it is given, at a cost a request can see
  // (bench/README.md, issue 42); HTTP field names are case-insensitive (RFC 9110, section 5.1).
  const at: [string, string] = ['x-read-model-position', String(position)];
  const cache: [string, string][] = answer.status === 200 && cacheControl !== undefined ? [['cache-control', cacheControl]] : [];
  const type: [string, string] = ['content-type', JSON_TYPE];
  const tagged = answer.status === 200 ? [at, ...cache, ['etag', answer.etag] as [string, string]] : [at, ...cache];
  const forms: AnswerForms = {
    position, cacheControl,
    full: { status: answer.status, headers: [...tagged, type], body: answer.body },
    notModified: { status: 304, headers: tagged, body: undefined },
    plain: { status: answer.status, headers: [at, ...cache, type], body: answer.body },
  };
  answer.forms = forms;
  return forms;
}

/**
 * A file of the public port (discovery files, the transparency log's checkpoint, keys, proofs and tiles) with its
 * `ETag` (`etagOf` its bytes) and `Cache-Control`; a 304 with no body when `If-None-Match` names it.
 */
export function sendTagged(ctx: Context, type: string, body: Buffer, etag: string, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', etag);
  if (matchesIfNoneMatch(ctx.get('If-None-Match') || undefined, etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = body;
}

/**
 * A refusal (docs/api.md, "Honest answers"; a transparency log that cannot be served): the status with when to try
 * again, kept by no cache on the way. JSON, as every error of the public port.
 */
export function sendRefusal(ctx: Context, status: number, body: Buffer, retryAfterSeconds: number): void {
  ctx.set('Retry-After', String(retryAfterSeconds));
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Type', JSON_TYPE);
  ctx.status = status;
  ctx.body = body;
}
