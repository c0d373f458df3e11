/**
 * Validates one operation's request (path, query, body: in that order, as FastAPI lists errors) against the
 * schemas of its `OperationSpec`. The checkers are compiled once, when the route is mounted.
 */
import type { OperationSpec } from '../operations/operation.ts';
import { compileModel, type Checker, type JsonSchema } from './schema-checker.ts';
import { RequestValidationError, type ValidationIssue } from './validation-issue.ts';

export interface RawRequest {
  /** As Koa parses it: a repeated parameter is an array. */
  query: Record<string, string | string[] | undefined>;
  path: Record<string, string>;
  /** The decoded JSON body, for operations that take one. */
  body?: unknown;
}

export interface ValidRequest {
  query: Record<string, unknown>;
  path: Record<string, unknown>;
  body: unknown;
}

export type RequestValidator = (request: RawRequest) => ValidRequest;

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** FastAPI takes the last value of a repeated scalar query parameter. */
function lastValues(query: RawRequest['query']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? (value.at(-1) as string) : value;
  }
  return out;
}

export function compileRequestValidator(spec: OperationSpec): RequestValidator {
  const checkPath = optionalChecker(spec.params?.path, 'text');
  const checkQuery = optionalChecker(spec.params?.query, 'text');
  const checkBody = optionalChecker(spec.body, 'json');
  return (request) => {
    const issues: ValidationIssue[] = [];
    const path = checkPath ? (checkPath(request.path, ['path'], issues) as Record<string, unknown>) : EMPTY;
    const query = checkQuery ? (checkQuery(lastValues(request.query), ['query'], issues) as Record<string, unknown>) : EMPTY;
    const body = checkBody ? checkBody(request.body, ['body'], issues) : undefined;
    if (issues.length > 0) throw new RequestValidationError(issues);
    return { path, query, body };
  };
}

function optionalChecker(schema: unknown, source: 'text' | 'json'): Checker | undefined {
  return schema === undefined ? undefined : compileModel(schema as JsonSchema, source);
}
