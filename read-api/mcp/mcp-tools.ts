/**
 * The seven MCP tools (docs/api.md, "Agents over MCP"), one per public operation, described from the operation's
 * own typebox schemas: `inputSchema` merges its path, query and body parameters (same names, bounds, defaults and
 * descriptions), `outputSchema` is its 200 shape. Nothing is written twice: the OpenAPI document, request
 * validation and these tools all read the same `OperationSpec`.
 */
import type { TSchema } from 'typebox';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import type { PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { compileRequestValidator, type RequestValidator } from '../../shared/read-model/public-api/validation/request-validator.ts';

/** Tool names by operation id, in the contract's words. */
export const TOOL_NAMES: Readonly<Record<string, string>> = {
  getStatus: 'get_status',
  getCatalogue: 'search_catalogue',
  getWatch: 'get_watch',
  getCollections: 'list_collections',
  getConfiguratorOptions: 'get_configurator_options',
  calculatePrice: 'quote_price',
  verifySerial: 'verify_serial',
};

/** The tool whose calls also count against the verification limits. */
export const VERIFY_TOOL = 'verify_serial';

export interface McpTool {
  /** What `tools/list` shows. */
  description: Tool;
  operation: PublicOperation;
  /** The operation's own request validator, compiled once. */
  validate: RequestValidator;
}

type Json = Record<string, unknown>;
interface ObjectSchema {
  properties?: Record<string, Json>;
  required?: string[];
}

/** Plain JSON of a typebox schema (its symbol keys left out). */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

/**
 * The operation's parameters as one object schema. A query parameter with a default is optional to the caller
 * (typebox lists it as required: ajv fills the default before checking); path parameters and required body
 * fields stay required.
 */
function toolInputSchema(spec: OperationSpec): Tool['inputSchema'] {
  const parts = [spec.params?.path, spec.params?.query, spec.body].filter((part): part is TSchema => part !== undefined);
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const part of parts) {
    const object = plain(part) as ObjectSchema;
    const own = new Set(object.required ?? []);
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      properties[name] = property;
      if (own.has(name) && !('default' in property)) required.push(name);
    }
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function toolOf(operation: PublicOperation): McpTool {
  const { spec } = operation;
  const name = TOOL_NAMES[spec.id];
  const answer = spec.responses['200']?.schema;
  if (name === undefined || answer === undefined) throw new Error(`no MCP tool for operation ${spec.id}`);
  return {
    description: {
      name,
      title: spec.summary,
      description: spec.description,
      inputSchema: toolInputSchema(spec),
      outputSchema: plain(answer) as Tool['outputSchema'],
      annotations: { title: spec.summary, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    operation,
    validate: compileRequestValidator(spec),
  };
}

/** The tools of the given operations, by name. */
export function mcpTools(operations: readonly PublicOperation[]): ReadonlyMap<string, McpTool> {
  return new Map(operations.map((operation) => {
    const tool = toolOf(operation);
    return [tool.description.name, tool];
  }));
}
