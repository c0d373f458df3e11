/**
 * Turns typebox schemas (plain JSON Schema) into OpenAPI 3.1 schemas: every titled object schema becomes a
 * named component referenced by `$ref`, and a union of string constants becomes an `enum`, so generated clients
 * get named types and real enums instead of anonymous `anyOf`s.
 */
import type { TSchema } from 'typebox';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export class ComponentSchemas {
  readonly schemas: Record<string, Json> = {};

  /** Registers a titled schema as a component of its own, whether or not an operation uses it. */
  register(schema: TSchema): void {
    const plain = JSON.parse(JSON.stringify(schema)) as Json;
    const title = plain['title'];
    if (typeof title !== 'string') throw new Error('only a titled schema can be registered as a component');
    this.hoist(title, plain);
  }

  /** The OpenAPI form of a schema used by an operation: a `$ref` when it is titled, else converted in place. */
  use(schema: TSchema): Json {
    return this.convert(JSON.parse(JSON.stringify(schema)) as Json);
  }

  private convert(node: Json): Json {
    const title = node['title'];
    if (typeof title === 'string' && node['type'] === 'object') {
      // Two different shapes under one title stay inline rather than overwrite each other.
      if (this.hoist(title, node)) return { $ref: `#/components/schemas/${title}` };
    }
    return this.convertInside(node);
  }

  private hoist(title: string, node: Json): boolean {
    const converted = this.convertInside(node);
    const existing = this.schemas[title];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(converted)) return false;
    this.schemas[title] = converted;
    return true;
  }

  private convertInside(node: Json): Json {
    const enumerated = asEnum(node);
    if (enumerated) return enumerated;
    const out: Json = { ...node };
    for (const key of ['properties', 'patternProperties', '$defs'] as const) {
      const map = node[key];
      if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, isObject(v) ? this.convert(v) : v]));
    }
    for (const key of ['items', 'additionalProperties', 'not', 'contains'] as const) {
      const child = node[key];
      if (isObject(child)) out[key] = this.convert(child);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      const list = node[key];
      if (Array.isArray(list)) out[key] = list.map((v: unknown) => (isObject(v) ? this.convert(v) : v));
    }
    return out;
  }
}

/** `anyOf: [{const: 'a'}, {const: 'b'}]` of one type, as `{type, enum: ['a', 'b']}` with the other keywords kept. */
function asEnum(node: Json): Json | undefined {
  const options = node['anyOf'];
  if (!Array.isArray(options) || options.length === 0) return undefined;
  if (!options.every((o: unknown) => isObject(o) && 'const' in o)) return undefined;
  const types = new Set(options.map((o: Json) => o['type'] ?? typeof o['const']));
  if (types.size !== 1) return undefined;
  const { anyOf: _anyOf, ...rest } = node;
  return { type: [...types][0], enum: options.map((o: Json) => o['const']), ...rest };
}
