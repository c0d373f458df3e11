/**
 * Request bodies of the admin API: one typebox schema each, checked before any command runs by the public API's
 * request validation, so a refusal has the contract's shape (`{detail: [{type, loc, msg, input, ctx}]}`): every
 * field at once, the allowed values of a choice, and each property the body should not have.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import Type from 'typebox';
import { issuesFromAjv } from '../../shared/public-api/validation/ajv-issues.ts';
import { StockStatus } from '../../shared/events/index.ts';
import { cappedInput } from '../../shared/public-api/validation/capped-input.ts';
import { compilePart, type PartValidator } from '../../shared/public-api/validation/request-part.ts';
import { isPlainObject } from '../../shared/public-api/validation/request-schema.ts';
import { issue, RequestValidationError } from '../../shared/public-api/validation/validation-issue.ts';

// The patterns of the events' serials and references (shared/events/common.ts) in any case: the service upper-cases.
export const RegisterSerialBody = Type.Object({
  serial: Type.String({ pattern: '^[A-Za-z0-9-]{4,32}$' }),
  reference: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9.-]{0,39}$' }),
  year: Type.Integer(),
});
export const PriceBody = Type.Object({ price_eur: Type.Number({ exclusiveMinimum: 0 }) });
export const StockBody = Type.Object({ stock_status: StockStatus });
export const CustomizableBody = Type.Object({ customizable: Type.Boolean() });

const validators = new WeakMap<object, PartValidator>();

/**
 * A document body (a whole watch, a watch's texts): nested objects and lists that the request validation does not
 * take, checked by ajv as JSON is (no lax coercion), its errors mapped to the same issues.
 */
export function checkDocument<S extends Type.TObject>(schema: S, body: unknown): Type.Static<S> {
  if (!isPlainObject(body)) throw new RequestValidationError([issue.modelAttributesType(['body'], cappedInput(body))]);
  let validate = documentValidators.get(schema);
  if (!validate) documentValidators.set(schema, (validate = documentAjv.compile(schema as object)));
  if (validate(body)) return body as Type.Static<S>;
  const issues = issuesFromAjv(validate.errors ?? [], { source: 'json', sent: body, raw: body });
  throw new RequestValidationError(issues.map((found) => ({
    ...found, loc: ['body', ...listIndices(body, found.loc)], input: cappedInput(found.input),
  })));
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

// `verbose`: a union's error carries its branches, which the mapping reads to name the allowed values.
const documentAjv = new Ajv({ allErrors: true, strict: false, verbose: true });
const documentValidators = new WeakMap<object, ValidateFunction>();

/** `body` typed by `schema`, or a 422 naming every problem; a property the schema does not have is one. */
export function checkBody<S extends Type.TObject>(schema: S, body: unknown): Type.Static<S> {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compilePart(schema as never, 'body')));
  const issues = [] as Parameters<PartValidator>[1];
  const value = validate(body, issues);
  if (isPlainObject(body)) {
    for (const [name, input] of Object.entries(body)) {
      if (!Object.hasOwn(schema.properties, name)) issues.push(issue.extraForbidden(['body', name], input));
    }
  }
  if (issues.length > 0) throw new RequestValidationError(issues.map((found) => ({ ...found, input: cappedInput(found.input) })));
  return value as Type.Static<S>;
}
