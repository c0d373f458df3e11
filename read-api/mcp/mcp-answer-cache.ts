/**
 * Repeated MCP tool calls answered as a repeated GET is (cache/answer-cache.ts): a `tools/call` of a tool whose
 * answers the answer policy keeps whole (shared/read-model/public-api/answer-policy.ts), with the same parameters, `Accept` and
 * protocol version as an earlier call, gets the bytes the SDK answered that call with, its JSON-RPC id replaced,
 * while the policy lets that answer be given again (the projections the operation reads stand where they stood in
 * the reading it was read from; fresh, for one that needs them so, with its data's age). The SDK answers every
 * first call and everything else; the policy keeps only a successful result (no `isError`) read while the store was
 * not behind, and this store only one whose answer ends with its id, as the SDK writes it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ResponseCache, type Stamped } from '../cache/response-cache.ts';
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';
import { keptAnswerPolicy, type KeptAnswerPolicy } from '../../shared/read-model/public-api/answer-policy.ts';
import type { ReadModelClock, ReadStamp } from '../../shared/read-model/public-api/read-model-clock.ts';
import type { McpTool } from './mcp-tools.ts';
import { askedMinPosition } from '../../shared/read-model/public-api/validation/request-validator.ts';

/** What the transport answered, as Koa sends it. */
export interface TransportAnswer {
  status: number;
  /** Every header but the content type, which the route sets. */
  headers: [string, string][];
  body: Buffer;
  json: boolean;
}

interface KeptAnswer extends Stamped {
  answer: TransportAnswer;
  /** The body up to its id: the SDK writes `{"result":…,"jsonrpc":"2.0","id":ID}`. */
  beforeId: Buffer;
}

/** A cacheable tool call: its answer from the cache, or a way to keep the one the SDK gives. */
interface CacheableCall {
  cached(): TransportAnswer | undefined;
  /** Keeps `answer`, read from the reading whose stamp is `stamp` (none: it was refused, and is not kept). */
  keep(answer: TransportAnswer, stamp: ReadStamp | undefined): void;
}

export interface McpAnswerCache {
  /** The call `message` is, if its answer may come from the cache; undefined otherwise. */
  call(message: unknown, headers: IncomingHttpHeaders): CacheableCall | undefined;
}

/**
 * `bounds`: most calls kept (default 2000), and most bytes of answers and params (default ANSWER_CACHE_MAX_BYTES's):
 * a kept answer carries the result twice (structured and as text) and its key the params the client wrote.
 */
export function createMcpAnswerCache(
  tools: ReadonlyMap<string, McpTool>, clock: ReadModelClock, bounds: { maxEntries?: number; maxBytes?: number } = {},
): McpAnswerCache {
  // `beforeId` is a view of `answer.body`: the body's bytes are all it holds.
  const cache = new ResponseCache<KeptAnswer>({ bytesOf: (kept) => kept.answer.body.length, ...bounds });
  // A result's text cannot have its time renewed: only answers kept whole.
  const policies = new Map<string, KeptAnswerPolicy>();
  for (const [name, tool] of tools) {
    const policy = keptAnswerPolicy({ clock }, tool.operation);
    if (policy.keeping === 'whole') policies.set(name, policy);
  }
  return {
    call(message, headers) {
      if (!isPlainObject(message) || message['method'] !== 'tools/call' || !isPlainObject(message['params'])) return undefined;
      // A call asking for a minimum position (`X-Min-Position`) is given a kept answer if the policy finds it read at
      // or past it; else, or when the header is not valid, its operation checks it and waits (answer-policy.ts).
      const minPosition = askedMinPosition(headers);
      if (minPosition === null) return undefined;
      const { id, params } = message;
      const policy = policies.get(params['name'] as string);
      if (policy === undefined || !(typeof id === 'string' || typeof id === 'number')) return undefined;
      const idText = JSON.stringify(id);
      const written = writtenParams(params);
      // Too deep to be written again (JSON.parse reads more levels than JSON.stringify writes): not kept, the SDK answers.
      if (written === undefined) return undefined;
      // With every header the transport judges a call by (406 for Accept, 415 for Content-Type, 400 for the version):
      // a call it would refuse is never given another's answer.
      const key = `${written}\n${headers['accept'] ?? ''}\n${headers['content-type'] ?? ''}\n${headers['mcp-protocol-version'] ?? ''}`;
      return {
        cached() {
          const kept = cache.get(key);
          const serving = kept === undefined ? undefined : policy.serving(kept, minPosition);
          if (kept === undefined || serving === undefined) return undefined;
          // As the route says of an answer the SDK gives: where its data stands, and how old it is (a verification's).
          const sent: [string, string][] = [...kept.answer.headers, ['X-Read-Model-Position', String(serving.position)]];
          const aged: [string, string][] = serving.dataAge === undefined ? sent : [...sent, ['X-Data-Age', String(serving.dataAge)]];
          // Bytes joined, not text encoded again: the answer is kilobytes of (often accented) JSON.
          return { ...kept.answer, headers: aged, body: Buffer.concat([kept.beforeId, Buffer.from(`${idText}}`)]) };
        },
        keep(answer, stamp) {
          const text = answer.body.toString();
          if (answer.status !== 200 || !answer.json || !text.endsWith(`"id":${idText}}`)) return;
          const parsed = JSON.parse(text) as { result?: { isError?: boolean } };
          const kept = policy.keep(stamp, parsed.result !== undefined && parsed.result.isError !== true);
          if (kept === undefined) return;
          const beforeId = answer.body.subarray(0, answer.body.length - Buffer.byteLength(idText) - 1);
          cache.set(key, { answer, beforeId, ...kept });
        },
      };
    },
  };
}

function writtenParams(params: unknown): string | undefined {
  try {
    return JSON.stringify(params);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
