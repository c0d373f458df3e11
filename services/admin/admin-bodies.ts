/**
 * Request bodies of the admin API: one typebox schema each, checked before any command runs by the public API's
 * request validation, so a refusal has the contract's shape (`{detail: [{type, loc, msg, input, ctx}]}`): every
 * field at once, the allowed values of a choice, and each property the body should not have.
 */
import Type from 'typebox';
import { StockStatus } from '../../shared/events/index.ts';
import { IssueCollector } from '../../shared/public-api/validation/issue-bound.ts';
import { compilePart, type PartValidator } from '../../shared/public-api/validation/request-part.ts';
import { isPlainObject } from '../../shared/public-api/validation/request-schema.ts';
import { issue, RequestValidationError } from '../../shared/public-api/validation/validation-issue.ts';
import { documentIssues } from './document-issues.ts';

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
 * A document body (a whole watch, a watch's texts, a catalogue file): nested objects and lists that the request
 * validation does not take, checked as JSON is (no lax coercion), its errors mapped to the same issues; the work
 * is bounded whatever the body holds (document-issues.ts).
 */
export async function checkDocument<S extends Type.TObject>(schema: S, body: unknown): Promise<Type.Static<S>> {
  if (!isPlainObject(body)) throw new RequestValidationError([issue.modelAttributesType(['body'], body)]);
  const issues = await documentIssues(schema, body);
  if (issues.size > 0) throw new RequestValidationError(issues);
  return body as Type.Static<S>;
}

/** `body` typed by `schema`, or a 422 naming every problem; a property the schema does not have is one. */
export function checkBody<S extends Type.TObject>(schema: S, body: unknown): Type.Static<S> {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compilePart(schema as never, 'body')));
  const issues = new IssueCollector();
  const value = validate(body, issues);
  if (isPlainObject(body)) {
    for (const [name, input] of Object.entries(body)) {
      if (!Object.hasOwn(schema.properties, name)) issues.add(issue.extraForbidden(['body', name], input));
    }
  }
  if (issues.size > 0) throw new RequestValidationError(issues);
  return value as Type.Static<S>;
}
