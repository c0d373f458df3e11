import { expect } from 'chai';
import { postJson, send } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

const PRICE = '/api/public/configurator/price';

describe('POST /api/public/configurator/price', () => {
  let app: TestApp;
  before(async () => { app = await startTestApp(); });
  after(async () => { await app.close(); });

  const errors = async (body: unknown) => {
    const res = await postJson(app.url, PRICE, body);
    expect(res.status, res.text).to.equal(422);
    return res.json().detail as { type: string; loc: (string | number)[]; msg: string; input: unknown }[];
  };

  it('prices base + every offered category (chosen or default) + accessories, the total exactly their sum', async () => {
    const res = await postJson(app.url, PRICE, {
      collection: 'regate', model_ref: 'RG-200', options: { case: 'gold', dial: 'blue' }, accessories: { strap: 3, box: 0 },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.json()).to.deep.equal({
      collection: 'regate', model_ref: 'RG-200', currency: 'EUR', base_price_eur: 18900.5,
      options: [
        { category: 'case', code: 'gold', label: 'Rose gold', price_eur: 8500.5 },
        { category: 'dial', code: 'blue', label: 'Blue', price_eur: 450.25 },
        { category: 'case_back', code: 'solid', label: 'Solid', price_eur: 0 },
      ],
      options_total_eur: 8950.75,
      accessories: [{ code: 'strap', label: 'Extra strap', quantity: 3, unit_price_eur: 250.1, total_eur: 750.3 }],
      accessories_total_eur: 750.3,
      total_eur: 28601.55,
      delivery: { min_weeks: 8, max_weeks: 12 },
      lang: 'en',
    });
  });

  it('takes defaults for null options and accessories, answers in French, and accepts model_reference', async () => {
    const res = await postJson(app.url, `${PRICE}?lang=fr`, { collection: 'REGATE', model_reference: 'rg-100', options: null, accessories: null });
    expect(res.status, res.text).to.equal(200);
    const body = res.json();
    expect(body).to.include({ model_ref: 'RG-100', total_eur: 12500, options_total_eur: 0, lang: 'fr' });
    expect(body.options.map((o: { label: string }) => o.label)).to.deep.equal(['Acier', 'Noir', 'Plein']);
  });

  it('prefers model_ref over model_reference when both are sent', async () => {
    const body = (await postJson(app.url, PRICE, { collection: 'regate', model_ref: 'RG-200', model_reference: 'RG-100' })).json();
    expect(body.model_ref).to.equal('RG-200');
  });

  it('accepts case-back and caseback for case_back', async () => {
    for (const key of ['case-back', 'caseback', 'case_back']) {
      const body = (await postJson(app.url, PRICE, { collection: 'regate', model_ref: 'RG-100', options: { [key]: 'sapphire' } })).json();
      expect(body.options[2], key).to.deep.equal({ category: 'case_back', code: 'sapphire', label: 'Sapphire', price_eur: 1200 });
    }
  });

  it('reports missing and ill-typed fields at once', async () => {
    expect(await errors({ options: { dial: 3 }, accessories: { strap: 'two', box: 1.5 } })).to.deep.equal([
      { type: 'missing', loc: ['body', 'collection'], msg: 'Field required', input: { options: { dial: 3 }, accessories: { strap: 'two', box: 1.5 } } },
      { type: 'missing', loc: ['body', 'model_ref'], msg: 'Field required', input: { options: { dial: 3 }, accessories: { strap: 'two', box: 1.5 } } },
      { type: 'string_type', loc: ['body', 'options', 'dial'], msg: 'Input should be a valid string', input: 3 },
      { type: 'int_parsing', loc: ['body', 'accessories', 'strap'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'two' },
      { type: 'int_from_float', loc: ['body', 'accessories', 'box'], msg: 'Input should be a valid integer, got a number with a fractional part', input: 1.5 },
    ]);
    expect(await errors({ collection: 7, model_ref: 'RG-100', accessories: { strap: true } })).to.deep.equal([
      { type: 'string_type', loc: ['body', 'collection'], msg: 'Input should be a valid string', input: 7 },
      { type: 'int_type', loc: ['body', 'accessories', 'strap'], msg: 'Input should be a valid integer', input: true },
    ]);
  });

  it('answers finite_number for a quantity whose JSON number is too large to be finite (1e400 parses to Infinity)', async () => {
    const text = '{"collection": "regate", "model_ref": "RG-100", "accessories": {"strap": 1e400, "box": -1E+400}}';
    const res = await send(app.url, PRICE, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    expect(res.status, res.text).to.equal(422);
    // JSON has no infinity to echo: the input is written as JSON.stringify writes it, null.
    expect(res.json().detail).to.deep.equal([
      { type: 'finite_number', loc: ['body', 'accessories', 'strap'], msg: 'Input should be a finite number', input: null },
      { type: 'finite_number', loc: ['body', 'accessories', 'box'], msg: 'Input should be a finite number', input: null },
    ]);
  });

  it('checks the value of every key of a record, a key holding a line break included (pydantic checks every key)', async () => {
    expect(await errors({ collection: 'regate', model_ref: 'RG-100', options: { 'a\nb': 4 }, accessories: { 'c\rd': 'two' } })).to.deep.equal([
      { type: 'string_type', loc: ['body', 'options', 'a\nb'], msg: 'Input should be a valid string', input: 4 },
      { type: 'int_parsing', loc: ['body', 'accessories', 'c\rd'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'two' },
    ]);
  });

  it('answers model_attributes_type for a body that is not an object, and missing for an empty body', async () => {
    expect(await errors([1, 2])).to.deep.equal([{
      type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1, 2],
    }]);
    const empty = await send(app.url, PRICE, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.json().detail).to.deep.equal([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  });

  it('answers json_invalid with the offset and the error as Python reports them', async () => {
    const cases: [string, number, string][] = [
      ['{"collection": }', 15, 'Expecting value'],
      ['{"collection": "regate"', 23, "Expecting ',' delimiter"],
      ["{'collection': 1}", 1, 'Expecting property name enclosed in double quotes'],
      ['{"a": 1} x', 9, 'Extra data'],
      ['{"é": "unterminated', 6, 'Unterminated string starting at'],
    ];
    for (const [text, offset, error] of cases) {
      const res = await send(app.url, PRICE, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
      expect(res.json().detail, text).to.deep.equal([{ type: 'json_invalid', loc: ['body', offset], msg: 'JSON decode error', input: {}, ctx: { error } }]);
    }
  });

  it('answers json_invalid for deeply nested unclosed JSON, at the end of the text (issue 11, item 3)', async () => {
    for (const open of ['[', '{"a":']) {
      const text = `{"collection":"abysse","model_ref":"AUR-DV-006","options":${open.repeat(Math.floor(15_000 / open.length))}`;
      const res = await send(app.url, PRICE, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
      expect(res.status, open).to.equal(422);
      // Python stops where a value was expected and the text ended.
      expect(res.json().detail, open).to.deep.equal([{ type: 'json_invalid', loc: ['body', text.length], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]);
    }
  });

  it('echoes at most 20 levels of a deeply nested input, the rest cut (issue 17, finding 6)', async () => {
    const res = await send(app.url, PRICE, { method: 'POST', body: `${'['.repeat(8_000)}${']'.repeat(8_000)}`, headers: { 'content-type': 'application/json', origin: 'https://shop.example' } });
    expect(res.status, res.text.slice(0, 200)).to.equal(422);
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    const [only] = res.json().detail as { type: string; loc: unknown[]; input: unknown }[];
    expect(only).to.include({ type: 'model_attributes_type' });
    let depth = 0;
    let input = only!.input;
    while (Array.isArray(input)) {
      expect(input, `level ${depth}`).to.have.length(1);
      depth += 1;
      input = input[0];
    }
    expect(depth).to.equal(20);
    expect(input).to.equal('[truncated]');
  });

  it('answers an unknown category for option keys named like Object built-ins (issue 17, finding 7)', async () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const body = `{"collection":"regate","model_ref":"RG-100","options":{"${key}":"x"},"accessories":{"${key}":1}}`;
      const res = await send(app.url, PRICE, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(res.status, `${key}: ${res.text}`).to.equal(422);
      expect(res.json().detail.map((e: { loc: unknown[] }) => e.loc), key).to.deep.equal([['body', 'options', key], ['body', 'accessories', key]]);
    }
  });

  it('locates every kind of JSON syntax error where Python\'s json module does', async () => {
    // Offsets and messages as Python 3.11's json.loads reports them for these texts (JSONDecodeError pos and msg).
    const cases: [string, number, string][] = [
      ["[1, 2", 5, "Expecting ',' delimiter"],
      ["[1 2]", 3, "Expecting ',' delimiter"],
      ["[1,]", 3, "Expecting value"],
      ["[]x", 2, "Extra data"],
      ["{\"a\": [true, fals]}", 13, "Expecting value"],
      ["{\"a\": nul}", 6, "Expecting value"],
      ["{\"a\": \"\\x\"}", 7, "Invalid \\escape"],
      ["{\"a\": \"\\u12G4\"}", 8, "Invalid \\uXXXX escape"],
      ["{\"a\": \"\\u12", 8, "Invalid \\uXXXX escape"],
      ["[\"ab\\uZZZZ\"]", 5, "Invalid \\uXXXX escape"],
      ["{\"a\": \"\\u00e9\\n\\\"ok\\\"\" , \"b\" 1}", 29, "Expecting ':' delimiter"],
      ["{\"a\": \"tab\there\"}", 10, "Invalid control character at"],
      ["{\"a\": 1,}", 8, "Expecting property name enclosed in double quotes"],
      ["{\"a\" 1}", 5, "Expecting ':' delimiter"],
      ["{\"a\": {\"b\": [1, {\"c\": }]}}", 22, "Expecting value"],
      ["  \n {\"a\": 1} \n x", 15, "Extra data"],
      ["[[[]]", 5, "Expecting ',' delimiter"],
      ["{\"a\": \"\\", 6, "Unterminated string starting at"],
      ["{\"a\": -}", 6, "Expecting value"],
      ["{\"a\": 1e}", 7, "Expecting ',' delimiter"],
      ["{\"a\": [1, 2], \"b\": {}, \"c\": \"\\/\\b\\f\\r\\t\"} ]", 42, "Extra data"],
    ];
    for (const [text, offset, error] of cases) {
      const res = await send(app.url, PRICE, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
      expect(res.json().detail, text).to.deep.equal([{ type: 'json_invalid', loc: ['body', offset], msg: 'JSON decode error', input: {}, ctx: { error } }]);
    }
  });

  it('treats a body sent with another content type as an unparsed string (model_attributes_type)', async () => {
    const res = await send(app.url, PRICE, { method: 'POST', body: '{"collection":"regate"}', headers: { 'content-type': 'text/plain' } });
    expect(res.status).to.equal(422);
    expect(res.json().detail).to.deep.equal([{
      type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: '{"collection":"regate"}',
    }]);
  });

  it('answers value_error at body.collection for an unknown collection', async () => {
    expect(await errors({ collection: 'nope', model_ref: 'RG-100' })).to.deep.equal([{
      type: 'value_error', loc: ['body', 'collection'], msg: "Value error, unknown collection 'nope'", input: 'nope', ctx: { error: "unknown collection 'nope'" },
    }]);
  });

  it('refuses as a model a watch of the collection that is not customizable, and one never published, saying which', async () => {
    for (const [model_ref, error] of [
      ['RG-300', "watch 'RG-300' of collection 'regate' is not customizable"],
      ['RG-999', "unknown model 'RG-999'"],
    ]) {
      expect(await errors({ collection: 'regate', model_ref }), model_ref).to.deep.equal([{
        type: 'value_error', loc: ['body', 'model_ref'], msg: `Value error, ${error}`, input: model_ref, ctx: { error },
      }]);
    }
  });

  it('reports every unknown model, category, option, accessory and out-of-range quantity at once', async () => {
    const found = await errors({
      collection: 'regate', model_ref: 'HE-100',
      options: { strap: 'x', dial: 'green', pushers: 'red' },
      accessories: { sticker: 1, strap: 4, box: -1 },
    });
    expect(found.map((e) => [e.type, e.loc])).to.deep.equal([
      ['value_error', ['body', 'model_ref']],
      ['value_error', ['body', 'options', 'strap']],
      ['value_error', ['body', 'options', 'dial']],
      ['value_error', ['body', 'options', 'pushers']],
      ['value_error', ['body', 'accessories', 'sticker']],
      ['value_error', ['body', 'accessories', 'strap']],
      ['value_error', ['body', 'accessories', 'box']],
    ]);
    expect(found[0]!.msg).to.equal("Value error, model 'HE-100' is a watch of collection 'heritage', not of collection 'regate'");
    expect(found[2]).to.include({ msg: "Value error, unknown option 'green' for category 'dial'", input: 'green' });
    expect(found[5]).to.include({ msg: "Value error, quantity of 'strap' must be between 0 and 3", input: 4 });
  });

  // docs/api.md: a value_error's msg is `Value error, ...` saying what is unknown (mutation survivors, issue 31).
  it('says in the value error of an unknown category, a category not offered and an unknown accessory which one it is', async () => {
    const found = await errors({
      collection: 'regate', model_ref: 'RG-100', options: { strap: 'x', pushers: 'red' }, accessories: { sticker: 1 },
    });
    expect(found.map((e) => e.loc)).to.deep.equal([['body', 'options', 'strap'], ['body', 'options', 'pushers'], ['body', 'accessories', 'sticker']]);
    expect(found[0]!.msg).to.match(/^Value error, .*category.*'strap'/);
    expect(found[1]!.msg).to.match(/^Value error, .*'pushers'/);
    expect(found[2]!.msg).to.match(/^Value error, .*accessory.*'sticker'/);
  });

  it('refuses a valid model with a single bad option or quantity: one wrong field is enough for a 422', async () => {
    const model = { collection: 'regate', model_ref: 'RG-100' };
    expect((await errors({ ...model, options: { dial: 'green' } })).map((e) => e.loc)).to.deep.equal([['body', 'options', 'dial']]);
    expect((await errors({ ...model, options: { pushers: 'red' } })).map((e) => e.loc)).to.deep.equal([['body', 'options', 'pushers']]);
    expect((await errors({ ...model, accessories: { strap: 4 } })).map((e) => e.loc)).to.deep.equal([['body', 'accessories', 'strap']]);
    expect((await errors({ ...model, accessories: { sticker: 1 } })).map((e) => e.loc)).to.deep.equal([['body', 'accessories', 'sticker']]);
  });

  it('validates lang on the POST operation too, listed with the body\'s errors at once', async () => {
    const lang = (input: string) => ({ type: 'literal_error', loc: ['query', 'lang'], msg: "Input should be 'en' or 'fr'", input, ctx: { expected: "'en' or 'fr'" } });
    const valid = { collection: 'regate', model_ref: 'RG-100' };
    for (const input of ['de', 'EN', '']) {
      const res = await postJson(app.url, `${PRICE}?lang=${input}`, valid);
      expect(res.status, input).to.equal(422);
      expect(res.json().detail, input).to.deep.equal([lang(input)]);
    }
    const both = await postJson(app.url, `${PRICE}?lang=de`, { collection: 'regate' });
    expect(both.json().detail).to.have.deep.members([lang('de'), { type: 'missing', loc: ['body', 'model_ref'], msg: 'Field required', input: { collection: 'regate' } }]);
  });

  it('stores nothing: the read store is only read', async () => {
    const before = JSON.stringify(await app.store.find('configurators', {}));
    await postJson(app.url, PRICE, { collection: 'regate', model_ref: 'RG-100', accessories: { strap: 1 } });
    expect(JSON.stringify(await app.store.find('configurators', {}))).to.equal(before);
  });
});
