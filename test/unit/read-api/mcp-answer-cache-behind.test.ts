/**
 * docs/api.md, "Honest answers": an answer read while the store stood behind what this process had served is
 * served as it is but never cached. The MCP answer cache (read-api/mcp/mcp-answer-cache.ts) must keep that rule as
 * the HTTP answer cache does: a `get_watch` call answered under a stamp that is behind is asked of the SDK again.
 * And "Read your writes": a call asking `X-Min-Position: P` is given a kept answer only when it was read at or past P.
 */
import { expect } from 'chai';
import { createMcpAnswerCache, type TransportAnswer } from '../../../read-api/mcp/mcp-answer-cache.ts';
import { mcpTools } from '../../../read-api/mcp/mcp-tools.ts';
import { publicOperationHandlers } from '../../../shared/read-model/public-api/operations/index.ts';
import type { ReadModelClock, ReadStamp } from '../../../shared/read-model/public-api/read-model-clock.ts';

/** A clock whose every view gives `stamp`: the projections never move during the test, none is parked, and no answer was read ahead of it (nothing else is asked of it). */
const clockAt = (stamp: ReadStamp): ReadModelClock => ({ current: () => stamp.position, updatedAt: null, view: () => () => stamp, aheadOf: () => 0, parkedAmong: () => false } as Partial<ReadModelClock> as ReadModelClock);

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_watch', arguments: { reference: 'AUR-LU-001' } } });
const answered = (id: number): TransportAnswer => ({
  status: 200, headers: [], json: true, body: Buffer.from(`{"result":{"content":[{"type":"text","text":"{}"}]},"jsonrpc":"2.0","id":${id}}`),
});

describe('MCP answer cache and a store behind what was served', () => {
  const tools = () => mcpTools(publicOperationHandlers);

  it('keeps an answer read while the store stands where it was served, and gives it to the next call with its id', () => {
    const stamp = { key: '1.7', position: 7, behindAt: null };
    const cache = createMcpAnswerCache(tools(), clockAt(stamp));
    cache.call(call(1), {})!.keep(answered(1), stamp);
    expect(cache.call(call(2), {})!.cached()?.body.toString()).to.equal(answered(2).body.toString());
  });

  it('keeps no answer read while the store was behind: the next call is asked of the SDK again', () => {
    const stamp = { key: '1.7', position: 7, behindAt: 5 };
    const cache = createMcpAnswerCache(tools(), clockAt(stamp));
    // The answer's own reading found the store behind: its stamp says so.
    cache.call(call(1), {})!.keep(answered(1), stamp);
    expect(cache.call(call(2), {})!.cached()).to.equal(undefined);
  });

  it('keeps no answer that was refused (no stamp: it read nothing)', () => {
    const cache = createMcpAnswerCache(tools(), clockAt({ key: '1.7', position: 7, behindAt: null }));
    cache.call(call(1), {})!.keep(answered(1), undefined);
    expect(cache.call(call(2), {})!.cached()).to.equal(undefined);
  });
});

describe('MCP answer cache and X-Min-Position (issue 44)', () => {
  const stamp = { key: '1.7', position: 7, behindAt: null };
  const keptAt7 = () => {
    const cache = createMcpAnswerCache(mcpTools(publicOperationHandlers), clockAt(stamp));
    cache.call(call(1), {})!.keep(answered(1), stamp);
    return cache;
  };

  it('gives a kept answer to a call asking for a position at or below the one it was read at, with the call\'s id', () => {
    const cache = keptAt7();
    for (const asked of ['7', '3', '0']) {
      expect(cache.call(call(2), { 'x-min-position': asked })?.cached()?.body.toString(), `asking ${asked}`).to.equal(answered(2).body.toString());
    }
  });

  it('never gives a kept answer to a call asking for a position past the one it was read at: the SDK answers it', () => {
    const cache = keptAt7();
    for (const asked of ['8', '9007199254740991']) expect(cache.call(call(2), { 'x-min-position': asked })?.cached(), `asking ${asked}`).to.equal(undefined);
  });

  it('leaves a call whose X-Min-Position its tool refuses to the SDK, kept answer or not', () => {
    const cache = keptAt7();
    for (const invalid of ['07', 'seven', '-1', '1.5']) expect(cache.call(call(2), { 'x-min-position': invalid }), invalid).to.equal(undefined);
  });
});
