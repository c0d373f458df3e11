/**
 * The public operations and the shapes of their answers, written by hand from docs/api.md ("The seven operations",
 * "Conventions for every public operation"), never taken from the service: tests that check the contract compare
 * the service with these, so a fault in the service's own schemas or operation list cannot hide in what the tests
 * expect. Objects are closed (no field beyond the contract's) except where the contract leaves them open (`...`).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/** The seven operations, in the contract's order, paths as the contract writes them. */
export const CONTRACT_OPERATIONS = [
  { method: 'GET', path: '/api/public/status' },
  { method: 'GET', path: '/api/public/catalogue' },
  { method: 'GET', path: '/api/public/catalogue/{reference}' },
  { method: 'GET', path: '/api/public/collections' },
  { method: 'GET', path: '/api/public/configurator/options/{collection}' },
  { method: 'POST', path: '/api/public/configurator/price' },
  { method: 'GET', path: '/api/public/verify/{serial}' },
] as const;

/**
 * The transparency log's public endpoints (docs/api.md, "Transparency log"), which the discovery files describe too
 * (issue 44, item 4): the checkpoint beside the hash tiles under `/transparency`, the verifier key and its history,
 * the proofs.
 */
export const CONTRACT_LOG_ENDPOINTS = [
  { method: 'GET', path: '/transparency/checkpoint' },
  { method: 'GET', path: '/transparency/tile/{level}/{index}' },
  { method: 'GET', path: '/.well-known/transparency/key' },
  { method: 'GET', path: '/.well-known/transparency/keys' },
  { method: 'GET', path: '/api/public/transparency/inclusion' },
  { method: 'GET', path: '/api/public/transparency/consistency' },
] as const;

/** The discovery files besides `/.well-known/jwks.json`, which comes with signed answers (issue 13). */
export const CONTRACT_DISCOVERY_FILES = ['/llms.txt', '/llms-full.txt', '/.well-known/openapi-public.json', '/.well-known/ai-brief.json'] as const;

type Schema = Record<string, unknown>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** An object with exactly these fields, all required. */
const closed = (properties: Record<string, Schema>): Schema => ({
  type: 'object', properties, required: Object.keys(properties), additionalProperties: false,
});
/** An object with at least these fields (the contract's `{a, b, ...}`). */
const open = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties, required: Object.keys(properties) });
const string: Schema = { type: 'string' };
const integer: Schema = { type: 'integer' };
const boolean: Schema = { type: 'boolean' };
const anything: Schema = {};
const array = (items: Schema): Schema => ({ type: 'array', items });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
/** "JSON numbers in euros with at most two decimals": checked on the number as JSON writes it. */
const euros: Schema = { type: 'number', minimum: 0, euros: true };
const lang: Schema = { enum: ['en', 'fr'] };
const delivery = closed({ min_weeks: { const: 8 }, max_weeks: { const: 12 } });
const CATEGORY_KEYS = ['case', 'dial', 'lugs', 'crown', 'case_back', 'engraving', 'movement', 'rehaut', 'bracelet', 'tachymeter', 'pushers'];

const watchSummaryFields = {
  reference: string, name: string, collection: closed({ code: string, name: string }), short_description: string,
  price_eur: euros, currency: { const: 'EUR' }, stock_status: { enum: ['in_stock', 'low_stock', 'out_of_stock', 'made_to_order'] },
  in_stock: boolean, image: nullable(closed({ url: string, alt: string })), url: string,
};

const category = (key: string): Schema => closed({
  key: { const: key }, label: string,
  options: array(closed({ code: string, label: string, price_eur: euros, default: boolean })),
});

const validationError: Schema = {
  type: 'object',
  properties: {
    type: string, msg: string, input: anything, ctx: { type: 'object' },
    loc: { type: 'array', prefixItems: [{ enum: ['query', 'path', 'body'] }], items: { type: ['string', 'integer'] }, minItems: 1 },
  },
  required: ['type', 'loc', 'msg', 'input'],
  additionalProperties: false,
};

/** The 200 answer of each operation, by `METHOD path`. */
const ANSWERS: Record<string, Schema> = {
  'GET /api/public/status': closed({
    service: string, version: { const: '1.0.0' }, status: { enum: ['ok', 'degraded'] },
    brand: closed({ name: string, tagline: string, country: string, founded: integer, website: string }),
    languages: { const: ['en', 'fr'] },
    endpoints: array(closed({ method: string, path: string, summary: string })),
    rate_limits: closed({ per_ip_per_minute: integer, verify_per_ip_per_minute: integer }),
    agents: closed({ llms_txt: string, llms_full_txt: string, openapi: string, ai_brief: string, jwks: string, mcp: string, transparency: string }),
    read_model: closed({
      position: integer, updated_at: nullable({ type: 'string', format: 'date-time' }),
      projections: {
        type: 'array',
        items: closed({ name: { type: 'string' }, position: integer, built: { type: 'boolean' }, fresh: { type: 'boolean' }, lag_seconds: nullable({ type: 'number', minimum: 0 }) }),
      },
    }),
  }),
  'GET /api/public/catalogue': closed({
    watches: array(closed(watchSummaryFields)), total: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 100 }, offset: { type: 'integer', minimum: 0 }, lang,
  }),
  'GET /api/public/catalogue/{reference}': closed({
    ...watchSummaryFields, description: string, tax_included: { const: true }, specifications: { type: 'object' },
    images: array(closed({ url: string, alt: string, role: string })), features: array(string),
    seo: closed({ title: string, description: string, keywords: anything, canonical_path: string }),
    manufacture: open({ name: string, origin: string }), customizable: boolean, configurator_path: nullable(string), lang,
  }),
  'GET /api/public/collections': closed({
    collections: array(closed({
      code: string, name: string, short_description: string, description: string, type: string,
      diameter_mm: { type: 'number' }, product_count: { type: 'integer', minimum: 0 },
      price_range_eur: nullable(closed({ min: euros, max: euros })),
    })),
    lang,
  }),
  'GET /api/public/configurator/options/{collection}': closed({
    collection: closed({ code: string, name: string }), currency: { const: 'EUR' },
    models: array(closed({ model_ref: string, name: string, base_price_eur: euros })),
    categories: { type: 'array', prefixItems: CATEGORY_KEYS.map(category), minItems: 11, maxItems: 11 },
    accessories: array(closed({ code: string, label: string, unit_price_eur: euros, max_quantity: { type: 'integer', minimum: 0 } })),
    delivery, lang,
  }),
  'POST /api/public/configurator/price': closed({
    collection: string, model_ref: string, currency: { const: 'EUR' }, base_price_eur: euros,
    options: array(closed({ category: { enum: CATEGORY_KEYS }, code: string, label: string, price_eur: euros })),
    options_total_eur: euros,
    accessories: array(closed({ code: string, label: string, quantity: { type: 'integer', minimum: 1 }, unit_price_eur: euros, total_eur: euros })),
    accessories_total_eur: euros, total_eur: euros, delivery, lang,
  }),
  'GET /api/public/verify/{serial}': closed({
    serial: { type: 'string', pattern: '^[A-Z0-9-]{4,32}$' },
    verification_status: { enum: ['AUTHENTIC', 'STOLEN', 'NOT_FOUND'] }, stolen: boolean,
    details: nullable(closed({ model: string, reference: string, collection: string, manufacture_year: integer })),
    checked_at: { type: 'string', format: 'date-time' }, message: string, lang,
  }),
};

/** Error answers, the same for every operation. */
const ERRORS: Record<number, Schema> = {
  404: closed({ detail: { enum: ['Watch not found', 'Collection not found'] } }),
  422: closed({ detail: { type: 'array', items: validationError, minItems: 1 } }),
};

export interface ContractAnswers {
  /** Throws, naming the operation and every mismatch, unless `body` is what the contract says the answer is. */
  check(method: string, path: string, status: number, body: unknown): void;
}

export function contractAnswers(): ContractAnswers {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true, strictTuples: false, allowUnionTypes: true }));
  ajv.addKeyword({ keyword: 'euros', type: 'number', schemaType: 'boolean', validate: (_: boolean, value: number) => /^\d+(\.\d{1,2})?$/.test(JSON.stringify(value)) });
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(method, path, status, body) {
      const key = `${method} ${path}`;
      const schema = status === 200 ? ANSWERS[key] : ERRORS[status];
      if (!schema) throw new Error(`${key} ${status}: the contract names no such answer`);
      const id = `${key} ${status}`;
      let validate = compiled.get(id);
      if (!validate) compiled.set(id, validate = ajv.compile(schema));
      if (!validate(body)) throw new Error(`${id}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    },
  };
}
