/**
 * Request bodies of the admin API: one typebox schema each, checked before any command runs as JSON is written
 * (a price is a JSON number, never a string that looks like one: pydantic's strict mode), each refusal in the
 * contract's shape (`{detail: [{type, loc, msg, input, ctx}]}`): every field at once, the allowed values of a choice,
 * each property the body should not have, and what a field takes (teaching-issues.ts).
 */
import Type from 'typebox';
import { REFERENCE_AS_TYPED, SERIAL_AS_TYPED, StockStatus } from '../../shared/events/index.ts';
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';
import { issue, RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { PriceEuros } from '../catalogue/watch-entry.ts';
import { documentIssues } from './document-issues.ts';
import { teachingIssue } from './teaching-issues.ts';

const closed = { additionalProperties: false } as const;

// The patterns of the events' serials and references in any case: the service upper-cases (canonicalId).
export const RegisterSerialBody = Type.Object({
  serial: Type.String({ pattern: SERIAL_AS_TYPED }),
  reference: Type.String({ pattern: REFERENCE_AS_TYPED }),
  year: Type.Integer(),
}, closed);
export const PriceBody = Type.Object({ price_eur: PriceEuros }, closed);
export const StockBody = Type.Object({ stock_status: StockStatus }, closed);
export const CustomizableBody = Type.Object({ customizable: Type.Boolean() }, closed);

/**
 * `body` typed by `schema`, or a 422 naming every problem. A document (a whole watch, a catalogue file) holds nested
 * objects and lists: the work is bounded whatever the body holds (document-issues.ts).
 */
export async function checkDocument<S extends Type.TObject>(schema: S, body: unknown): Promise<Type.Static<S>> {
  if (!isPlainObject(body)) throw new RequestValidationError([teachingIssue(schema, issue.modelAttributesType(['body'], body))]);
  const issues = await documentIssues(schema, body);
  if (issues.size > 0) throw new RequestValidationError(issues);
  return body as Type.Static<S>;
}
