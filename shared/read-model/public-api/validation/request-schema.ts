/**
 * The subset of JSON Schema that request schemas (typebox objects) may use, and how to walk it. Validation maps
 * every ajv keyword to a pydantic error type, so a keyword it cannot map is refused when the schema is compiled,
 * at start, rather than answered with a made-up error at run time.
 */
export interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  'x-aliases'?: string[];
  /** An integer given as text must be written canonically: decimal digits, no sign, no leading zero, no space. */
  'x-canonical'?: boolean;
  /**
   * Of an object: properties of which exactly one is given, each naming the same thing its own way (a proof's leaf, by
   * `index` or by `position`). Checked once every field is valid, as a pydantic model validator runs after its fields.
   */
  'x-one-of'?: string[];
}

/** A property path inside one request part (query, path or body), with canonical property names. */
export type Path = string[];

const SUPPORTED = new Set([
  'type', 'anyOf', 'const', 'enum', 'properties', 'patternProperties', 'required', 'default', 'x-aliases', 'x-canonical', 'x-one-of',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern',
  'title', 'description', 'examples',
]);

/** Throws when the schema uses a keyword whose failure has no pydantic error type here. */
export function assertSupported(schema: JsonSchema, at = '#'): void {
  for (const keyword of Object.keys(schema)) {
    if (!SUPPORTED.has(keyword)) throw new Error(`request schema keyword not supported: ${keyword} at ${at}`);
  }
  for (const name of schema['x-one-of'] ?? []) {
    if (!Object.hasOwn(schema.properties ?? {}, name)) throw new Error(`x-one-of names no property: ${name} at ${at}`);
  }
  for (const [name, child] of Object.entries(schema.properties ?? {})) assertSupported(child, `${at}/properties/${name}`);
  for (const [key, child] of Object.entries(schema.patternProperties ?? {})) assertSupported(child, `${at}/patternProperties/${key}`);
  if (schema.anyOf && !isLiteralUnion(schema.anyOf) && nonNullSchema(schema) === schema) {
    throw new Error(`request schema union not supported (only constants, or one schema or null) at ${at}`);
  }
  schema.anyOf?.forEach((branch, i) => assertSupported(branch, `${at}/anyOf/${i}`));
}

/** A union of constants, which pydantic reports as one `literal_error`. */
export function isLiteralUnion(branches: readonly JsonSchema[]): boolean {
  return branches.every((branch) => 'const' in branch);
}

/** The schema a non-null value must match: the other branch of a nullable union, or the schema itself. */
export function nonNullSchema(schema: JsonSchema): JsonSchema {
  const others = schema.anyOf?.filter((branch) => branch.type !== 'null');
  return others?.length === 1 && schema.anyOf?.length === 2 ? (others[0] as JsonSchema) : schema;
}

/** The schema of the value under `key` of an object matching `schema` (a model's property or a record's value). */
export function childSchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  const own = nonNullSchema(schema);
  const properties = own.properties ?? {};
  if (Object.hasOwn(properties, key)) return properties[key];
  for (const [pattern, child] of patternsOf(own)) if (pattern.test(key)) return child;
  return undefined;
}

const compiledPatterns = new WeakMap<JsonSchema, [RegExp, JsonSchema][]>();

/** A schema's `patternProperties`, each pattern compiled once: a record's every key is looked up here. */
function patternsOf(schema: JsonSchema): [RegExp, JsonSchema][] {
  let patterns = compiledPatterns.get(schema);
  if (!patterns) {
    patterns = Object.entries(schema.patternProperties ?? {}).map(([pattern, child]) => [new RegExp(pattern, 'u'), child]);
    compiledPatterns.set(schema, patterns);
  }
  return patterns;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path` under `root`, through its objects and its lists (MCP's params have both), or undefined. */
export function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path) {
    value = (isPlainObject(value) || Array.isArray(value)) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}
