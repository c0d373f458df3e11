/**
 * Scale: the cost of one uncached catalogue query as the catalogue grows (100 to 100,000 watches, in both
 * languages), and of one verification as the serial registry grows (10^4 to 10^6 serials). The operations are
 * called as the router calls them (validated request, the operation's handler, the embedded read store), without
 * HTTP and without the answer cache, so the figures are the read path's own. Growth factors per tenfold size show
 * whether a path scans.
 */
import { fold } from '../../shared/text/fold.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { ReadStore, WriteOp } from '../../shared/ports/read-store.ts';
import type { SerialDoc, WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { catalogueOperation } from '../../shared/read-model/public-api/operations/catalogue.operation.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import type { OperationEnv, PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { compileRequestValidator, type RawRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { publicBrand } from '../../shared/brand.ts';
import { seededRandom } from '../../shared/random/seeded-random.ts';
import { demoReadModel } from '../fixtures/demo-read-model.ts';
import { quantile, ratio, round } from '../report/stats.ts';

export interface ScaleSettings { watches: number[]; serials: number[]; catalogueQueries: number; verifications: number }

export interface SizeFigures { size: number; p50_ms: number; p99_ms: number }
export interface Growth { size_ratio: number; time_ratio: number }
export interface ScaleFigures {
  /** Right after a write to the watches (the store's own answer cache is empty): the read path's real cost. */
  catalogue_cold: SizeFigures[];
  /** The same queries asked again with no write in between (the store's answer cache serves them). */
  catalogue_warm: SizeFigures[];
  verify: SizeFigures[];
  /** p50 at the largest size over p50 at the smallest, against the size ratio: well below it is sub-linear. */
  catalogue_cold_growth: Growth;
  catalogue_warm_growth: Growth;
  verify_growth: Growth;
}

/** The catalogue queries a visitor makes: default order, each sort, a collection, a search, a later page. */
const CATALOGUE_QUERIES: RawRequest['query'][] = [
  {},
  { sort: 'price_asc' },
  { sort: 'price_desc', lang: 'fr' },
  { sort: 'collection', offset: '50' },
  { collection: 'lumiere' },
  { search: 'or', in_stock: 'true' },
  { min_price: '10000', max_price: '30000', limit: '20' },
];

const WRITE_CHUNK = 10_000;

export async function benchScale(settings: ScaleSettings): Promise<ScaleFigures> {
  const demo = await demoReadModel();
  const templates = await demo.find<WatchDoc>('watches', {});
  const serialTemplates = await demo.find<SerialDoc>('serials', {});
  await demo.close();
  const cold: SizeFigures[] = [];
  const warm: SizeFigures[] = [];
  const catalogueRequest = (i: number): RawRequest => ({ query: CATALOGUE_QUERIES[i % CATALOGUE_QUERIES.length]!, path: {} });
  for (const size of settings.watches) {
    const store = createMemoryReadStore();
    await writeChunked(store, 'watches', watchDocs(templates, size));
    const [first] = await store.find<WatchDoc>('watches', { reference: 'SC-000000' });
    let position = 1;
    // A price change projected before every query, as a busy back office would cause.
    const touch = () => store.write('watches', [{ put: { ...first!, position: (position += 1) } }]);
    cold.push(await timeOperation(store, catalogueOperation, size, settings.catalogueQueries, catalogueRequest, touch));
    warm.push(await timeOperation(store, catalogueOperation, size, settings.catalogueQueries, catalogueRequest));
    await store.close();
  }
  const verify: SizeFigures[] = [];
  for (const size of settings.serials) {
    const store = createMemoryReadStore();
    await writeChunked(store, 'serials', serialDocs(serialTemplates, size));
    const random = seededRandom(size);
    // Half registered serials, half unknown ones: both paths must stay cheap.
    verify.push(await timeOperation(store, verifyOperation, size, settings.verifications, (i) => ({
      query: {}, path: { serial: i % 2 === 0 ? serialOf(Math.floor(random() * size)) : `NOPE-${i}` },
    })));
    await store.close();
  }
  return {
    catalogue_cold: cold, catalogue_warm: warm, verify,
    catalogue_cold_growth: growth(cold), catalogue_warm_growth: growth(warm), verify_growth: growth(verify),
  };
}

function growth(figures: SizeFigures[]): Growth {
  const first = figures[0];
  const last = figures.at(-1);
  if (!first || !last) return { size_ratio: Number.NaN, time_ratio: Number.NaN };
  return { size_ratio: last.size / first.size, time_ratio: ratio(last.p50_ms, first.p50_ms) };
}

async function writeChunked(store: ReadStore, collection: 'watches' | 'serials', docs: Iterable<WatchDoc | SerialDoc>): Promise<void> {
  let chunk: WriteOp[] = [];
  for (const doc of docs) {
    chunk.push({ put: doc });
    if (chunk.length === WRITE_CHUNK) {
      await store.write(collection, chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await store.write(collection, chunk);
}

/** `size` watches, each in both languages, made from the demo's documents with their own reference, name and price. */
function* watchDocs(templates: readonly WatchDoc[], size: number): Generator<WatchDoc> {
  const random = seededRandom(7);
  const perLanguage = templates.filter((doc) => doc.lang === 'en');
  for (let index = 0; index < size; index += 1) {
    const reference = `SC-${String(index).padStart(6, '0')}`;
    const price = 5_000_00 + Math.floor(random() * 200_000_00);
    const template = perLanguage[index % perLanguage.length]!;
    for (const lang of ['en', 'fr'] as const) {
      const source = templates.find((doc) => doc.lang === lang && doc.reference === template.reference) ?? template;
      const name = `${source.name} ${index}`;
      yield {
        ...source, _id: `${lang}:${reference}`, reference, name, price_cents: price, sort_name: fold(name),
        search_text: `${fold(name)} ${reference.toLowerCase()} ${source.search_text}`, position: 1,
      };
    }
  }
}

const serialOf = (index: number) => `SC-${String(index).padStart(9, '0')}`;

function* serialDocs(templates: readonly SerialDoc[], size: number): Generator<SerialDoc> {
  for (let index = 0; index < size; index += 1) {
    const serial = serialOf(index);
    yield { ...templates[index % templates.length]!, _id: serial, serial, position: 1 };
  }
}

async function timeOperation(
  readStore: ReadStore, operation: PublicOperation, size: number, calls: number, request: (i: number) => RawRequest,
  beforeEach?: () => Promise<void>,
): Promise<SizeFigures> {
  const validate = compileRequestValidator(operation.spec);
  const env = operationEnv(readStore);
  const times: number[] = [];
  // The first calls warm the code paths up and are not counted.
  const warmup = Math.min(20, calls);
  for (let i = 0; i < warmup + calls; i += 1) {
    await beforeEach?.();
    const started = performance.now();
    const answer = await operation.handle(validate(request(i)), env);
    const elapsed = performance.now() - started;
    if (answer.status !== 200) throw new Error(`${operation.spec.id} answered ${answer.status}`);
    if (i >= warmup) times.push(elapsed);
  }
  return { size, p50_ms: round(quantile(times, 0.5), 3), p99_ms: round(quantile(times, 0.99), 3) };
}

export function operationEnv(readStore: ReadStore): OperationEnv {
  const config = loadConfig({});
  return {
    readStore, config, operations: publicOperations,
    clock: { current: () => 0, updatedAt: null, projections: () => [] },
    health: () => 'ok',
    brand: publicBrand(config),
    now: new Date(),
  };
}
