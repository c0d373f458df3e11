/**
 * MCP against HTTP on the same server (issue 24): one `tools/call` of `get_watch` (POST /mcp, a fresh stateless
 * MCP server per request, as served) against `GET /api/public/catalogue/{reference}` for the same watch, in
 * requests per second. The two take turns within every round (in alternating order) and each figure is the median
 * of the rounds. Goal: MCP at 0.7 of the HTTP route or better.
 */
import type { LoadClient } from '../load/load-client.ts';
import type { LoadJob, LoadResult } from '../load/load-protocol.ts';
import { demoReadModel } from '../fixtures/demo-read-model.ts';
import { demoSample } from '../fixtures/demo-store.ts';
import { startOurServer } from '../http/our-server.ts';
import { median, ratio, round } from '../report/stats.ts';
import { table } from '../report/table.ts';
import type { ReadApiSettings } from './read-api.bench.ts';

const VARIANTS = ['http_detail', 'mcp_get_watch'] as const;
type Variant = (typeof VARIANTS)[number];

export const MCP_GOAL = 0.7;

export interface McpFigures {
  settings: ReadApiSettings;
  reference: string;
  rps: Record<Variant, number>;
  p50_ms: Record<Variant, number>;
  /** MCP requests per second over the HTTP route's. */
  ratio: number;
  /** Answers other than 2xx or transport errors over the measured runs: must be 0 for the figures to mean anything. */
  failures: number;
}

export async function benchMcp(settings: ReadApiSettings, load: LoadClient): Promise<McpFigures> {
  const readStore = await demoReadModel();
  const ours = await startOurServer(readStore);
  const { reference } = demoSample();
  const jobs: Record<Variant, Omit<LoadJob, 'connections' | 'seconds'>> = {
    http_detail: { url: `${ours.url}/api/public/catalogue/${reference}`, method: 'GET' },
    mcp_get_watch: {
      url: `${ours.url}/mcp`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_watch', arguments: { reference } } }),
    },
  };
  let failures = 0;
  const measure = async (variant: Variant, seconds: number): Promise<LoadResult> => {
    const result = await load.run({ ...jobs[variant], connections: settings.connections, seconds });
    failures += result.non2xx + result.errors;
    return result;
  };
  try {
    for (const variant of VARIANTS) await measure(variant, settings.warmupSeconds);
    failures = 0;
    const samples: Record<Variant, LoadResult[]> = { http_detail: [], mcp_get_watch: [] };
    for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
      for (let turn = 0; turn < VARIANTS.length; turn += 1) {
        const variant = VARIANTS[(turn + roundIndex) % VARIANTS.length]!;
        samples[variant].push(await measure(variant, settings.roundSeconds));
      }
    }
    const rps = { http_detail: round(median(samples.http_detail.map((r) => r.rps))), mcp_get_watch: round(median(samples.mcp_get_watch.map((r) => r.rps))) };
    const p50 = { http_detail: round(median(samples.http_detail.map((r) => r.p50)), 2), mcp_get_watch: round(median(samples.mcp_get_watch.map((r) => r.p50)), 2) };
    return { settings, reference, rps, p50_ms: p50, ratio: ratio(rps.mcp_get_watch, rps.http_detail), failures };
  } finally {
    await ours.close();
    await readStore.close();
  }
}

export function mcpTable(figures: McpFigures): string {
  const { settings } = figures;
  return table(
    `MCP tools/call get_watch against GET /api/public/catalogue/${figures.reference} (medians of ${settings.rounds} rounds of ${settings.roundSeconds}s, ${settings.connections} connections; failures: ${figures.failures})`,
    ['variant', 'req/s', 'p50 ms'],
    [
      ...VARIANTS.map((variant) => [variant, figures.rps[variant], figures.p50_ms[variant]]),
      [`mcp/http (goal >= ${MCP_GOAL})`, figures.ratio, figures.ratio >= MCP_GOAL ? 'met' : 'NOT met'],
    ],
  );
}
