/** An answer serialized once: the JSON bytes and their entity tag, ready to be sent as many times as asked. */
import { createHash } from 'node:crypto';

export interface RenderedAnswer {
  status: number;
  body: Buffer;
  /** Strong entity tag of `body`, quoted. */
  etag: string;
  /** Its HTTP forms at one read-model position, made once and sent as often as asked (conditional-answer.ts). */
  forms?: unknown;
}

/** A rendered answer whose one field holds the time it was made (an ISO 8601 string), renewed each time it is answered from the answer cache. */
export interface TimedAnswer {
  status: number;
  template: Buffer;
  /** Byte offset of the time's first character in `template`. */
  timeAt: number;
  /** Entity tag of the template, unquoted: with the time it names the renewed bytes without hashing them again. */
  tag: string;
  /** The last renewal: requests within the same millisecond get the same answer (the same bytes) without a copy. */
  last?: { time: number; answer: RenderedAnswer };
}

/** The bytes an answer holds: a timed one its template and its last renewal, a copy of the template. */
export function answerBytes(answer: RenderedAnswer | TimedAnswer): number {
  return 'template' in answer ? 2 * answer.template.length : answer.body.length;
}

/** The strong entity tag of `bytes`, quoted: the one every answer and file of the public port carries. */
export const etagOf = (bytes: Buffer) => `"${createHash('sha1').update(bytes).digest('base64url')}"`;

export function renderAnswer(status: number, body: unknown): RenderedAnswer {
  const bytes = Buffer.from(JSON.stringify(body));
  return { status, body: bytes, etag: etagOf(bytes) };
}

/** The rendered `answer` as a template whose top-level `field` (an ISO time) can be renewed; undefined if absent. */
export function timedTemplate(answer: RenderedAnswer, body: unknown, field: string): TimedAnswer | undefined {
  const time = (body as Record<string, unknown> | null)?.[field];
  if (typeof time !== 'string') return undefined;
  const json = answer.body.toString();
  const at = json.indexOf(`${JSON.stringify(field)}:${JSON.stringify(time)}`);
  if (at < 0) return undefined;
  const timeAt = Buffer.byteLength(json.slice(0, at)) + field.length + 4;
  return { status: answer.status, template: answer.body, timeAt, tag: answer.etag.slice(1, -1) };
}

/**
 * The template with the time of `now`; ISO times all have the same length, so only those bytes change, and the
 * template's tag plus the time tell every renewed answer apart as a strong tag must.
 */
export function renewTime(answer: TimedAnswer, now: Date): RenderedAnswer {
  const time = now.getTime();
  if (answer.last?.time === time) return answer.last.answer;
  const body = Buffer.from(answer.template);
  body.write(isoText(time), answer.timeAt, 'latin1');
  const renewed = { status: answer.status, body, etag: `"${answer.tag}.${time.toString(36)}"` };
  answer.last = { time, answer: renewed };
  return renewed;
}

/** The ISO 8601 text of the last second a time was written in, up to its fraction: renewals within it reuse it. */
let lastSecond = { second: Number.NaN, head: '' };

/**
 * `new Date(time).toISOString()` for the times of this era (four-digit years), its second's part made once a second:
 * V8 formats that string through `vfprintf`, the largest share of a renewal (bench/README.md, "The request log").
 */
export function isoText(time: number): string {
  const second = Math.floor(time / 1_000);
  if (second !== lastSecond.second) lastSecond = { second, head: new Date(second * 1_000).toISOString().slice(0, 20) };
  const millis = time - second * 1_000;
  return `${lastSecond.head}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/**
 * `If-None-Match` as RFC 9110 compares it for GET: weakly (`W/"x"` matches `"x"`), any tag of a list, or `*`.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag || header === '*') return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === etag || tag === '*' || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
