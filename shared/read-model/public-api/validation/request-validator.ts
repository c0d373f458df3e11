/**
 * Validates one operation's request (path, query, headers, body: in that order, as FastAPI lists errors) against the
 * schemas of its `OperationSpec`. Each operation's validator is compiled by ajv once per process and shared by
 * everything that validates its requests (its route, its MCP tool, the audit's answers).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { OperationSpec } from '../operations/operation.ts';
import { MIN_POSITION_HEADER, ReadModelHeaders } from '../schemas/common.schema.ts';
import { compilePart, type PartValidator, type RequestPart } from './request-part.ts';
import type { JsonSchema } from './request-schema.ts';
import { IssueCollector } from './issue-bound.ts';
import { RequestValidationError } from './validation-issue.ts';

export interface RawRequest {
  /** As Koa parses it: a repeated parameter is an array. */
  query: Record<string, string | string[] | undefined>;
  /**
   * The query's values are JSON (an MCP tool's arguments), not a query string's: a list is then a value the schema
   * judges (a list given for a string is `string_type`), never a repeated parameter whose last value is taken.
   */
  jsonQuery?: boolean;
  path: Record<string, string>;
  /** The request's headers by lower-case name (only those its operation names are read); none: none sent. */
  header?: Record<string, string | string[] | undefined>;
  /** The decoded JSON body, for operations that take one. */
  body?: unknown;
}

export interface ValidRequest {
  query: Record<string, unknown>;
  path: Record<string, unknown>;
  /** The headers the operation reads (`x-min-position`), parsed. */
  header: Record<string, unknown>;
  body: unknown;
}

export type RequestValidator = (request: RawRequest) => ValidRequest;

const READ_MODEL_HEADER_NAMES = Object.keys(ReadModelHeaders.properties);

/** The headers an operation may read (`X-Min-Position`), from an HTTP request's, for a RawRequest's `header`. */
export function readModelHeaders(headers: IncomingHttpHeaders): RawRequest['header'] {
  const read: RawRequest['header'] = {};
  for (const name of READ_MODEL_HEADER_NAMES) if (headers[name] !== undefined) read[name] = headers[name];
  return read;
}

const checkReadModelHeaders = compilePart(ReadModelHeaders as JsonSchema, 'header');

/** The `X-Min-Position` of `headers` parsed, its issues (if any) added to `issues`; undefined when none is sent. */
function minPositionIn(headers: IncomingHttpHeaders, issues: IssueCollector): number | undefined {
  if (headers[MIN_POSITION_HEADER] === undefined) return undefined;
  return checkReadModelHeaders(readModelHeaders(headers), issues)[MIN_POSITION_HEADER] as number | undefined;
}

/**
 * The `X-Min-Position` an HTTP request asks, parsed as its operation's validation parses it (for the answer caches,
 * which answer before any operation validates): undefined when none is asked, null when the one sent is not valid
 * (its operation refuses the request).
 */
export function askedMinPosition(headers: IncomingHttpHeaders): number | undefined | null {
  const issues = new IssueCollector();
  const asked = minPositionIn(headers, issues);
  return issues.size > 0 ? null : asked;
}

/**
 * The `X-Min-Position` a request to a public route that is no operation asks (it has no other parameter to list
 * beside it): undefined when none is asked; one that is not valid is the contract's 422, as on every operation.
 */
export function checkedMinPosition(headers: IncomingHttpHeaders): number | undefined {
  const issues = new IssueCollector();
  const asked = minPositionIn(headers, issues);
  if (issues.size > 0) throw new RequestValidationError(issues);
  return asked;
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * FastAPI takes the last value of a repeated scalar query parameter (unless the operation refuses repeats, or the
 * query is JSON, where a list was sent as one).
 */
function lastValues(query: RawRequest['query']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? (value.at(-1) as string) : value;
  }
  return out;
}

const compiled = new WeakMap<OperationSpec, RequestValidator>();

export function compileRequestValidator(spec: OperationSpec): RequestValidator {
  let validator = compiled.get(spec);
  if (!validator) compiled.set(spec, (validator = compileNew(spec)));
  return validator;
}

function compileNew(spec: OperationSpec): RequestValidator {
  const checkPath = optionalPart(spec.params?.path, 'path');
  const checkQuery = optionalPart(spec.params?.query, 'query');
  const checkHeader = optionalPart(spec.params?.header, 'header');
  const checkBody = optionalPart(spec.body, 'body');
  return (request) => {
    const issues = new IssueCollector();
    const path = checkPath ? checkPath(request.path, issues) : EMPTY;
    const query = checkQuery ? checkQuery(spec.refusesRepeatedQuery || request.jsonQuery === true ? request.query : lastValues(request.query), issues) : EMPTY;
    const header = checkHeader ? checkHeader(request.header ?? EMPTY, issues) : EMPTY;
    const body = checkBody ? checkBody(request.body, issues) : undefined;
    if (issues.size > 0) throw new RequestValidationError(issues);
    return { path, query, header, body };
  };
}

function optionalPart(schema: unknown, part: RequestPart): PartValidator | undefined {
  return schema === undefined ? undefined : compilePart(schema as JsonSchema, part);
}
