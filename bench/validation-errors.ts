/**
 * `node --import tsx bench/validation-errors.ts [--quick]`: what a 422 costs against how much of the request is
 * wrong (issue 42, item 1), in process, no sockets. Two inputs:
 * - a price body (`POST /api/public/configurator/price`, and MCP `quote_price`, which share the validator) whose
 *   `options` has N keys with a non-string value, up to the 16 KiB body limit: body decoded, request validated,
 *   answer written (`JSON.stringify` of `{detail}`);
 * - an admin catalogue import (`POST /admin/import`) of N empty watch entries: the document check alone (the body
 *   already parsed), up to the 16 MiB import limit's 5.6 million entries.
 * Prints one JSON line: per N, the median time of a 422, its size, and the time per bad key or entry. Growth is
 * linear when the time per key stays flat as N grows; an import's stays flat then falls, as the check stops looking
 * once 10,000 issues are counted (shared/read-model/public-api/validation/issue-bound.ts).
 */
import { loadavg } from 'node:os';
import { checkDocument } from '../services/admin/admin-bodies.ts';
import { CatalogueFile } from '../services/catalogue/catalogue-file.ts';
import { priceSpec } from '../shared/read-model/public-api/operations/price.operation.ts';
import { decodeBody } from '../shared/read-model/public-api/validation/request-body.ts';
import { compileRequestValidator } from '../shared/read-model/public-api/validation/request-validator.ts';
import { RequestValidationError } from '../shared/read-model/public-api/validation/validation-issue.ts';
import { median, round } from './report/stats.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 5 : 15;
const PRICE_KEYS = [100, 200, 400, 700, 1_000, 1_400];
const IMPORT_ENTRIES = quick ? [10, 100, 1_000, 10_000] : [10, 100, 1_000, 10_000, 100_000, 1_000_000];

const validate = compileRequestValidator(priceSpec);

function priceBody(keys: number): string {
  const options = Array.from({ length: keys }, (_, i) => `"k${i}":1`).join(',');
  return `{"collection":"regate","model_ref":"RG-100","options":{${options}}}`;
}

function priceAnswer(text: string): string {
  try {
    validate({ query: {}, path: {}, body: decodeBody(text, 'application/json') });
  } catch (error) {
    if (error instanceof RequestValidationError) return JSON.stringify({ detail: error.issues });
    throw error;
  }
  throw new Error('expected a 422');
}

async function importAnswer(file: unknown): Promise<string> {
  try {
    await checkDocument(CatalogueFile, file);
  } catch (error) {
    if (error instanceof RequestValidationError) return JSON.stringify({ detail: error.issues });
    throw error;
  }
  throw new Error('expected a 422');
}

/** Median milliseconds of `run` over the rounds, each round as many calls as fill about 20 ms (at least one). */
async function timed(run: () => unknown): Promise<{ ms: number; bytes: number }> {
  let bytes = 0;
  const rounds: number[] = [];
  let calls = 1;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) bytes = String(await run()).length;
    const ms = (performance.now() - start) / calls;
    rounds.push(ms);
    calls = Math.max(1, Math.min(1_000, Math.round(20 / Math.max(ms, 0.001))));
  }
  return { ms: median(rounds), bytes };
}

const price = [];
for (const keys of PRICE_KEYS) {
  const body = priceBody(keys);
  const { ms, bytes } = await timed(() => priceAnswer(body));
  price.push({ bad_keys: keys, body_bytes: body.length, ms: round(ms, 3), us_per_key: round((ms * 1e3) / keys, 2), answer_bytes: bytes });
}
const imports = [];
for (const entries of IMPORT_ENTRIES) {
  const file = { watches: Array.from({ length: entries }, () => ({})), collections: [], configurators: [], serials: [] };
  const { ms, bytes } = await timed(() => importAnswer(file));
  imports.push({ empty_entries: entries, ms: round(ms, 3), us_per_entry: round((ms * 1e3) / entries, 2), answer_bytes: bytes });
}
console.log(JSON.stringify({ price, imports, machine: { load: loadavg().map((l) => round(l, 1)) } }));
