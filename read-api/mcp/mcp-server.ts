/**
 * The MCP server of one request: the SDK's low-level `Server` answering `tools/list`, `tools/call`,
 * `resources/list`, `resources/templates/list` (none: both resources have fixed URIs) and `resources/read`.
 * Stateless: a fresh server per HTTP request (the SDK's stateless transport serves one request), built from parts
 * made once (the tools, the resource bodies, the schema validator).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../shared/logging/logger.ts';
import type { ReadingEnv } from '../../shared/read-model/public-api/answer-policy.ts';
import type { RawRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import type { McpTool } from './mcp-tools.ts';
import type { McpSdk } from './mcp-sdk.ts';
import { callTool, type Stamped } from './tool-call.ts';

/** A document served as an MCP resource, under the path it has on the public port. */
export interface McpResource {
  path: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** The text, its links under `base` (see mcp-route.ts). */
  text(base: string): string;
}

interface McpServerParts {
  tools: ReadonlyMap<string, McpTool>;
  resources: readonly McpResource[];
  env: ReadingEnv;
  logger: Logger;
  instructions: string;
}

/** Answers the same every time: built once, handed to every per-request server. */
export interface McpServerKit extends McpServerParts {
  toolList: Tool[];
}

/** The JSON-RPC error code MCP gives `resources/read` for an unknown URI ("Resource not found"). */
const RESOURCE_NOT_FOUND = -32002;

export function mcpServerKit(parts: McpServerParts): McpServerKit {
  return { ...parts, toolList: [...parts.tools.values()].map((tool) => tool.description) };
}

/**
 * The path of an http(s) URI, whatever its host: a listed URI names the host the client reached (or the public base
 * URL), and the same client may read it under another spelling (`LOCALHOST`, `127.0.0.1`) or through a proxy.
 */
function httpPath(uri: string): string | undefined {
  // A root-relative URI (listed when the request named no usable host) reads as well.
  const url = URL.parse(uri, 'http://localhost');
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? url.pathname : undefined;
}

/**
 * A server for one request; `base` is where resource URIs point (the public base URL, else this request's origin);
 * `stamped` is told the stamp of the reading a tool call's answer was read from (and its data's age, see tool-call.ts);
 * `header` holds the HTTP request's headers that the operations read (`X-Min-Position`).
 */
export function createMcpServer(
  sdk: McpSdk, kit: McpServerKit, base: string, stamped?: Stamped, header?: RawRequest['header'],
): Server {
  const {
    Server, validator,
    types: { CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema },
  } = sdk;
  const server = new Server(
    { name: 'watchcat', title: kit.env.brand.name, version: '1.0.0' },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: kit.instructions, jsonSchemaValidator: validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: kit.toolList }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = kit.tools.get(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name.slice(0, 100)}`);
    try {
      return await callTool(tool, request.params.arguments, kit.env, stamped, header);
    } catch (error) {
      // A failure inside (the read store, say) is logged; its text, which may name hosts, stays here.
      kit.logger.error({ err: error, tool: tool.description.name }, 'MCP tool call failed');
      throw new McpError(ErrorCode.InternalError, 'Internal error');
    }
  });
  const uriOf = (resource: McpResource) => `${base}${resource.path}`;
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: kit.resources.map((resource): Resource => ({
      uri: uriOf(resource), name: resource.name, title: resource.title, description: resource.description, mimeType: resource.mimeType,
    })),
  }));
  // A client that lists resources asks for templates too (the Go SDK, the Inspector): an empty list, not -32601.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const path = httpPath(request.params.uri);
    const resource = kit.resources.find((candidate) => candidate.path === path);
    if (resource === undefined) throw new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri: request.params.uri.slice(0, 200) });
    return { contents: [{ uri: uriOf(resource), mimeType: resource.mimeType, text: resource.text(base) }] };
  });
  return server;
}
