/**
 * The issues of a document body (a watch, or a catalogue file of up to 16 MiB), found with work bounded by the
 * body's size and by the bound on issues (shared/read-model/public-api/validation/issue-bound.ts), never by how many fields
 * fail: ajv's `allErrors` has no cap, and over a file of a million empty entries it would build tens of millions of
 * errors. So ajv only ever judges small pieces: a value of at most `PIECE_VALUES` values is checked in one go; a
 * larger object or list is checked without its children (its type, required keys, sizes), then each child in turn,
 * so that the walk stops once enough issues are counted. A valid body is checked once, in one go, by a validator
 * that stops at its first error. The walk gives the event loop a turn every `CHILDREN_PER_TURN` children, so
 * other requests of the process are served while a huge body is walked.
 *
 * Each issue listed names what its field takes (teaching-issues.ts); an amount in euros (`x-euros`) with a third
 * decimal is one more issue, found after the schema's.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { eurosToCents } from '../../shared/money/cents.ts';
import { issuesFromAjv } from '../../shared/read-model/public-api/validation/ajv-issues.ts';
import { IssueCollector } from '../../shared/read-model/public-api/validation/issue-bound.ts';
import { childSchema, isPlainObject, type JsonSchema } from '../../shared/read-model/public-api/validation/request-schema.ts';
import { issue, type Loc, type ValidationIssue } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import type { ShapeSchema } from './expected-shape.ts';
import { teachingIssue } from './teaching-issues.ts';

/** The keywords of a document schema the walk reads besides a request's; the others are ajv's alone. */
interface DocumentSchema extends JsonSchema {
  additionalProperties?: boolean;
  items?: DocumentSchema;
  propertyNames?: object;
  properties?: Record<string, DocumentSchema>;
  /** An amount in euros: at most two decimals, as shared/money/cents.ts converts to cents. */
  'x-euros'?: boolean;
}

const PIECE_VALUES = 256;
const CHILDREN_PER_TURN = 2_000;

// `verbose`: a union's error carries its branches, which the mapping reads to name the allowed values.
const everyError = new Ajv({ allErrors: true, strict: false, verbose: true });
const firstError = new Ajv({ allErrors: false, strict: false });
const allErrorsOf = new WeakMap<object, ValidateFunction>();
const firstErrorOf = new WeakMap<object, ValidateFunction>();
const shells = new WeakMap<object, object>();

function compiled(cache: WeakMap<object, ValidateFunction>, ajv: Ajv, schema: object): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) cache.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** The issues of `body` against `schema`, with locs under `body`; none for a valid body. */
export async function documentIssues(schema: object, body: unknown): Promise<IssueCollector> {
  const issues = new IssueCollector();
  // Only a listed issue is taught: the words cost a walk of the schema, and the rest are only counted.
  const add = (found: ValidationIssue) => issues.add(issues.room > 0 ? teachingIssue(schema as ShapeSchema, found) : found);
  if (!compiled(firstErrorOf, firstError, schema)(body)) await walk(schema as DocumentSchema, body, ['body'], { issues, add, children: 0 });
  eurosIssues(schema as DocumentSchema, body, ['body'], add);
  return issues;
}

interface Walk {
  issues: IssueCollector;
  add: (found: ValidationIssue) => void;
  children: number;
}

/**
 * Pydantic's `decimal_max_places` for each amount in euros with a third decimal, where the schema's properties lead
 * (so the work is bounded by the schema, whatever the body holds).
 */
function eurosIssues(schema: DocumentSchema, value: unknown, at: Loc, add: (found: ValidationIssue) => void): void {
  if (schema['x-euros'] === true && typeof value === 'number' && !inCents(value)) {
    add({ type: 'decimal_max_places', loc: at, msg: 'Decimal input should have no more than 2 decimal places', input: value, ctx: { decimal_places: 2 } });
  }
  if (!isPlainObject(value)) return;
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    if (Object.hasOwn(value, name)) eurosIssues(child, value[name], [...at, name], add);
  }
}

function inCents(euros: number): boolean {
  try {
    eurosToCents(euros);
    return true;
  } catch {
    return false;
  }
}

async function walk(schema: DocumentSchema, value: unknown, at: Loc, state: Walk): Promise<void> {
  if (stopsHere(state)) return;
  const list = Array.isArray(value) && schema.type === 'array' && schema.items !== undefined;
  const object = isPlainObject(value) && schema.type === 'object';
  if ((!list && !object) || isSmall(value)) return checkPiece(schema, value, at, state.add);
  checkPiece(shellOf(schema), value, at, state.add);
  const record = value as Record<string, unknown>;
  for (const key of list ? (value as unknown[]).keys() : Object.keys(record)) {
    if (++state.children % CHILDREN_PER_TURN === 0) await new Promise(setImmediate);
    if (stopsHere(state)) return;
    // As ajv says a refused name when it checks the object whole (ajv-issues.ts): at the key, marked `[key]`.
    if (!list && schema.propertyNames) checkPiece(schema.propertyNames, key, [...at, key, '[key]'], state.add);
    const child = list ? schema.items : childSchema(schema, key as string);
    const item = record[key];
    if (child !== undefined) await walk(child, item, [...at, key], state);
    else if (schema.additionalProperties === false) state.add(issue.extraForbidden([...at, key], item));
  }
}

/** Whether enough issues are counted: the walk stops, and the count of the rest becomes a lower bound. */
function stopsHere(state: Walk): boolean {
  if (state.issues.full) state.issues.stopped = true;
  return state.issues.stopped;
}

/** `value` judged by ajv in one go, its issues added with locs under `at`. */
function checkPiece(schema: object, value: unknown, at: Loc, add: (found: ValidationIssue) => void): void {
  const validate = compiled(allErrorsOf, everyError, schema);
  if (validate(value)) return;
  const sent = value as Record<string, unknown>;
  const found = issuesFromAjv(validate.errors ?? [], { source: 'json', sent, raw: value });
  // As pydantic lists them: the fields in the schema's order, then the properties the object should not have.
  const extra = (one: ValidationIssue) => one.type === 'extra_forbidden';
  for (const one of [...found.filter((one) => !extra(one)), ...found.filter(extra)]) {
    add({ ...one, loc: [...at, ...listIndices(value, one.loc)] });
  }
}

/** `loc` with the segments that index a list as numbers, as pydantic writes them (`["body", "watches", 0]`). */
function listIndices(root: unknown, loc: readonly (string | number)[]): (string | number)[] {
  let value = root;
  return loc.map((segment) => {
    const inList = Array.isArray(value);
    value = inList || isPlainObject(value) ? (value as Record<string, unknown>)[segment] : undefined;
    return inList ? Number(segment) : segment;
  });
}

/** Whether `value` holds at most `PIECE_VALUES` values (itself included); stops counting past that. */
function isSmall(root: unknown): boolean {
  let budget = PIECE_VALUES;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    budget -= 1;
    if (Array.isArray(value)) {
      if (value.length > budget) return false;
      for (const item of value) pending.push(item);
    } else if (isPlainObject(value)) {
      for (const key in value) {
        if (pending.length >= budget) return false;
        pending.push(value[key]);
      }
    }
    if (pending.length > budget) return false;
  }
  return true;
}

/** `schema` without what it says of an object's or a list's children: those are walked one by one. */
function shellOf(schema: DocumentSchema): object {
  let shell = shells.get(schema);
  if (!shell) {
    const { properties: _p, patternProperties: _pp, additionalProperties: _ap, items: _i, propertyNames: _pn, ...own } = schema;
    shells.set(schema, (shell = own));
  }
  return shell;
}
