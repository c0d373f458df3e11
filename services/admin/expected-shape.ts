/**
 * What a field of a document takes, said in words from its JSON schema, for the refusals of the admin API and of
 * `watchcat watch create | edit` (issue 44): `an object {en, fr}`, `a list of at least 1 item, each an object
 * {path, alt, role}`, `a JSON number above 0 and at most 100000000 (euros, at most two decimals)`. Only the outline:
 * an object names its properties (an optional one marked `?`), not what each of them takes.
 */
import { expectedLiterals } from '../../shared/read-model/public-api/validation/validation-issue.ts';

/** The keywords the words are made of: those of the typebox schemas of documents (events, watch files). */
export interface ShapeSchema {
  type?: string;
  description?: string;
  anyOf?: ShapeSchema[];
  const?: unknown;
  properties?: Record<string, ShapeSchema>;
  patternProperties?: Record<string, ShapeSchema>;
  propertyNames?: { pattern?: string };
  maxProperties?: number;
  required?: string[];
  items?: ShapeSchema;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export function expectedShape(schema: ShapeSchema): string {
  const said = outline(schema);
  return schema.description === undefined ? said : `${said} (${schema.description})`;
}

function outline(schema: ShapeSchema): string {
  if (schema.anyOf) {
    const branches = schema.anyOf;
    if (branches.every((branch) => 'const' in branch)) return `one of ${expectedLiterals(branches.map((branch) => branch.const))}`;
    return branches.map(expectedShape).join(' or ');
  }
  if ('const' in schema) return expectedLiterals([schema.const]);
  switch (schema.type) {
    case 'object': return schema.properties ? `an object {${propertyList(schema)}}` : record(schema);
    case 'array': return list(schema);
    case 'string': return text(schema);
    case 'number': return withBounds('a JSON number', schema);
    case 'integer': return withBounds('a whole JSON number', schema);
    case 'boolean': return 'true or false';
    case 'null': return 'null';
    default: return 'a JSON value';
  }
}

/** `en, fr`, or `name, origin, workshop?`: the properties in schema order, an optional one marked. */
function propertyList(schema: ShapeSchema): string {
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {}).map((name) => (required.has(name) ? name : `${name}?`)).join(', ');
}

/** A record (specifications): names to values. */
function record(schema: ShapeSchema): string {
  const [value] = Object.values(schema.patternProperties ?? {});
  const bound = schema.maxProperties === undefined ? '' : ` of at most ${schema.maxProperties} entries`;
  const names = schema.propertyNames?.pattern === undefined ? 'a name' : `a name matching ${schema.propertyNames.pattern}`;
  return `an object${bound}, each ${names} to ${value === undefined ? 'a JSON value' : expectedShape(value)}`;
}

function list(schema: ShapeSchema): string {
  const least = schema.minItems ? ` of at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}` : '';
  return `a list${least}${schema.items === undefined ? '' : `, each ${expectedShape(schema.items)}`}`;
}

function text(schema: ShapeSchema): string {
  const nonEmpty = schema.minLength === 1 && schema.pattern === undefined;
  const parts = [nonEmpty ? 'a non-empty text' : 'a text'];
  if (schema.minLength !== undefined && !nonEmpty) parts.push(`of at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) parts.push(`of at most ${schema.maxLength} characters`);
  if (schema.pattern !== undefined) parts.push(`matching ${schema.pattern}`);
  return parts.join(' ');
}

function withBounds(noun: string, schema: ShapeSchema): string {
  const bounds = [
    schema.exclusiveMinimum === undefined ? undefined : `above ${schema.exclusiveMinimum}`,
    schema.minimum === undefined ? undefined : `at least ${schema.minimum}`,
    schema.exclusiveMaximum === undefined ? undefined : `below ${schema.exclusiveMaximum}`,
    schema.maximum === undefined ? undefined : `at most ${schema.maximum}`,
  ].filter((bound) => bound !== undefined);
  return bounds.length === 0 ? noun : `${noun} ${bounds.join(' and ')}`;
}
