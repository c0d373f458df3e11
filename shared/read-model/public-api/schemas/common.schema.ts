/** Shapes shared by every public operation: the language selector, money, and the error bodies. */
import Type from 'typebox';

export const LangParam = Type.Union([Type.Literal('en'), Type.Literal('fr')], {
  default: 'en', description: 'Language of the text fields: `en` (default) or `fr`.',
});

/** The query of an operation whose only parameter is `lang`. */
export const LangOnlyQuery = Type.Object({ lang: LangParam });
export type LangOnlyQuery = Type.Static<typeof LangOnlyQuery>;

/**
 * `X-Min-Position`, which any public request may send (docs/api.md, "Read your writes"): the event-store position an
 * answer must reflect at least (an admin append's `X-Position`), canonical digits like the log's numbers. One value
 * schema for every route, described as each kind of route takes it.
 */
export const MIN_POSITION_HEADER = 'x-min-position';
const MinPosition = (description: string) => Type.Optional(Type.Integer({
  minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-canonical': true, description: `${description} Canonical decimal digits.`,
}));

/** The headers every read-model operation reads: it waits for the read models to reach the position asked. */
export const ReadModelHeaders = Type.Object({
  [MIN_POSITION_HEADER]: MinPosition('Answer from read models at or past this event-store position (an admin change\'s `X-Position`), '
    + 'waiting for them up to `MIN_POSITION_WAIT_MS` (2 s by default), else 503 with `Retry-After`.'),
});
export type ReadModelHeaders = Type.Static<typeof ReadModelHeaders>;

/**
 * The headers of a public route whose answer does not depend on how far the read models have come (a key, a hash
 * tile, a discovery file): `X-Min-Position` is checked as everywhere, and has nothing to wait for
 * (read-api/middleware/min-position.ts).
 */
export const UnwaitedHeaders = Type.Object({
  [MIN_POSITION_HEADER]: MinPosition('Checked as on every public request, never waited for: nothing this route answers is read at '
    + 'a position (a tile\'s hashes are fixed by its path; ask the checkpoint with it for a tree counting your change).'),
});

/**
 * The key of a record (`Type.Record(AnyKey, ...)`): any string. Typebox's own pattern for `Type.String()` keys is
 * `^.*$`, which a key holding a line break does not match, so its value would escape the record's schema.
 */
export const AnyKey = Type.String({ pattern: '^[\\s\\S]*$' });

/** An amount in euros: a JSON number with at most two decimals, computed from integer cents. */
export const Euros = Type.Number({ description: 'Euros, at most two decimals.' });

const ValidationError = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  type: Type.String(),
  input: Type.Unknown(),
  ctx: Type.Optional(Type.Object({}, { additionalProperties: true })),
}, { title: 'ValidationError' });

const HTTPValidationError = Type.Object({
  detail: Type.Array(ValidationError, {
    description: 'Every failing field, up to 50; past 50, one last entry `{"type": "too_many_errors", "loc": ["body"], '
      + '"msg": "N more errors not listed", "input": null, "ctx": {"not_listed": N, "counted_all": true}}` counts the '
      + 'rest (`counted_all` false and "At least N" once 10,000 are counted). An `input` larger than 256 values or '
      + '4,096 characters, or its levels below 20, is echoed as `"[truncated]"`.',
  }),
}, { title: 'HTTPValidationError' });

export const NotFound = Type.Object({ detail: Type.String() }, { title: 'NotFound' });

export const RateLimited = Type.Object({
  detail: Type.String({ description: 'e.g. `Rate limit exceeded: 60 per 1 minute`.' }),
}, { title: 'RateLimited' });

export const Unavailable = Type.Object({
  detail: Type.String({ description: 'e.g. `The catalogue is being prepared; try again shortly`; `Retry-After` says when.' }),
}, { title: 'Unavailable' });

/** The error responses every public operation can give, besides its own. */
export const validationResponse = { description: 'Validation error', schema: HTTPValidationError };
export const rateLimitedResponse = { description: 'Rate limit exceeded', schema: RateLimited };
/** An operation that reads the read models: refused while they cannot be vouched for (docs/api.md, "Honest answers"). */
export const unavailableResponse = {
  description: 'The read models are not built yet, not fresh enough for this answer, behind the `X-Min-Position` asked, or cannot be reached; retry after `Retry-After` seconds',
  schema: Unavailable,
};

export const PayloadTooLarge = Type.Object({ detail: Type.String() }, { title: 'PayloadTooLarge' });
