/**
 * Validation errors in the exact shape FastAPI answers with pydantic v2: `{type, loc, msg, input, ctx?}`. Every
 * message is built here so the wording lives in one place.
 */
import { cappedInput } from './capped-input.ts';
import { boundedIssues, IssueCollector } from './issue-bound.ts';
import type { Loc, ValidationIssue } from './issue-shape.ts';

export type { Loc, ValidationIssue } from './issue-shape.ts';

/**
 * Thrown by request validation and by operations (price checks); answered as 422 `{detail: issues}`. `issues` is
 * bounded here, whoever found them: at most the listed number, then the count of the rest (issue-bound.ts), each
 * echoing a bounded input (capped-input.ts).
 */
export class RequestValidationError extends Error {
  readonly status = 422;
  readonly issues: ValidationIssue[];
  constructor(found: readonly ValidationIssue[] | IssueCollector) {
    super('request validation failed');
    this.name = 'RequestValidationError';
    const listed = found instanceof IssueCollector ? found.detail() : boundedIssues(found);
    this.issues = listed.map((one) => ({ ...one, input: cappedInput(one.input) }));
  }
}

/** Pydantic's rendering of an `expected` list: `'a', 'b' or 'c'`. */
export function expectedLiterals(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

export const issue = {
  missing: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'missing', loc, msg: 'Field required', input }),
  extraForbidden: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'extra_forbidden', loc, msg: 'Extra inputs are not permitted', input }),
  intParsing: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input,
  }),
  intParsingSize: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'int_parsing_size', loc, msg: 'Unable to parse input string as an integer, exceeded maximum size', input,
  }),
  intType: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'int_type', loc, msg: 'Input should be a valid integer', input }),
  intFromFloat: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'int_from_float', loc, msg: 'Input should be a valid integer, got a number with a fractional part', input,
  }),
  floatParsing: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'float_parsing', loc, msg: 'Input should be a valid number, unable to parse string as a number', input,
  }),
  floatType: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'float_type', loc, msg: 'Input should be a valid number', input }),
  finiteNumber: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'finite_number', loc, msg: 'Input should be a finite number', input }),
  boolParsing: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'bool_parsing', loc, msg: 'Input should be a valid boolean, unable to interpret input', input,
  }),
  boolType: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'bool_type', loc, msg: 'Input should be a valid boolean', input }),
  stringType: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'string_type', loc, msg: 'Input should be a valid string', input }),
  listType: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'list_type', loc, msg: 'Input should be a valid list', input }),
  dictType: (loc: Loc, input: unknown): ValidationIssue => ({ type: 'dict_type', loc, msg: 'Input should be a valid dictionary', input }),
  modelAttributesType: (loc: Loc, input: unknown): ValidationIssue => ({
    type: 'model_attributes_type', loc, msg: 'Input should be a valid dictionary or object to extract fields from', input,
  }),
  lessThanEqual: (loc: Loc, input: unknown, le: number): ValidationIssue => ({
    type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${le}`, input, ctx: { le },
  }),
  greaterThanEqual: (loc: Loc, input: unknown, ge: number): ValidationIssue => ({
    type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${ge}`, input, ctx: { ge },
  }),
  lessThan: (loc: Loc, input: unknown, lt: number): ValidationIssue => ({
    type: 'less_than', loc, msg: `Input should be less than ${lt}`, input, ctx: { lt },
  }),
  greaterThan: (loc: Loc, input: unknown, gt: number): ValidationIssue => ({
    type: 'greater_than', loc, msg: `Input should be greater than ${gt}`, input, ctx: { gt },
  }),
  literalError: (loc: Loc, input: unknown, expected: string): ValidationIssue => ({
    type: 'literal_error', loc, msg: `Input should be ${expected}`, input, ctx: { expected },
  }),
  tooShort: (loc: Loc, input: unknown[], min: number): ValidationIssue => ({
    type: 'too_short', loc, msg: `List should have at least ${min} item${min === 1 ? '' : 's'} after validation, not ${input.length}`, input,
    ctx: { field_type: 'List', min_length: min, actual_length: input.length },
  }),
  dictTooLong: (loc: Loc, input: object, max: number): ValidationIssue => {
    const actual = Object.keys(input).length;
    return {
      type: 'too_long', loc, msg: `Dictionary should have at most ${max} item${max === 1 ? '' : 's'} after validation, not ${actual}`, input,
      ctx: { field_type: 'Dictionary', max_length: max, actual_length: actual },
    };
  },
  stringTooShort: (loc: Loc, input: unknown, min: number): ValidationIssue => ({
    type: 'string_too_short', loc, msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`, input,
    ctx: { min_length: min },
  }),
  stringTooLong: (loc: Loc, input: unknown, max: number): ValidationIssue => ({
    type: 'string_too_long', loc, msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`, input,
    ctx: { max_length: max },
  }),
  patternMismatch: (loc: Loc, input: unknown, pattern: string): ValidationIssue => ({
    type: 'string_pattern_mismatch', loc, msg: `String should match pattern '${pattern}'`, input, ctx: { pattern },
  }),
  jsonInvalid: (offset: number, error: string): ValidationIssue => ({
    type: 'json_invalid', loc: ['body', offset], msg: 'JSON decode error', input: {}, ctx: { error },
  }),
  valueError: (loc: Loc, input: unknown, error: string): ValidationIssue => ({
    type: 'value_error', loc, msg: `Value error, ${error}`, input, ctx: { error },
  }),
};
