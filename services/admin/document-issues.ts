/**
 * The issues of a document body (a watch, or a catalogue file of up to 16 MiB), found with work bounded by the
 * body's size and by the bound on issues (shared/public-api/validation/issue-bound.ts), never by how many fields
 * fail: ajv's `allErrors` has no cap, and over a file of a million empty entries it would build tens of millions of
 * errors. So ajv only ever judges small pieces: a value of at most `PIECE_VALUES` values is checked in one go; a
 * larger object or list is checked without its children (its type, required keys, sizes), then each child in turn,
 * so that the walk stops once enough issues are counted. A valid body is checked once, in one go, by a validator
 * that stops at its first error. The walk gives the event loop a turn every `CHILDREN_PER_TURN` children, so
 * other requests of the process are served while a huge body is walked.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { issuesFromAjv } from '../../shared/public-api/validation/ajv-issues.ts';
import { IssueCollector } from '../../shared/public-api/validation/issue-bound.ts';
import { childSchema, isPlainObject, type JsonSchema } from '../../shared/public-api/validation/request-schema.ts';
import { issue, type Loc } from '../../shared/public-api/validation/validation-issue.ts';

/** The keywords of a document schema the walk reads besides a request's; the others are ajv's alone. */
interface DocumentSchema extends JsonSchema {
  additionalProperties?: boolean;
  items?: DocumentSchema;
  propertyNames?: object;
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
  if (compiled(firstErrorOf, firstError, schema)(body)) return issues;
  await walk(schema as DocumentSchema, body, ['body'], { issues, children: 0 });
  return issues;
}

interface Walk {
  issues: IssueCollector;
  children: number;
}

async function walk(schema: DocumentSchema, value: unknown, at: Loc, state: Walk): Promise<void> {
  if (stopsHere(state)) return;
  const list = Array.isArray(value) && schema.type === 'array' && schema.items !== undefined;
  const object = isPlainObject(value) && schema.type === 'object';
  if ((!list && !object) || isSmall(value)) return checkPiece(schema, value, at, state.issues);
  checkPiece(shellOf(schema), value, at, state.issues);
  const record = value as Record<string, unknown>;
  for (const key of list ? (value as unknown[]).keys() : Object.keys(record)) {
    if (++state.children % CHILDREN_PER_TURN === 0) await new Promise(setImmediate);
    if (stopsHere(state)) return;
    // As ajv says a refused name when it checks the object whole (ajv-issues.ts): at the key, marked `[key]`.
    if (!list && schema.propertyNames) checkPiece(schema.propertyNames, key, [...at, key, '[key]'], state.issues);
    const child = list ? schema.items : childSchema(schema, key as string);
    const item = record[key];
    if (child !== undefined) await walk(child, item, [...at, key], state);
    else if (schema.additionalProperties === false) state.issues.add(issue.extraForbidden([...at, key], item));
  }
}

/** Whether enough issues are counted: the walk stops, and the count of the rest becomes a lower bound. */
function stopsHere(state: Walk): boolean {
  if (state.issues.full) state.issues.stopped = true;
  return state.issues.stopped;
}

/** `value` judged by ajv in one go, its issues added with locs under `at`. */
function checkPiece(schema: object, value: unknown, at: Loc, issues: IssueCollector): void {
  const validate = compiled(allErrorsOf, everyError, schema);
  if (validate(value)) return;
  const sent = value as Record<string, unknown>;
  for (const found of issuesFromAjv(validate.errors ?? [], { source: 'json', sent, raw: value })) {
    issues.add({ ...found, loc: [...at, ...listIndices(value, found.loc)] });
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
