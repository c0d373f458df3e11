/**
 * The MCP SDK's server modules, loaded on the first MCP request that needs them and kept: they take about a quarter
 * of a second to load (zod included), which every start of the service would otherwise pay before its first answer
 * (issue 22, item 5), agents or not.
 */
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

/** The SDK's modules, loaded anew (mcpSdk keeps one load for every request). */
export async function loadMcpSdk() {
  const [server, transport, types, validation] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]);
  return {
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    types,
    /** One validator (with its ajv instance) for every per-request server: nothing compiled per request. */
    validator: new validation.AjvJsonSchemaValidator() as AjvJsonSchemaValidator,
  };
}

export type McpSdk = Awaited<ReturnType<typeof loadMcpSdk>>;

/**
 * `load` run by the first call and its promise given to every later one; a load that fails (a missing file, say) is
 * tried again by the next call instead of being kept, so one failure does not refuse every MCP request to come.
 */
export function keptOnceLoaded<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (loading === undefined) {
      const started = load();
      // Still the one kept when it fails: a load is replaced only once forgotten, and only this forgets it.
      started.catch(() => { loading = undefined; });
      loading = started;
    }
    return loading;
  };
}

export const mcpSdk: () => Promise<McpSdk> = keptOnceLoaded(loadMcpSdk);
