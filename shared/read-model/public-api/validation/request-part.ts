/**
 * Validates one part of a request (path, query or body) against its object schema, compiled once by ajv:
 * aliases are resolved first (the canonical name wins), then pydantic's lax coercion, then ajv fills defaults and
 * reports every failure, mapped to pydantic's errors and listed in schema order, one per field as pydantic does
 * (up to the bound of issue-bound.ts; the rest counted). A part is at most 16 KiB, so ajv's full list of errors is
 * bounded too.
 */
import { Ajv } from 'ajv';
import { OWN_SCHEMAS } from '../../../schema/own-schemas.ts';
import { issuesFromAjv } from './ajv-issues.ts';
import { coerceModel, type ValueSource } from './lax-coercion.ts';
import type { IssueCollector } from './issue-bound.ts';
import { firstIssues } from './issue-order.ts';
import { assertSupported, isPlainObject, type JsonSchema } from './request-schema.ts';
import { issue, type ValidationIssue } from './validation-issue.ts';

export type RequestPart = 'path' | 'query' | 'header' | 'body';

/** Adds the part's issues (locs starting with the part's name) and returns its coerced value with defaults. */
export type PartValidator = (raw: unknown, issues: IssueCollector) => Record<string, unknown>;

// `verbose` puts each failing schema on its error: a union's branches name the literals it expects.
const ajv = new Ajv({ ...OWN_SCHEMAS, allErrors: true, useDefaults: true, verbose: true, strict: true });
ajv.addKeyword({ keyword: 'x-aliases', metaSchema: { type: 'array', items: { type: 'string' } } });
ajv.addKeyword({ keyword: 'x-canonical', metaSchema: { type: 'boolean' } });
ajv.addKeyword({ keyword: 'x-one-of', metaSchema: { type: 'array', items: { type: 'string' } } });

interface Field {
  name: string;
  /** The canonical name first, then the aliases in the order they are tried. */
  spellings: string[];
}

export function compilePart(schema: JsonSchema, part: RequestPart): PartValidator {
  assertSupported(schema);
  const validate = ajv.compile<Record<string, unknown>>(schema);
  const source: ValueSource = part === 'body' ? 'json' : 'text';
  const oneOf = schema['x-one-of'];
  const fields: Field[] = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name, spellings: [name, ...(property['x-aliases'] ?? [])],
  }));
  return (raw, issues) => {
    if (!isPlainObject(raw)) {
      issues.add(issue.modelAttributesType([part], raw));
      return {};
    }
    const sent: Record<string, unknown> = {};
    const spelling = new Map<string, string>();
    for (const { name, spellings } of fields) {
      const used = spellings.find((candidate) => raw[candidate] !== undefined);
      if (used === undefined) continue;
      sent[name] = raw[used];
      spelling.set(name, used);
    }
    const found: ValidationIssue[] = [];
    const value = coerceModel(sent, schema, source, found);
    // A value that did not parse is absent for ajv, which may call it missing: the parsing issue, listed first,
    // is the one kept for that field.
    if (!validate(value)) found.push(...issuesFromAjv(validate.errors ?? [], { source, sent, raw }));
    // Once every field is valid, as a pydantic model validator runs after its fields.
    if (oneOf !== undefined && found.length === 0) found.push(...oneOfIssues(oneOf, value, sent, source === 'text' ? null : raw));
    // A valid part (every request but a 422) has no issues to order.
    if (found.length > 0) {
      const { first, rest: notListed } = firstIssues(found, schema, sent, issues.room);
      for (const one of first) {
        const [head, ...rest] = one.loc as string[];
        issues.add({ ...one, loc: head === undefined ? [part] : [part, spelling.get(head) ?? head, ...rest] });
      }
      issues.leaveOut(notListed, part);
    }
    // Schema order, whatever was sent or defaulted, so equal requests give equal values (and cache keys).
    const ordered: Record<string, unknown> = {};
    for (const { name } of fields) if (Object.hasOwn(value, name)) ordered[name] = value[name];
    return ordered;
  };
}

/**
 * `x-one-of` (request-schema.ts): none given is the first one `missing` (`missingInput`: what FastAPI shows for a
 * missing field of the part); two given, a `value_error` at the second naming both.
 */
function oneOfIssues(names: readonly string[], value: Record<string, unknown>, sent: Record<string, unknown>, missingInput: unknown): ValidationIssue[] {
  const given = names.filter((name) => value[name] !== undefined);
  const [first, second] = given;
  if (first === undefined) return [issue.missing([names[0]!], missingInput)];
  if (second === undefined) return [];
  return [issue.valueError([second], sent[second], `\`${first}\` and \`${second}\` cannot both be given: give one of them`)];
}
