/**
 * The HTTP manners of a public operation's answer, beyond the front door and the rate limits: the read-model
 * position it was made at, `Cache-Control` and `ETag` on a 200, and 304 when the client already holds it.
 */
import { JSON_TYPE } from '../middleware/front-door.ts';
import { matchesIfNoneMatch, type RenderedAnswer } from './rendered-answer.ts';

export interface ConditionalAnswer {
  status: number;
  headers: [string, string][];
  /** None on a 304. */
  body: Buffer | undefined;
}

export interface AnswerContext {
  position: number;
  cacheControl: string | undefined;
  /** A GET or HEAD: the answer carries an ETag and honours `If-None-Match`. */
  conditional: boolean;
  ifNoneMatch: string | undefined;
}

export function conditionalAnswer(answer: RenderedAnswer, context: AnswerContext): ConditionalAnswer {
  const headers: [string, string][] = [['X-Read-Model-Position', String(context.position)]];
  if (answer.status === 200) {
    if (context.cacheControl !== undefined) headers.push(['Cache-Control', context.cacheControl]);
    if (context.conditional) {
      headers.push(['ETag', answer.etag]);
      if (matchesIfNoneMatch(context.ifNoneMatch, answer.etag)) return { status: 304, headers, body: undefined };
    }
  }
  headers.push(['Content-Type', JSON_TYPE]);
  return { status: answer.status, headers, body: answer.body };
}
