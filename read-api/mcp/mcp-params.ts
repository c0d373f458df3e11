/**
 * Params checked before the transport sees a request. The SDK parses a request with the method's schema before any
 * handler runs, and a failed parse leaves it as a bare ZodError: JSON-RPC -32603 (internal error) whose message is
 * the issues dumped as JSON. JSON-RPC says -32602 (invalid params), and an agent needs to read what is wrong, so
 * the requests this server handles are parsed here first with the SDK's own schemas.
 */
import { isPlainObject, valueAt } from '../../shared/read-model/public-api/validation/request-schema.ts';
import type { McpSdk } from './mcp-sdk.ts';

interface InvalidParams {
  id: string | number;
  message: string;
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
}

/** What is used of an SDK request schema (zod). */
interface RequestSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly object[] } };
}

/** Issues named in one message, at most; the rest are counted. */
const MAX_ISSUES = 5;
/** A path segment (a key the client chose) is cut to this length in the message. */
const MAX_SEGMENT = 50;

const KINDS: Readonly<Record<string, string>> = { record: 'an object', object: 'an object', array: 'an array', int: 'an integer' };

function described(message: unknown, issue: Issue): string {
  const path = issue.path.map((segment) => String(segment).slice(0, MAX_SEGMENT)).join('.') || 'params';
  if (issue.code !== 'invalid_type' || issue.expected === undefined) return `${path}: ${issue.message}`;
  // zod's issues do not carry the value: an absent one is looked up in the message.
  if (valueAt(message, issue.path.map(String)) === undefined) return `${path} is required`;
  return `${path} must be ${KINDS[issue.expected] ?? `a ${issue.expected}`}`;
}

/** What is wrong with a request's params, if it is a request this server handles and its params are not the method's. */
export function invalidParams(sdk: McpSdk, message: unknown): InvalidParams | undefined {
  if (!isPlainObject(message) || message['jsonrpc'] !== '2.0') return undefined;
  const { id, method } = message;
  if (!(typeof id === 'string' || typeof id === 'number') || typeof method !== 'string') return undefined;
  const { types } = sdk;
  // A Map: `method` is the client's text (`__proto__` included).
  const schema = new Map<string, RequestSchema>([
    ['initialize', types.InitializeRequestSchema],
    ['tools/list', types.ListToolsRequestSchema],
    ['tools/call', types.CallToolRequestSchema],
    ['resources/list', types.ListResourcesRequestSchema],
    ['resources/templates/list', types.ListResourceTemplatesRequestSchema],
    ['resources/read', types.ReadResourceRequestSchema],
  ]).get(method);
  const parsed = schema?.safeParse(message);
  if (parsed === undefined || parsed.success) return undefined;
  const issues = parsed.error.issues as Issue[];
  const named = issues.slice(0, MAX_ISSUES).map((issue) => described(message, issue));
  if (issues.length > MAX_ISSUES) named.push(`and ${issues.length - MAX_ISSUES} more`);
  return { id, message: `Invalid params for ${method.slice(0, MAX_SEGMENT)}: ${named.join('; ')}` };
}
