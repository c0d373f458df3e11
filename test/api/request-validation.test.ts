import { expect } from 'chai';
import { thrownBy } from '../support/rejection.ts';
import Type, { type TSchema } from 'typebox';
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { compileRequestValidator, type RawRequest, type RequestValidator } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { RequestValidationError, type ValidationIssue } from '../../shared/read-model/public-api/validation/validation-issue.ts';

function validatorFor(parts: { query?: TSchema; path?: TSchema; body?: TSchema }): RequestValidator {
  const spec: OperationSpec = {
    id: 'probe', method: parts.body ? 'POST' : 'GET', path: '/probe', summary: '', description: '', tags: [], responses: {},
    params: { query: parts.query, path: parts.path }, body: parts.body,
  };
  return compileRequestValidator(spec);
}

function issuesOf(validate: RequestValidator, request: Partial<RawRequest>): ValidationIssue[] {
  return thrownBy(() => validate({ query: {}, path: {}, ...request }), RequestValidationError).issues;
}

describe('request validation: pydantic v2 lax coercion and errors on ajv-compiled schemas', () => {
  const Query = Type.Object({
    count: Type.Integer({ default: 1, minimum: 1 }),
    ratio: Type.Number({ default: 0, exclusiveMinimum: -1, 'x-aliases': ['r'] }),
    flag: Type.Boolean({ default: false }),
  });
  const query = validatorFor({ query: Query });

  it('reads query integers, numbers and booleans as pydantic does in lax mode', () => {
    const cases: [Record<string, string>, Record<string, unknown>][] = [
      [{ count: ' +1_000 ', ratio: '1e3', flag: 'YES' }, { count: 1000, ratio: 1000, flag: true }],
      [{ count: '7', ratio: '.5', flag: 'off' }, { count: 7, ratio: 0.5, flag: false }],
      [{ count: '007', ratio: '-0.25', flag: 'T' }, { count: 7, ratio: -0.25, flag: true }],
    ];
    for (const [sent, expected] of cases) expect(query({ query: sent, path: {} }).query, JSON.stringify(sent)).to.deep.equal(expected);
  });

  it('fills defaults and answers the fields in schema order, dropping unknown parameters', () => {
    const valid = query({ query: { flag: '1', other: 'x', count: '2' }, path: {} });
    expect(Object.entries(valid.query)).to.deep.equal([['count', 2], ['ratio', 0], ['flag', true]]);
  });

  it('reads an alias when the canonical name is absent, names it in the loc, and lets the canonical name win', () => {
    expect(query({ query: { r: '2', ratio: '3' }, path: {} }).query['ratio']).to.equal(3);
    expect(issuesOf(query, { query: { r: '-1' } })).to.deep.equal([{
      type: 'greater_than', loc: ['query', 'r'], msg: 'Input should be greater than -1', input: '-1', ctx: { gt: -1 },
    }]);
  });

  it('reports a value that does not parse once, with its parsing type, never also as a failed constraint', () => {
    expect(issuesOf(query, { query: { count: '1.5', ratio: 'nan?', flag: '2' } }).map((i) => [i.type, i.loc, i.input])).to.deep.equal([
      ['int_parsing', ['query', 'count'], '1.5'],
      ['float_parsing', ['query', 'ratio'], 'nan?'],
      ['bool_parsing', ['query', 'flag'], '2'],
    ]);
  });

  describe('integers as pydantic reads their text (pydantic-core\'s `str_as_int`)', () => {
    const bounded = validatorFor({ query: Type.Object({
      limit: Type.Integer({ minimum: -100, maximum: 100 }),
      size: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-canonical': true })),
    }) });
    const limitOf = (text: string) => bounded({ query: { limit: text }, path: {} }).query['limit'];
    const typeOf = (query: Record<string, string>) => issuesOf(bounded, { query }).map((i) => [i.type, i.loc.at(-1)]);
    const digits = (count: number, first = '1') => first + '7'.repeat(count - 1);

    it('drops a fraction of zeros only: 10.0 is 10, 10. and 10.5 are no integers', () => {
      expect(['10.0', ' -3.000 ', '1_0.00', '0.0', '-007'].map(limitOf)).to.deep.equal([10, -3, 10, 0, -7]);
      for (const text of ['10.', '10.5', '.0', '1.0_0', '10.0.0']) expect(typeOf({ limit: text }), text).to.deep.equal([['int_parsing', 'limit']]);
    });

    it('calls an integer of more digits than a double holds past the bound, not no integer', () => {
      const huge = digits(400);
      expect(issuesOf(bounded, { query: { limit: huge, size: huge } })).to.deep.equal([
        { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: huge, ctx: { le: 100 } },
        { type: 'less_than_equal', loc: ['query', 'size'], msg: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}`, input: huge, ctx: { le: Number.MAX_SAFE_INTEGER } },
      ]);
      expect(typeOf({ limit: `-${huge}` })).to.deep.equal([['greater_than_equal', 'limit']]);
    });

    it('refuses past 4,300 bytes, the sign included: int_parsing_size for a JSON integer\'s spelling, int_parsing for any other', () => {
      expect(typeOf({ limit: digits(4300) }), '4,300 digits: an integer').to.deep.equal([['less_than_equal', 'limit']]);
      expect(typeOf({ limit: `-${digits(4299)}` }), 'a sign and 4,299').to.deep.equal([['greater_than_equal', 'limit']]);
      expect(typeOf({ limit: `00${digits(4300)}` }), 'leading zeros are cleaned away').to.deep.equal([['less_than_equal', 'limit']]);
      expect(typeOf({ limit: ` ${digits(4300)} ` }), 'and spaces around').to.deep.equal([['less_than_equal', 'limit']]);
      expect(typeOf({ limit: `${digits(4299)}.00` }), 'and a fraction of zeros').to.deep.equal([['less_than_equal', 'limit']]);
      expect(typeOf({ limit: `-0${digits(4300)}` }), 'but not the sign').to.deep.equal([['int_parsing', 'limit']]);
      expect(typeOf({ limit: digits(4301) })).to.deep.equal([['int_parsing_size', 'limit']]);
      expect(typeOf({ limit: `-${digits(4300)}` })).to.deep.equal([['int_parsing_size', 'limit']]);
      expect(typeOf({ limit: `${digits(4301)} ` }), 'whatever follows the digits').to.deep.equal([['int_parsing_size', 'limit']]);
      expect(typeOf({ limit: `${digits(4301)}.0` }), 'a fraction after them').to.deep.equal([['int_parsing_size', 'limit']]);
      expect(typeOf({ limit: '1', size: digits(4301) }), 'a canonical integer too').to.deep.equal([['int_parsing_size', 'size']]);
      for (const text of [` ${digits(4301)}`, `+${digits(4301)}`, `0${digits(4301)}`]) {
        expect(typeOf({ limit: text }), `${text.slice(0, 3)}...`).to.deep.equal([['int_parsing', 'limit']]);
      }
      const issue = issuesOf(bounded, { query: { limit: digits(4301) } })[0]!;
      expect(issue.msg).to.equal('Unable to parse input string as an integer, exceeded maximum size');
    });
  });

  it('does not call a required path parameter missing when it was sent but does not parse', () => {
    const path = validatorFor({ path: Type.Object({ id: Type.Integer({ maximum: 9 }) }) });
    expect(issuesOf(path, { path: { id: 'x' } }).map((i) => i.type)).to.deep.equal(['int_parsing']);
    expect(issuesOf(path, { path: {} })).to.deep.equal([{ type: 'missing', loc: ['path', 'id'], msg: 'Field required', input: null }]);
  });

  it('stops at the first failed constraint of a string, lengths before the pattern', () => {
    const path = validatorFor({ path: Type.Object({ code: Type.String({ minLength: 3, maxLength: 5, pattern: '^[a-z]+$' }) }) });
    expect(issuesOf(path, { path: { code: 'AB' } })).to.deep.equal([{
      type: 'string_too_short', loc: ['path', 'code'], msg: 'String should have at least 3 characters', input: 'AB', ctx: { min_length: 3 },
    }]);
    expect(issuesOf(path, { path: { code: 'ABCDEF' } }).map((i) => i.type)).to.deep.equal(['string_too_long']);
    expect(issuesOf(path, { path: { code: 'ABC' } }).map((i) => i.type)).to.deep.equal(['string_pattern_mismatch']);
  });

  describe('a JSON body', () => {
    const Body = Type.Object({
      size: Type.Integer(),
      on: Type.Boolean(),
      mode: Type.Union([Type.Literal('a'), Type.Literal('b')]),
      tags: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Integer()), Type.Null()])),
    });
    const body = validatorFor({ body: Body });

    it('coerces numeric strings and 0/1 as pydantic lax mode does, and keeps null for a nullable field', () => {
      const valid = body({ query: {}, path: {}, body: { size: '12', on: 0, mode: 'b', tags: { x: '3', y: 4.0 } } });
      expect(valid.body).to.deep.equal({ size: 12, on: false, mode: 'b', tags: { x: 3, y: 4 } });
      expect(body({ query: {}, path: {}, body: { size: 1, on: true, mode: 'a', tags: null } }).body).to.include({ tags: null });
    });

    it('reports one issue per field: a single literal_error for a union of constants, a single dict_type for a nullable record', () => {
      expect(issuesOf(body, { body: { size: true, on: 'perhaps', mode: 'c', tags: 'many' } })).to.deep.equal([
        { type: 'int_type', loc: ['body', 'size'], msg: 'Input should be a valid integer', input: true },
        { type: 'bool_parsing', loc: ['body', 'on'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'perhaps' },
        { type: 'literal_error', loc: ['body', 'mode'], msg: "Input should be 'a' or 'b'", input: 'c', ctx: { expected: "'a' or 'b'" } },
        { type: 'dict_type', loc: ['body', 'tags'], msg: 'Input should be a valid dictionary', input: 'many' },
      ]);
    });

    it('lists a record\'s bad entries in the order they were sent', () => {
      const issues = issuesOf(body, { body: { size: 1, on: true, mode: 'a', tags: { z: 'x', a: 1.5, m: [] } } });
      expect(issues.map((i) => [i.type, i.loc.at(-1)])).to.deep.equal([['int_parsing', 'z'], ['int_from_float', 'a'], ['int_type', 'm']]);
    });

    it('keeps a `__proto__` key of a record as an entry to validate, not as a prototype', () => {
      const sent = JSON.parse('{"size": 1, "on": true, "mode": "a", "tags": {"__proto__": ["x"]}}') as unknown;
      expect(issuesOf(body, { body: sent })).to.deep.equal([
        { type: 'int_type', loc: ['body', 'tags', '__proto__'], msg: 'Input should be a valid integer', input: ['x'] },
      ]);
    });
  });

  it('refuses at compile time a schema keyword or union it cannot report as pydantic does', () => {
    expect(() => validatorFor({ query: Type.Object({ step: Type.Number({ multipleOf: 5 }) }) })).to.throw(/multipleOf/);
    expect(() => validatorFor({ body: Type.Object({ either: Type.Union([Type.String(), Type.Integer()]) }) })).to.throw(/union/);
  });
});
