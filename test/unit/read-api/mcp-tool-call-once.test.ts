/**
 * An answer read ahead of its stamp (its document holds an event past the checkpoints its reading pinned:
 * answer-policy.ts) is given once and never kept: routes.ts keeps none over HTTP, and a tool call tells the MCP route
 * so (read-api/mcp/tool-call.ts, `Stamped`), which then keeps no copy to be given again at the stamp's position.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import type { ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import { compileRequestValidator } from '../../../shared/read-model/public-api/validation/request-validator.ts';
import type { McpTool } from '../../../read-api/mcp/mcp-tools.ts';
import { callTool } from '../../../read-api/mcp/tool-call.ts';

const watchesAt = (position: number): ProjectionState => ({
  name: 'watches', generation: 1, position, status: 'running', parked: null, updated_at: null,
  confirmed: { head: position, at: '2026-01-01T00:00:00.000Z' },
});

/** A cacheable tool whose answer says its data stands at `dataAt`. */
const toolReading = (dataAt: number): McpTool => {
  const operation: PublicOperation = {
    spec: { id: 'toy', method: 'GET', path: '/toy', summary: 'toy', summaryFr: 'jouet', description: 'toy', tags: [], responses: {} },
    reads: ['watches'],
    cacheable: true,
    handle: async () => ({ ...ok({ read: true }), dataAt }),
  };
  return { description: { name: 'toy', inputSchema: { type: 'object' } }, operation, validate: compileRequestValidator(operation.spec) };
};

describe('an MCP tool call read ahead of its stamp', () => {
  it('tells its route to give it once (never kept), and one read at its stamp to keep it', async () => {
    const clock = await startReadModelClock(async () => ({ view: createMemoryReadStore(), states: [watchesAt(7)] }), { intervalMs: 3_600_000 });
    try {
      const env = { clock } as Partial<ReadingEnv> as ReadingEnv;
      const told: { position?: number; once?: boolean }[] = [];
      for (const dataAt of [9, 7]) {
        const result = await callTool(toolReading(dataAt), {}, env, (_stamp, _age, position, once) => told.push({ position, once }));
        expect(result.isError, `read at ${dataAt}`).not.to.equal(true);
      }
      expect(told).to.deep.equal([{ position: 9, once: true }, { position: 7, once: false }]);
    } finally {
      clock.stop();
    }
  });
});
