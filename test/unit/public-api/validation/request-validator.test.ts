/**
 * Request validation on a small operation of its own (`shared/read-model/public-api/validation/`), in process: every failing
 * field at once, in the shape and order FastAPI answers with pydantic v2 (docs/api.md, "Conventions": validation errors). The
 * expected `type`, `msg`, `input` and `ctx` are pydantic v2's own wording for each case, written out by hand; the
 * order is FastAPI's (path, then query, then body; a model's fields in the model's order, a dict's entries in the
 * order sent; the first failed constraint of a field only).
 */
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { thrownBy } from '../../../support/rejection.ts';
import type { OperationSpec } from '../../../../shared/read-model/public-api/operations/operation.ts';
import { issuesFromAjv } from '../../../../shared/read-model/public-api/validation/ajv-issues.ts';
import { compileRequestValidator, type RawRequest } from '../../../../shared/read-model/public-api/validation/request-validator.ts';
import { expectedLiterals, issue, RequestValidationError, type ValidationIssue } from '../../../../shared/read-model/public-api/validation/validation-issue.ts';

/**
 * A new spec object per use: validators are kept per spec object for the process, so a spec shared by every test
 * would be compiled once, by whichever test ran first (and under a mutant active then).
 */
const spec = (): OperationSpec => ({
  id: 'probe', method: 'POST', path: '/probe/:code', summary: '', description: '', tags: [], responses: {},
  params: {
    path: { type: 'object', properties: { code: { type: 'string', minLength: 4, maxLength: 8, pattern: '^[A-Z]+$' } }, required: ['code'] },
    query: {
      type: 'object',
      properties: {
        lang: { anyOf: [{ const: 'en' }, { const: 'fr' }], default: 'en' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        page: { type: 'integer' },
      },
      required: ['page'],
    },
  },
  body: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
      count: { type: 'integer' },
      kind: { enum: ['a', 'b', 'c'] },
      one: { const: 'x' },
      flag: { type: 'boolean' },
      weight: { type: 'number' },
      sizes: { type: 'object', patternProperties: { '^[a-z]+$': { type: 'integer' } } },
      // The root's `name` and `count` in the other order: a nested model's fields rank in its own order.
      inner: { type: 'object', properties: { count: { type: 'string' }, name: { type: 'integer' } }, required: ['count'] },
      note: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] },
    },
    required: ['name'],
  },
}) as unknown as OperationSpec;

const GOOD: RawRequest = { path: { code: 'ABCD' }, query: { page: '1' }, body: { name: 'ab' } };

function issuesOf(request: Partial<RawRequest>): ValidationIssue[] {
  const validate = compileRequestValidator(spec());
  const error = thrownBy(() => validate({ ...GOOD, ...request }));
  expect(error).to.be.instanceOf(RequestValidationError);
  expect((error as RequestValidationError).status).to.equal(422);
  return (error as RequestValidationError).issues;
}

describe('request validation on an operation of its own, as pydantic v2 and FastAPI answer', () => {
  it('takes a valid request, with defaults filled, the last of a repeated parameter, and the parts in schema order', () => {
    const valid = compileRequestValidator(spec())({ path: { code: 'ABCD' }, query: { ratio: '0.5', page: ['9', '2'], extra: 'ignored' }, body: { name: 'ab' } });
    expect(valid.path).to.deep.equal({ code: 'ABCD' });
    expect(valid.query).to.deep.equal({ lang: 'en', limit: 20, ratio: 0.5, page: 2 });
    expect(Object.keys(valid.query)).to.deep.equal(['lang', 'limit', 'ratio', 'page']);
    expect(valid.body).to.deep.equal({ name: 'ab' });
    const once = spec();
    expect(compileRequestValidator(once)).to.equal(compileRequestValidator(once));
  });

  it('answers a JSON `null` body with one 422 issue at `["body"]`, never a TypeError', () => {
    // `null` is an object to `typeof`: reading fields of it would throw, a 500 instead of a validation answer.
    const found = issuesOf({ body: null });
    expect(found.map((one) => one.loc)).to.deep.equal([['body']]);
    expect(found[0]).to.include({ input: null });
  });

  it('a query parameter sent as undefined is absent', () => {
    expect(issuesOf({ query: { page: undefined } })).to.deep.equal([{ type: 'missing', loc: ['query', 'page'], msg: 'Field required', input: null }]);
  });

  it('lists path, then query, then body issues, each part\'s fields in schema order whatever the order sent', () => {
    const issues = issuesOf({
      path: { code: 'abcd' },
      query: { page: 'x', limit: '101', lang: 'de' },
      body: { kind: 'z', count: [1], name: 5 },
    });
    expect(issues).to.deep.equal([
      { type: 'string_pattern_mismatch', loc: ['path', 'code'], msg: 'String should match pattern \'^[A-Z]+$\'', input: 'abcd', ctx: { pattern: '^[A-Z]+$' } },
      { type: 'literal_error', loc: ['query', 'lang'], msg: 'Input should be \'en\' or \'fr\'', input: 'de', ctx: { expected: '\'en\' or \'fr\'' } },
      { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
      { type: 'int_parsing', loc: ['query', 'page'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'x' },
      { type: 'string_type', loc: ['body', 'name'], msg: 'Input should be a valid string', input: 5 },
      { type: 'int_type', loc: ['body', 'count'], msg: 'Input should be a valid integer', input: [1] },
      { type: 'literal_error', loc: ['body', 'kind'], msg: 'Input should be \'a\', \'b\' or \'c\'', input: 'z', ctx: { expected: '\'a\', \'b\' or \'c\'' } },
    ]);
  });

  it('keeps only a field\'s first failed constraint (a length before the pattern)', () => {
    expect(issuesOf({ path: { code: 'ab' } })).to.deep.equal([
      { type: 'string_too_short', loc: ['path', 'code'], msg: 'String should have at least 4 characters', input: 'ab', ctx: { min_length: 4 } },
    ]);
    expect(issuesOf({ path: { code: 'abcdefghi' } })).to.deep.equal([
      { type: 'string_too_long', loc: ['path', 'code'], msg: 'String should have at most 8 characters', input: 'abcdefghi', ctx: { max_length: 8 } },
    ]);
  });

  it('bounds: greater than or equal, and the strict less than and greater than with their ctx', () => {
    expect(issuesOf({ query: { page: '1', limit: '0', ratio: '1' } })).to.deep.equal([
      { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
      { type: 'less_than', loc: ['query', 'ratio'], msg: 'Input should be less than 1', input: '1', ctx: { lt: 1 } },
    ]);
    expect(issuesOf({ query: { page: '1', ratio: '0' } })).to.deep.equal([
      { type: 'greater_than', loc: ['query', 'ratio'], msg: 'Input should be greater than 0', input: '0', ctx: { gt: 0 } },
    ]);
  });

  it('a value that did not parse is reported once, by its parsing issue, not also as missing', () => {
    expect(issuesOf({ query: { page: '1.5' } })).to.deep.equal([
      { type: 'int_parsing', loc: ['query', 'page'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '1.5' },
    ]);
  });

  it('body types: an integer with a fraction, a number, a boolean, a dict, a single literal, a nullable string', () => {
    expect(issuesOf({ body: { name: 'ab', count: 1.5, one: 'y', flag: 'maybe', weight: [], sizes: [], note: 'long' } })).to.deep.equal([
      { type: 'int_from_float', loc: ['body', 'count'], msg: 'Input should be a valid integer, got a number with a fractional part', input: 1.5 },
      { type: 'literal_error', loc: ['body', 'one'], msg: 'Input should be \'x\'', input: 'y', ctx: { expected: '\'x\'' } },
      { type: 'bool_parsing', loc: ['body', 'flag'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' },
      { type: 'float_type', loc: ['body', 'weight'], msg: 'Input should be a valid number', input: [] },
      { type: 'dict_type', loc: ['body', 'sizes'], msg: 'Input should be a valid dictionary', input: [] },
      { type: 'string_too_long', loc: ['body', 'note'], msg: 'String should have at most 3 characters', input: 'long', ctx: { max_length: 3 } },
    ]);
    expect(issuesOf({ body: { name: 'ab', flag: [], note: 5 } })).to.deep.equal([
      { type: 'bool_type', loc: ['body', 'flag'], msg: 'Input should be a valid boolean', input: [] },
      { type: 'string_type', loc: ['body', 'note'], msg: 'Input should be a valid string', input: 5 },
    ]);
  });

  it('a dict\'s entries in the order sent, a nested model\'s fields in its order, and a missing field\'s input its object', () => {
    expect(issuesOf({ body: { inner: { name: [] }, sizes: { zz: [], aa: {}, mm: 3 } } })).to.deep.equal([
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: { inner: { name: [] }, sizes: { zz: [], aa: {}, mm: 3 } } },
      { type: 'int_type', loc: ['body', 'sizes', 'zz'], msg: 'Input should be a valid integer', input: [] },
      { type: 'int_type', loc: ['body', 'sizes', 'aa'], msg: 'Input should be a valid integer', input: {} },
      { type: 'missing', loc: ['body', 'inner', 'count'], msg: 'Field required', input: { name: [] } },
      { type: 'int_type', loc: ['body', 'inner', 'name'], msg: 'Input should be a valid integer', input: [] },
    ]);
    // A text that does not parse is found before ajv's issues; it still ranks by where its field is.
    expect(issuesOf({ body: { name: 'ab', inner: { name: 'x', count: 5 } } })).to.deep.equal([
      { type: 'string_type', loc: ['body', 'inner', 'count'], msg: 'Input should be a valid string', input: 5 },
      { type: 'int_parsing', loc: ['body', 'inner', 'name'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'x' },
    ]);
    // The input of a missing top-level field is the whole body as sent, fields the model does not know included.
    expect(issuesOf({ body: { unknown: 1 } })).to.deep.equal([{ type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: { unknown: 1 } }]);
    expect(issuesOf({ body: { name: 'ab', sizes: { zz: [], aa: 'x' } } })).to.deep.equal([
      { type: 'int_type', loc: ['body', 'sizes', 'zz'], msg: 'Input should be a valid integer', input: [] },
      { type: 'int_parsing', loc: ['body', 'sizes', 'aa'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'x' },
    ]);
  });

  it('a body that is not an object is one model_attributes_type, a missing path parameter has input null', () => {
    expect(issuesOf({ body: [1] })).to.deep.equal([
      { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1] },
    ]);
    expect(issuesOf({ path: {} })).to.deep.equal([{ type: 'missing', loc: ['path', 'code'], msg: 'Field required', input: null }]);
  });

  it('a literal given a value that is not a string is literal_error, as pydantic says, typed literals too (typebox\'s)', () => {
    // `Type.Literal('en')` writes `{type: 'string', const: 'en'}`: its branch's type error is not the field's issue.
    const typed = {
      ...spec(), body: undefined,
      params: { query: { type: 'object', properties: { lang: { anyOf: [{ type: 'string', const: 'en' }, { type: 'string', const: 'fr' }], default: 'en' } } } },
    } as unknown as OperationSpec;
    const validate = compileRequestValidator(typed);
    const LANG = { type: 'literal_error', loc: ['query', 'lang'], msg: 'Input should be \'en\' or \'fr\'', ctx: { expected: '\'en\' or \'fr\'' } };
    for (const input of [['fr'], 5, 'de']) {
      const error = thrownBy(() => validate({ path: {}, query: { lang: input } as RawRequest['query'], jsonQuery: true }));
      expect((error as RequestValidationError).issues, JSON.stringify(input)).to.deep.equal([{ ...LANG, input }]);
    }
  });

  it('an operation with a body and no parameters validates its body alone', () => {
    const bodyOnly = { ...spec(), params: undefined } as unknown as OperationSpec;
    const validate = compileRequestValidator(bodyOnly);
    expect(validate({ query: { page: 'x' }, path: {}, body: { name: 'ab' } })).to.deep.equal({ path: {}, query: {}, header: {}, body: { name: 'ab' } });
    expect(() => validate({ query: {}, path: {}, body: {} })).to.throw(RequestValidationError);
  });
});

describe('ajv errors as pydantic v2 issues (the admin documents\' keywords)', () => {
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false });
  function issues(schema: object, value: unknown): ValidationIssue[] {
    const validate = ajv.compile(schema);
    expect(validate(value)).to.equal(false);
    return issuesFromAjv(validate.errors ?? [], { source: 'json', sent: value as Record<string, unknown>, raw: value });
  }

  it('an extra field, a list too short, a list of the wrong type, an escaped pointer', () => {
    const schema = {
      type: 'object', additionalProperties: false,
      properties: { tags: { type: 'array', minItems: 1 }, pair: { type: 'array', minItems: 2 }, list: { type: 'array' }, 'a/b~c': { type: 'string' } },
    };
    expect(issues(schema, { tags: [], pair: ['x'], list: {}, 'a/b~c': 1, nope: true })).to.deep.equal([
      { type: 'extra_forbidden', loc: ['nope'], msg: 'Extra inputs are not permitted', input: true },
      { type: 'too_short', loc: ['tags'], msg: 'List should have at least 1 item after validation, not 0', input: [], ctx: { field_type: 'List', min_length: 1, actual_length: 0 } },
      { type: 'too_short', loc: ['pair'], msg: 'List should have at least 2 items after validation, not 1', input: ['x'], ctx: { field_type: 'List', min_length: 2, actual_length: 1 } },
      { type: 'list_type', loc: ['list'], msg: 'Input should be a valid list', input: {} },
      { type: 'string_type', loc: ['a/b~c'], msg: 'Input should be a valid string', input: 1 },
    ]);
  });

  it('a string too short by one character is singular, and a keyword or type with no pydantic equivalent is refused', () => {
    expect(issues({ type: 'object', properties: { s: { type: 'string', minLength: 1 } } }, { s: '' })).to.deep.equal([
      { type: 'string_too_short', loc: ['s'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 } },
    ]);
    expect(issues({ type: 'object', properties: { s: { type: 'string', maxLength: 1 } } }, { s: 'ab' })[0]!.msg).to.equal('String should have at most 1 character');
    expect(() => issues({ type: 'object', properties: { s: { type: 'array', maxItems: 1 } } }, { s: [1, 2] }))
      .to.throw('ajv error without a pydantic equivalent: maxItems at #/properties/s/maxItems');
    expect(() => issues({ type: 'object', properties: { s: { type: 'null' } } }, { s: 1 })).to.not.throw();
    const wrongType = ajv.compile({ type: 'string' });
    wrongType(1);
    const error = { ...wrongType.errors![0]!, params: { type: 'fraction' } };
    expect(() => issuesFromAjv([error], { source: 'json', sent: {}, raw: {} })).to.throw('ajv type error without a pydantic equivalent: fraction');
  });

  it('a JSON syntax error and a value error in FastAPI\'s shape', () => {
    expect(issue.jsonInvalid(7, 'Expecting value')).to.deep.equal({
      type: 'json_invalid', loc: ['body', 7], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' },
    });
    expect(issue.valueError(['body', 'collection'], 'x', 'unknown collection x')).to.deep.equal({
      type: 'value_error', loc: ['body', 'collection'], msg: 'Value error, unknown collection x', input: 'x', ctx: { error: 'unknown collection x' },
    });
  });

  it('the expected literals as pydantic lists them: one alone, two with "or", numbers bare', () => {
    expect(expectedLiterals([])).to.equal('');
    expect(expectedLiterals(['en'])).to.equal('\'en\'');
    expect(expectedLiterals(['en', 'fr'])).to.equal('\'en\' or \'fr\'');
    expect(expectedLiterals([1, 'b', 3])).to.equal('1, \'b\' or 3');
  });
});
