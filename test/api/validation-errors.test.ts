import { expect } from 'chai';
import { send } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

describe('422 validation errors of the query and path, as FastAPI with pydantic v2 answers them', () => {
  let app: TestApp;
  before(async () => { app = await startTestApp(); });
  after(async () => { await app.close(); });

  const detail = async (path: string) => {
    const res = await send(app.url, path);
    expect(res.status, res.text).to.equal(422);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    return res.json().detail as unknown[];
  };

  const rows: [string, object][] = [
    ['lang=de', { type: 'literal_error', loc: ['query', 'lang'], msg: "Input should be 'en' or 'fr'", input: 'de', ctx: { expected: "'en' or 'fr'" } }],
    ['limit=abc', { type: 'int_parsing', loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'abc' }],
    ['limit=101', { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } }],
    ['limit=0', { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } }],
    ['offset=-1', { type: 'greater_than_equal', loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', input: '-1', ctx: { ge: 0 } }],
    // 2^53: the first integer a JSON number no longer holds exactly.
    ['offset=9007199254740992', {
      type: 'less_than_equal', loc: ['query', 'offset'], msg: 'Input should be less than or equal to 9007199254740991', input: '9007199254740992',
      ctx: { le: 9007199254740991 },
    }],
    ['min_price=x', { type: 'float_parsing', loc: ['query', 'min_price'], msg: 'Input should be a valid number, unable to parse string as a number', input: 'x' }],
    ['price_max=-5', { type: 'greater_than_equal', loc: ['query', 'price_max'], msg: 'Input should be greater than or equal to 0', input: '-5', ctx: { ge: 0 } }],
    ['in_stock=maybe', { type: 'bool_parsing', loc: ['query', 'in_stock'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' }],
    ['sort=foo', {
      type: 'literal_error', loc: ['query', 'sort'], msg: "Input should be 'name', 'price_asc', 'price_desc' or 'collection'", input: 'foo',
      ctx: { expected: "'name', 'price_asc', 'price_desc' or 'collection'" },
    }],
    [`search=${'x'.repeat(101)}`, { type: 'string_too_long', loc: ['query', 'search'], msg: 'String should have at most 100 characters', input: 'x'.repeat(101), ctx: { max_length: 100 } }],
  ];
  for (const [query, expected] of rows) {
    it(`answers ${query.length > 30 ? "search of 101 characters" : query} with ${(expected as { type: string }).type}`, async () => {
      expect(await detail(`/api/public/catalogue?${query}`)).to.deep.equal([expected]);
    });
  }

  it('lists every failing field at once, in the order of the parameters', async () => {
    const errors = await detail('/api/public/catalogue?sort=foo&limit=abc&lang=de&in_stock=maybe&min_price=x');
    expect(errors.map((e) => (e as { loc: string[] }).loc[1])).to.deep.equal(['lang', 'min_price', 'in_stock', 'sort', 'limit']);
  });

  it('answers the largest offset it takes, 2^53 - 1, with an empty page that echoes it exactly', async () => {
    const res = await send(app.url, '/api/public/catalogue?offset=9007199254740991');
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain('"offset":9007199254740991');
    expect(res.json().watches).to.deep.equal([]);
  });

  it('accepts a search of exactly 100 characters, counted in characters not bytes', async () => {
    const res = await send(app.url, `/api/public/catalogue?search=${encodeURIComponent('é'.repeat(100))}`);
    expect(res.status).to.equal(200);
  });

  it('rejects a serial that breaks the pattern with string_pattern_mismatch at path.serial, with lang errors too', async () => {
    const pattern = '^[A-Za-z0-9-]{4,32}$';
    const mismatch = (input: string) => ({
      type: 'string_pattern_mismatch', loc: ['path', 'serial'], msg: `String should match pattern '${pattern}'`, input, ctx: { pattern },
    });
    expect(await detail('/api/public/verify/abc')).to.deep.equal([mismatch('abc')]);
    expect(await detail(`/api/public/verify/${'A'.repeat(33)}`)).to.deep.equal([mismatch('A'.repeat(33))]);
    const both = await detail('/api/public/verify/AB_CD?lang=xx');
    expect(both).to.deep.equal([mismatch('AB_CD'), {
      type: 'literal_error', loc: ['query', 'lang'], msg: "Input should be 'en' or 'fr'", input: 'xx', ctx: { expected: "'en' or 'fr'" },
    }]);
  });

  it('validates lang on every GET operation', async () => {
    for (const path of ['/api/public/status', '/api/public/collections', '/api/public/catalogue/RG-100', '/api/public/configurator/options/regate']) {
      const errors = await detail(`${path}?lang=EN`);
      expect(errors, path).to.have.length(1);
      expect(errors[0]).to.include({ type: 'literal_error', input: 'EN' });
    }
  });
});
