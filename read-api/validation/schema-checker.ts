/**
 * Turns a typebox (JSON Schema) object into a checker closure, once at start, that validates AND coerces a value
 * the way pydantic v2 does in lax mode: query strings become integers, numbers and booleans; defaults fill absent
 * fields; aliases (`x-aliases`) are read when the canonical name is absent; every failure is reported, none stops
 * the others. It understands the subset of JSON Schema the API's request schemas use, and refuses anything else at
 * compile time rather than silently accepting it.
 */
import { issue, expectedLiterals, type Loc, type ValidationIssue } from './validation-issue.ts';

/** Where a value comes from: query and path values are always strings; a JSON body carries real types. */
export type ValueSource = 'text' | 'json';

/** Pushes issues for a bad value and returns the coerced value (meaningless when it pushed an issue). */
export type Checker = (value: unknown, loc: Loc, issues: ValidationIssue[]) => unknown;

export interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  'x-aliases'?: string[];
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);
const INTEGER_TEXT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;
const NUMBER_TEXT = /^\s*[+-]?(?:\d+(?:_\d+)*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export function compileChecker(schema: JsonSchema, source: ValueSource): Checker {
  if (schema.anyOf) return compileUnion(schema.anyOf, source);
  switch (schema.type) {
    case 'string': return compileString(schema, source);
    case 'integer': return withBounds(schema, compileInteger(source));
    case 'number': return withBounds(schema, compileNumber(source));
    case 'boolean': return compileBoolean(source);
    case 'object':
      if (schema.properties) return compileObject(schema, source, issue.dictType);
      if (schema.patternProperties) return compileRecord(schema, source);
      break;
  }
  throw new Error(`request schema not supported by the checker: ${JSON.stringify(schema)}`);
}

/** A whole request part (query, path or body model): absent fields are `missing`, a non-object is refused. */
export function compileModel(schema: JsonSchema, source: ValueSource): Checker {
  return compileObject(schema, source, issue.modelAttributesType);
}

function compileUnion(branches: JsonSchema[], source: ValueSource): Checker {
  if (branches.every((b) => b.const !== undefined)) {
    const allowed = branches.map((b) => b.const);
    const expected = expectedLiterals(allowed);
    return (value, loc, issues) => {
      if (allowed.includes(value)) return value;
      issues.push(issue.literalError(loc, value, expected));
      return value;
    };
  }
  const others = branches.filter((b) => b.type !== 'null');
  const [only] = others;
  if (others.length === 1 && only && branches.length === 2) {
    const check = compileChecker(only, source);
    return (value, loc, issues) => (value === null ? null : check(value, loc, issues));
  }
  throw new Error(`union not supported by the checker: ${JSON.stringify(branches)}`);
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function compileString(schema: JsonSchema, source: ValueSource): Checker {
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern, 'u');
  const { minLength, maxLength } = schema;
  return (value, loc, issues) => {
    if (source === 'json' && typeof value !== 'string') {
      issues.push(issue.stringType(loc, value));
      return value;
    }
    const text = value as string;
    // Pydantic checks lengths before the pattern and reports only the first failing constraint.
    if (minLength !== undefined && codePoints(text) < minLength) issues.push(issue.stringTooShort(loc, text, minLength));
    else if (maxLength !== undefined && text.length > maxLength && codePoints(text) > maxLength) {
      issues.push(issue.stringTooLong(loc, text, maxLength));
    } else if (pattern && !pattern.test(text)) issues.push(issue.patternMismatch(loc, text, schema.pattern as string));
    return text;
  };
}

function compileInteger(source: ValueSource): Checker {
  return (value, loc, issues) => {
    if (typeof value === 'string') {
      if (INTEGER_TEXT.test(value)) return Number(value.replaceAll('_', ''));
      issues.push(issue.intParsing(loc, value));
      return value;
    }
    if (source === 'json' && typeof value === 'number') {
      if (Number.isInteger(value)) return value;
      issues.push(issue.intFromFloat(loc, value));
      return value;
    }
    issues.push(issue.intType(loc, value));
    return value;
  };
}

function compileNumber(source: ValueSource): Checker {
  return (value, loc, issues) => {
    if (typeof value === 'string') {
      if (NUMBER_TEXT.test(value)) return Number(value.replaceAll('_', ''));
      issues.push(issue.floatParsing(loc, value));
      return value;
    }
    if (source === 'json' && typeof value === 'number') return value;
    issues.push(issue.floatType(loc, value));
    return value;
  };
}

/** Bounds are checked only on a value that parsed, as pydantic does. */
function withBounds(schema: JsonSchema, parse: Checker): Checker {
  const { minimum, maximum } = schema;
  if (minimum === undefined && maximum === undefined) return parse;
  return (value, loc, issues) => {
    const before = issues.length;
    const parsed = parse(value, loc, issues);
    if (issues.length !== before || typeof parsed !== 'number') return parsed;
    if (minimum !== undefined && parsed < minimum) issues.push(issue.greaterThanEqual(loc, value, minimum));
    else if (maximum !== undefined && parsed > maximum) issues.push(issue.lessThanEqual(loc, value, maximum));
    return parsed;
  };
}

function compileBoolean(source: ValueSource): Checker {
  return (value, loc, issues) => {
    if (typeof value === 'boolean' && source === 'json') return value;
    if (typeof value === 'string') {
      const word = value.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      issues.push(issue.boolParsing(loc, value));
      return value;
    }
    if (source === 'json' && (value === 0 || value === 1)) return value === 1;
    issues.push(issue.boolType(loc, value));
    return value;
  };
}

interface FieldPlan {
  name: string;
  aliases: string[];
  required: boolean;
  hasDefault: boolean;
  defaultValue: unknown;
  check: Checker;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compileObject(
  schema: JsonSchema, source: ValueSource, notAnObject: (loc: Loc, input: unknown) => ValidationIssue,
): Checker {
  const required = new Set(schema.required ?? []);
  const fields: FieldPlan[] = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    aliases: property['x-aliases'] ?? [],
    required: required.has(name) && property.default === undefined,
    hasDefault: property.default !== undefined,
    defaultValue: property.default,
    check: compileChecker(property, source),
  }));
  return (value, loc, issues) => {
    if (!isPlainObject(value)) {
      issues.push(notAnObject(loc, value));
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      let name = field.name;
      let raw = value[name];
      // The canonical name wins; an alias is read only when it is absent.
      for (let i = 0; raw === undefined && i < field.aliases.length; i++) {
        name = field.aliases[i] as string;
        raw = value[name];
      }
      if (raw === undefined) {
        if (field.hasDefault) out[field.name] = field.defaultValue;
        // FastAPI reports a missing parameter with input null, a missing body field with the body as input.
        else if (field.required) issues.push(issue.missing([...loc, field.name], source === 'text' ? null : value));
        continue;
      }
      out[field.name] = field.check(raw, [...loc, name], issues);
    }
    return out;
  };
}

function compileRecord(schema: JsonSchema, source: ValueSource): Checker {
  const [valueSchema] = Object.values(schema.patternProperties ?? {});
  if (!valueSchema) throw new Error('record schema without a value schema');
  const check = compileChecker(valueSchema, source);
  return (value, loc, issues) => {
    if (!isPlainObject(value)) {
      issues.push(issue.dictType(loc, value));
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = check(item, [...loc, key], issues);
    return out;
  };
}
