/** Request bodies of the admin API: one typebox schema each, checked with ajv before any command runs. */
import { Ajv, type ValidateFunction } from 'ajv';
import Type from 'typebox';
import { StockStatus } from '../../shared/events/index.ts';
import { HttpError } from './json-body.ts';

export const RegisterSerialBody = Type.Object(
  {
    serial: Type.String({ minLength: 1, maxLength: 64 }),
    reference: Type.String({ minLength: 1, maxLength: 64 }),
    year: Type.Integer(),
  },
  { additionalProperties: false },
);
export const PriceBody = Type.Object({ price_eur: Type.Number({ exclusiveMinimum: 0 }) }, { additionalProperties: false });
export const StockBody = Type.Object({ stock_status: StockStatus }, { additionalProperties: false });

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<object, ValidateFunction>();

/** `body` typed by `schema`, or a 422 naming every problem. */
export function checkBody<S extends Type.TSchema>(schema: S, body: unknown): Type.Static<S> {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema as object)));
  if (!validate(body)) throw new HttpError(422, ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' }));
  return body as Type.Static<S>;
}
