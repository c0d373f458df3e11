/**
 * The `/mcp` endpoint as the public app mounts it: the seven tools over the public operations, the two resources
 * (llms-full.txt and the OpenAPI document, the very texts the discovery routes serve) and the instructions an
 * agent reads first.
 */
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logging/logger.ts';
import type { PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { baseUrl } from '../../shared/public-base-url.ts';
import { buildLlmsFullTxt } from '../discovery/llms-full-txt.ts';
import { OPENAPI_PATH } from '../discovery/docs-page.ts';
import { buildOpenApiDocument } from '../discovery/openapi.ts';
import { perBase, withBase } from '../discovery/request-origin.ts';
import type { RouterEnv } from '../routes.ts';
import { createMcpAnswerCache } from './mcp-answer-cache.ts';
import { mcpRoutes } from './mcp-route.ts';
import { mcpServerKit, type McpResource } from './mcp-server.ts';
import { mcpTools, VERIFY_TOOL } from './mcp-tools.ts';

interface McpEndpointDeps {
  operations: readonly PublicOperation[];
  env: RouterEnv;
  logger: Logger;
  verifyLimit?: Middleware;
  /** Largest number of tool calls whose answers are kept (default 2000). */
  cacheEntries?: number;
}

export function mcpEndpoint({ operations, env, logger, verifyLimit, cacheEntries }: McpEndpointDeps): Middleware {
  const specs = operations.map((operation) => operation.spec);
  const { config } = env;
  const resources: McpResource[] = [
    {
      path: '/llms-full.txt', name: 'llms-full.txt', title: 'Complete reference', mimeType: 'text/plain',
      description: 'Every operation, parameter, error and limit of the public API, with examples.',
      text: perBase((base) => buildLlmsFullTxt(specs, withBase(config, base))),
    },
    {
      path: OPENAPI_PATH, name: 'openapi-public.json', title: 'OpenAPI 3.1.0 document', mimeType: 'application/json',
      description: 'Machine-readable schemas of every public request and answer.',
      text: once(() => JSON.stringify(buildOpenApiDocument(specs, config))),
    },
  ];
  const instructions = [
    `Read-only tools over the public catalogue of ${env.brand.name}: watches, collections, configurator prices in EUR`,
    'and serial-number verification. Every tool takes `lang` (`en` default, or `fr`); results are the JSON of the',
    `matching HTTP operation. Each tool call or resource read counts against the limit of ${config.RATE_LIMIT_PER_MINUTE} requests per minute per client IP;`,
    `\`${VERIFY_TOOL}\` also against ${config.VERIFY_RATE_LIMIT_PER_MINUTE} verifications per minute. Opening a session, pings and lists do not.`,
    'A refused request gets JSON-RPC error -32029 whose `data.retry_after` says in how many seconds to try again.',
    'No customer data, no credential.',
  ].join(' ');
  const tools = mcpTools(operations);
  const kit = mcpServerKit({ tools, resources, env, logger, instructions });
  const answers = createMcpAnswerCache(tools, env.clock, {
    maxBytes: config.ANSWER_CACHE_MAX_BYTES, ...(cacheEntries ? { maxEntries: cacheEntries } : {}),
  });
  return mcpRoutes({ kit, answers, publicBase: baseUrl(config), ...(verifyLimit ? { verifyLimit } : {}) });
}

function once(build: () => string): () => string {
  let value: string | undefined;
  return () => (value ??= build());
}
