/**
 * Maps ajv's errors to pydantic v2's error types, messages and `ctx`. Locs are relative to the request part and
 * use canonical names; `input` is the value as sent (before coercion and defaults). Ajv's noise around unions is
 * folded: a union of constants gives one `literal_error`, and a nullable union reports only its non-null branch.
 */
import type { ErrorObject } from 'ajv';
import { isLiteralUnion, valueAt, type JsonSchema, type Path } from './request-schema.ts';
import { expectedLiterals, issue, type ValidationIssue } from './validation-issue.ts';
import type { ValueSource } from './lax-coercion.ts';

interface AjvIssueContext {
  source: ValueSource;
  /** The part as sent, after alias resolution: what `input` is read from. */
  sent: Record<string, unknown>;
  /** The raw part itself, the input of a `missing` top-level body field (FastAPI shows the whole body). */
  raw: unknown;
}

function pathOf(pointer: string): Path {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function issuesFromAjv(errors: readonly ErrorObject[], context: AjvIssueContext): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const found = toIssue(error, pathOf(error.instancePath), context);
    if (found) issues.push(found);
  }
  return issues;
}

function toIssue(error: ErrorObject, path: Path, context: AjvIssueContext): ValidationIssue | undefined {
  const input = valueAt(context.sent, path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': return missing([...path, params['missingProperty'] as string], path, context);
    // A typed constant (typebox's `Type.Literal` writes `type` beside `const`) fails its type too: its `literal_error`
    // (the union's, for a union of them) says it, as pydantic reports any input a Literal does not hold.
    case 'type': return isTypedConstant(error) ? undefined : typeIssue(params['type'] as string, path, input);
    case 'maximum': return issue.lessThanEqual(path, input, params['limit'] as number);
    case 'minimum': return issue.greaterThanEqual(path, input, params['limit'] as number);
    case 'exclusiveMaximum': return issue.lessThan(path, input, params['limit'] as number);
    case 'exclusiveMinimum': return issue.greaterThan(path, input, params['limit'] as number);
    case 'maxLength': return issue.stringTooLong(path, input, params['limit'] as number);
    case 'minLength': return issue.stringTooShort(path, input, params['limit'] as number);
    // A key refused by `propertyNames`: pydantic says it at the key, marked `[key]`, with the key as input.
    case 'pattern': return error.propertyName === undefined
      ? issue.patternMismatch(path, input, params['pattern'] as string)
      : issue.patternMismatch([...path, error.propertyName, '[key]'], error.propertyName, params['pattern'] as string);
    // Its key's own error above says it.
    case 'propertyNames': return undefined;
    case 'maxProperties': return issue.dictTooLong(path, input as object, params['limit'] as number);
    case 'enum': return issue.literalError(path, input, expectedLiterals(params['allowedValues'] as unknown[]));
    // A constant inside a union is reported once, by the union's own error below.
    case 'const': return error.schemaPath.includes('/anyOf/') ? undefined : issue.literalError(path, input, expectedLiterals([params['allowedValue']]));
    case 'anyOf': return literalUnion(error.schema as JsonSchema[], path, input);
    // Only the admin API's documents (watches) have these: the public requests' schemas never do (request-schema.ts).
    case 'additionalProperties': {
      const extra = [...path, params['additionalProperty'] as string];
      return issue.extraForbidden(extra, valueAt(context.sent, extra));
    }
    case 'minItems': return issue.tooShort(path, input as unknown[], params['limit'] as number);
    default: throw new Error(`ajv error without a pydantic equivalent: ${error.keyword} at ${error.schemaPath}`);
  }
}

function isTypedConstant(error: ErrorObject): boolean {
  return typeof error.parentSchema === 'object' && error.parentSchema !== null && 'const' in error.parentSchema;
}

function missing(path: Path, parent: Path, context: AjvIssueContext): ValidationIssue {
  // FastAPI reports a missing parameter with input null, a missing body field with the object it is missing from.
  if (context.source === 'text') return issue.missing(path, null);
  return issue.missing(path, parent.length === 0 ? context.raw : valueAt(context.sent, parent));
}

function typeIssue(type: string, path: Path, input: unknown): ValidationIssue | undefined {
  switch (type) {
    case 'string': return issue.stringType(path, input);
    case 'integer': return typeof input === 'number' ? issue.intFromFloat(path, input) : issue.intType(path, input);
    case 'number': return issue.floatType(path, input);
    case 'boolean': return issue.boolType(path, input);
    case 'object': return issue.dictType(path, input);
    case 'array': return issue.listType(path, input);
    // The null branch of a nullable union: the other branch's error says what is wrong.
    case 'null': return undefined;
    default: throw new Error(`ajv type error without a pydantic equivalent: ${type}`);
  }
}

/** A union of constants is one `literal_error`; any other union is reported by its branches' own errors. */
function literalUnion(branches: JsonSchema[], path: Path, input: unknown): ValidationIssue | undefined {
  if (!isLiteralUnion(branches)) return undefined;
  return issue.literalError(path, input, expectedLiterals(branches.map((branch) => branch.const)));
}
