/**
 * Pydantic v2's lax coercion, which ajv's `coerceTypes` does not reproduce: a query or path value is text, and a
 * JSON body may carry `"3"` for an integer. Runs before ajv, driven by the schema's declared types. A value that
 * does not parse yields its `*_parsing` issue and is left out of the result, so ajv does not report it again;
 * every other value passes unchanged and ajv judges it. An integer marked `x-canonical` is not coerced laxly: only
 * its canonical decimal spelling parses. A number that is not finite (JSON's `1e400` parses to Infinity, as does the
 * text `1e400`) is refused here as `finite_number`, as pydantic refuses an infinite float for an int (and a float that
 * does not allow infinity): ajv would call it an integer with a fraction, or no number at all.
 */
import { childSchema, isPlainObject, nonNullSchema, type JsonSchema, type Path } from './request-schema.ts';
import { issue, type ValidationIssue } from './validation-issue.ts';

/** Where a value comes from: query and path values are always strings; a JSON body carries real types. */
export type ValueSource = 'text' | 'json';

/** Marks a value that did not parse; its key is dropped from the coerced object. */
const UNPARSED = Symbol('unparsed');

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);
// Pydantic reads `"10.0"` as 10: a fraction of zeros only is dropped before the integer is read ("10." is no integer).
const INTEGER_TEXT = /^\s*[+-]?\d+(?:_\d+)*(?:\.0+)?\s*$/;
/**
 * Pydantic's bound on an integer's text, in bytes, its sign included (CPython's limit on `int(text)`, and the JSON
 * reader jiter's on a literal, which pydantic tries first): a text that starts as a JSON integer (a `-`, then a
 * digit that is not 0) whose digits run past it is `int_parsing_size`, whatever follows them; any other spelling
 * whose integer, once cleaned (spaces, `+`, leading zeros, underscores and a fraction of zeros dropped), runs past it
 * is `int_parsing`.
 */
const INTEGER_BYTES_MAX = 4_300;
const OVERSIZED_INTEGER_TEXT = new RegExp(`^(?:-[1-9]\\d{${INTEGER_BYTES_MAX - 1}}|[1-9]\\d{${INTEGER_BYTES_MAX}})`);
const CANONICAL_INTEGER_TEXT = /^(?:0|[1-9]\d*)$/;
const NUMBER_TEXT = /^\s*[+-]?(?:\d+(?:_\d+)*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * Returns a copy of `model` with its values coerced; pushes a parsing issue (loc relative to the part, input as
 * sent) for each value that does not parse. Never changes `model` itself.
 */
export function coerceModel(
  model: Record<string, unknown>, schema: JsonSchema, source: ValueSource, issues: ValidationIssue[],
): Record<string, unknown> {
  return coerceObject(model, schema, source, [], issues);
}

function coerceObject(
  object: Record<string, unknown>, schema: JsonSchema, source: ValueSource, path: Path, issues: ValidationIssue[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const child = childSchema(schema, key);
    const coerced = child ? coerceValue(value, child, source, [...path, key], issues) : value;
    // Defined, not assigned: a JSON key `__proto__` must stay an entry, not become the copy's prototype.
    if (coerced !== UNPARSED) Object.defineProperty(out, key, { value: coerced, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function coerceValue(value: unknown, schema: JsonSchema, source: ValueSource, path: Path, issues: ValidationIssue[]): unknown {
  if (value === null) return value;
  const own = nonNullSchema(schema);
  switch (own.type) {
    case 'integer':
      if (typeof value !== 'string') return finite(value, value, path, issues);
      if (OVERSIZED_INTEGER_TEXT.test(value)) return unparsed(issue.intParsingSize(path, value), issues);
      return parseText(value, path, issues, own['x-canonical'] === true ? parseCanonicalInteger : parseInteger, issue.intParsing);
    case 'number':
      if (typeof value !== 'string') return finite(value, value, path, issues);
      return finite(parseText(value, path, issues, parseNumber, issue.floatParsing), value, path, issues);
    case 'boolean':
      if (typeof value === 'string') return parseText(value, path, issues, parseBoolean, issue.boolParsing);
      // Pydantic's lax mode reads the JSON integers 0 and 1 as booleans.
      return source === 'json' && (value === 0 || value === 1) ? value === 1 : value;
    case 'object': return isPlainObject(value) ? coerceObject(value, own, source, path, issues) : value;
    default: return value;
  }
}

/** `value`, unless it is a number that is not finite: then its issue, with `sent` as its input. */
function finite(value: unknown, sent: unknown, path: Path, issues: ValidationIssue[]): unknown {
  if (typeof value !== 'number' || Number.isFinite(value)) return value;
  issues.push(issue.finiteNumber(path, sent));
  return UNPARSED;
}

function unparsed(found: ValidationIssue, issues: ValidationIssue[]): typeof UNPARSED {
  issues.push(found);
  return UNPARSED;
}

function parseText(
  text: string, path: Path, issues: ValidationIssue[],
  parse: (text: string) => unknown, failure: (loc: Path, input: unknown) => ValidationIssue,
): unknown {
  const parsed = parse(text);
  return parsed !== UNPARSED ? parsed : unparsed(failure(path, text), issues);
}

function parseInteger(text: string): number | typeof UNPARSED {
  if (!INTEGER_TEXT.test(text)) return UNPARSED;
  const cleaned = text.trim().replace(/^\+/, '').replace(/\.0+$/, '').replaceAll('_', '').replace(/^(-?)0+(?=\d)/, '$1');
  return cleaned.length > INTEGER_BYTES_MAX ? UNPARSED : boundedInteger(Number(cleaned));
}

/** Digits only, no leading zero: one spelling per number, for values that name one thing (a leaf, a tree size). */
function parseCanonicalInteger(text: string): number | typeof UNPARSED {
  return CANONICAL_INTEGER_TEXT.test(text) ? boundedInteger(Number(text)) : UNPARSED;
}

/**
 * An integer of more digits than a double holds (309 and up) reads as Infinity, which ajv would call no integer; to
 * pydantic it is an integer past every bound, so it becomes the largest double of its sign: an integer too, past
 * every bound a schema sets (`less_than_equal` as pydantic says).
 */
const boundedInteger = (read: number): number => (Number.isFinite(read) ? read : Math.sign(read) * Number.MAX_VALUE);

function parseNumber(text: string): number | typeof UNPARSED {
  return NUMBER_TEXT.test(text) ? Number(text.replaceAll('_', '')) : UNPARSED;
}

function parseBoolean(text: string): boolean | typeof UNPARSED {
  const word = text.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  return FALSE_WORDS.has(word) ? false : UNPARSED;
}
