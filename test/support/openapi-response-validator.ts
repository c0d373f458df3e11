/**
 * Checks HTTP answers against the OpenAPI document the service itself serves: the body of every answer must
 * match the schema its operation declares for that status. Objects are checked closed (no property beyond the
 * declared ones), so an internal field leaking into an answer fails too.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, unknown>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(closeObjects);
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Json;
  if (node['properties'] && node['additionalProperties'] === undefined && !node['patternProperties']) {
    node['additionalProperties'] = false;
  }
  Object.values(node).forEach(closeObjects);
}

export interface ResponseValidator {
  /** Throws, naming the operation and every mismatch, unless `body` matches the declared answer. */
  check(method: string, pathTemplate: string, status: number, body: unknown): void;
}

export function responseValidator(document: Json): ResponseValidator {
  const copy = structuredClone(document) as { components: { schemas: Json }; paths: Record<string, Record<string, Json>> };
  closeObjects(copy.components.schemas);
  closeObjects(copy.paths);
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  ajv.addSchema({ $id: 'openapi', components: copy.components } as Json);
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(method, pathTemplate, status, body) {
      const key = `${method} ${pathTemplate} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        const responses = copy.paths[pathTemplate]?.[method.toLowerCase()]?.['responses'] as Record<string, Json> | undefined;
        const declared = responses?.[String(status)] as { content?: Record<string, { schema: Json }> } | undefined;
        const schema = declared?.content?.['application/json']?.schema;
        if (!schema) throw new Error(`${key}: the OpenAPI document declares no JSON answer for this status`);
        const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Json;
        validate = ajv.compile(rebased);
        compiled.set(key, validate);
      }
      if (!validate(body)) throw new Error(`${key}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    },
  };
}
