/** Plain-language descriptions of an operation's parameters, read from its schemas, for the text discovery files. */
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { ComponentSchemas } from './schema-components.ts';

interface ParameterDoc {
  name: string;
  location: 'path' | 'query';
  required: boolean;
  /** e.g. `integer 1..100, default 50` or `one of name, price_asc; default name`. */
  summary: string;
  description: string;
  aliases: string[];
}

/** Example values for path parameters, taken from the demo catalogue (illustrative). */
/**
 * Examples from the demo catalogue (services/demo), so that the ones shown in llms-full.txt and the OpenAPI document
 * (which "Try it out" in /docs sends as they are) get a 200 from a service started with the defaults.
 */
export const PATH_EXAMPLES: Record<string, string> = {
  reference: 'AUR-SP-001', collection: 'tempo', serial: 'AUR-2021-000042',
  // The log's first tile, full once 256 events are in it (the demo catalogue holds thousands).
  level: '0', index: '000',
};

/** Query strings of the examples by operation id, where `lang=en` alone would not be a valid request. */
export const QUERY_EXAMPLES: Readonly<Record<string, string>> = {
  getInclusionProof: 'position=1', getConsistencyProof: 'from=1&to=2',
};

/** Request bodies by operation id: a price request for a customizable demo watch, with options and an accessory. */
export const BODY_EXAMPLES: Readonly<Record<string, unknown>> = {
  calculatePrice: {
    collection: 'tempo', model_ref: 'AUR-CH-001', options: { dial: 'midnight-blue', tachymeter: 'tachymeter' }, accessories: { 'extra-strap': 1 },
  },
};

export function parameterDocs(operation: OperationSpec): ParameterDoc[] {
  const docs: ParameterDoc[] = [];
  for (const location of ['path', 'query'] as const) {
    const schema = operation.params?.[location];
    if (!schema) continue;
    const object = new ComponentSchemas().use(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      docs.push({
        name, location,
        required: location === 'path' || ((object.required ?? []).includes(name) && !('default' in property)),
        summary: typeSummary(property),
        description: typeof property['description'] === 'string' ? property['description'] : '',
        aliases: Array.isArray(property['x-aliases']) ? (property['x-aliases'] as string[]) : [],
      });
    }
  }
  return docs;
}

function typeSummary(schema: Record<string, unknown>): string {
  const parts: string[] = [];
  if (Array.isArray(schema['enum'])) parts.push(`one of ${schema['enum'].join(', ')}`);
  else parts.push(String(schema['type'] ?? 'any'));
  const min = schema['minimum'];
  const max = schema['maximum'];
  if (min !== undefined && max !== undefined) parts.push(`${String(min)}..${String(max)}`);
  else if (min !== undefined) parts.push(`>= ${String(min)}`);
  else if (max !== undefined) parts.push(`<= ${String(max)}`);
  if (schema['minLength'] !== undefined || schema['maxLength'] !== undefined) {
    parts.push(`${String(schema['minLength'] ?? 0)} to ${String(schema['maxLength'] ?? 'any')} characters`);
  }
  if (typeof schema['pattern'] === 'string') parts.push(`pattern ${schema['pattern']}`);
  const text = parts.join(', ');
  return 'default' in schema ? `${text}; default ${JSON.stringify(schema['default'])}` : text;
}

/** The operation's path with example values, e.g. `/api/public/verify/AUR-2021-000042`. */
export function examplePath(operation: OperationSpec): string {
  return operation.path.replace(/:(\w+)/g, (_, name: string) => PATH_EXAMPLES[name] ?? `{${name}}`);
}
