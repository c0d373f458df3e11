/**
 * Which MCP calls the answer cache (read-api/mcp/mcp-answer-cache.ts) takes, under which key, and which answers it
 * keeps: only a `tools/call` with a JSON-RPC id (a string or a number) of a cacheable tool; the protocol version is
 * part of the key (an answer given under one version is not given under another); only a successful result that
 * ends with the call's own id is kept, and a JSON-RPC error (no `result`) is passed over without failing the call.
 * Each case here was a survivor of the mutation run (test/README.md, "Mutation score").
 */
import { expect } from 'chai';
import { createMcpAnswerCache, type TransportAnswer } from '../../../read-api/mcp/mcp-answer-cache.ts';
import { mcpTools } from '../../../read-api/mcp/mcp-tools.ts';
import { publicOperationHandlers } from '../../../shared/read-model/public-api/operations/index.ts';
import type { ReadModelClock, ReadStamp } from '../../../shared/read-model/public-api/read-model-clock.ts';

const STAMP: ReadStamp = { key: '1.7', position: 7, behindAt: null };
/** A clock whose every view gives STAMP: the projections never move during these tests. */
const clock = { current: () => STAMP.position, updatedAt: null, view: () => () => STAMP, aheadOf: () => 0 } as Partial<ReadModelClock> as ReadModelClock;
const newCache = () => createMcpAnswerCache(mcpTools(publicOperationHandlers), clock);

const PARAMS = { name: 'get_watch', arguments: { reference: 'AUR-LU-001' } };
const call = (id: unknown, method = 'tools/call') => ({ jsonrpc: '2.0', id, method, params: PARAMS });
/** A result as the SDK writes it: `result` first, the id last. */
const answered = (id: number): TransportAnswer => ({
  status: 200, headers: [], json: true, body: Buffer.from(`{"result":{"content":[{"type":"text","text":"{}"}]},"jsonrpc":"2.0","id":${id}}`),
});

describe('MCP answer cache: the calls it takes and the answers it keeps', () => {
  it('takes no call of another method than tools/call, even with the params of a cacheable tool', () => {
    expect(newCache().call(call(1, 'resources/read'), {})).to.equal(undefined);
  });

  it('takes no call whose id is null, an object or absent (only a string or a number can be put back in)', () => {
    const cache = newCache();
    for (const id of [null, { n: 1 }, undefined]) expect(cache.call(call(id), {}), JSON.stringify(id)).to.equal(undefined);
    expect(cache.call(call('a'), {})).to.not.equal(undefined);
  });

  it('does not give an answer kept under one MCP protocol version to a call under another', () => {
    const cache = newCache();
    cache.call(call(1), { 'mcp-protocol-version': '2025-06-18' })!.keep(answered(1), STAMP);
    expect(cache.call(call(2), { 'mcp-protocol-version': '2025-03-26' })!.cached()).to.equal(undefined);
    expect(cache.call(call(2), {})!.cached()).to.equal(undefined);
    // The same version is given the kept answer, with its own id.
    expect(cache.call(call(2), { 'mcp-protocol-version': '2025-06-18' })!.cached()?.body.toString()).to.equal(answered(2).body.toString());
  });

  it('keeps no answer that does not end with the call\'s own id', () => {
    const cache = newCache();
    cache.call(call(1), {})!.keep(answered(12), STAMP);
    expect(cache.call(call(3), {})!.cached()).to.equal(undefined);
  });

  it('keeps no JSON-RPC error (no result) and does not fail on one', () => {
    const cache = newCache();
    const error: TransportAnswer = {
      status: 200, headers: [], json: true, body: Buffer.from('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}'),
    };
    expect(() => cache.call(call(1), {})!.keep(error, STAMP)).to.not.throw();
    expect(cache.call(call(2), {})!.cached()).to.equal(undefined);
  });
});
