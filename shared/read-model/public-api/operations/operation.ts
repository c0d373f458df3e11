/**
 * What every public operation module exports: its route, its schemas and its handler. The router mounts these,
 * ajv compiles the schemas once to validate requests, and the OpenAPI document is built from the very same
 * objects, so documentation and behaviour cannot drift apart.
 */
import type { TSchema } from 'typebox';
import type { ParameterizedContext } from 'koa';

export interface OperationSpec {
  /** OpenAPI operationId, e.g. `getCatalogue`. */
  id: string;
  method: 'GET' | 'POST';
  /** Koa-router path, e.g. `/api/public/catalogue/:reference`. */
  path: string;
  /** One line: English, as the OpenAPI document, llms.txt and the MCP tools say it. */
  summary: string;
  description: string;
  tags: string[];
  /** Object schemas for each parameter location; every property is one parameter. */
  params?: { query?: TSchema; path?: TSchema; header?: TSchema };
  body?: TSchema;
  /**
   * Response schemas by status code (`'200'`, `'404'`, `'422'`, `'429'`, ...) with a description each, and the headers
   * an answer of that status carries beyond those of every answer (OpenAPI header objects, by name). The OpenAPI
   * document states these, and a 429 whether declared or not.
   */
  responses: Record<string, {
    description: string;
    schema?: TSchema;
    /** The answer's media type when it is not JSON (a checkpoint's text, a tile's bytes). */
    mediaType?: string;
    headers?: Record<string, { description: string; schema: TSchema }>;
  }>;
  /** `Cache-Control` of a 200, when it has one. */
  cacheControl?: string;
  /** Counts against the verification limit as well as the general one. */
  verifyLimited?: boolean;
  /**
   * A query parameter given more than once is refused (422: a list is not a valid value) instead of its last value
   * being taken, as FastAPI does: for operations whose parameters name one thing each (a proof's tree sizes).
   */
  refusesRepeatedQuery?: boolean;
}

/** The spec of one of the seven operations, which the status operation lists in the language asked. */
export interface PublicOperationSpec extends OperationSpec {
  /** `summary` in French: status's `endpoints` with `lang=fr` (text fields come in the language asked). */
  summaryFr: string;
}

export type { ParameterizedContext };
