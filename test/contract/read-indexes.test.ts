/**
 * Every query the read API and the projections make is served by a declared index (issue 20, "bounded work").
 * The queries are not written out here: they are recorded from the public operations answering a range of requests
 * and from every projection applying a history (its `touches` filters and loads by id), so a new query is checked
 * as soon as the code makes it.
 * - On every run: each recorded query against the declared indexes (shared/read-model/documents/indexes.ts) by the ESR rule
 *   of test/support/index-rule.ts.
 * - On the MongoDB leg: each query's `explain`. MongoDB shows the plan it picks, which must read through an index
 *   (no COLLSCAN). FerretDB 1.24 answers `explain` with its SQLite plan and `filterPushdown: false` for all of these
 *   queries (it filters in its own process, whatever the indexes), so there the test checks that the engine accepts
 *   each query and holds every declared index, and the rule above is the proof; the test prints which check ran.
 */
import { expect } from 'chai';
import { MongoClient, type Document } from 'mongodb';
import { collectionDefined, serialRegistered, watchPriceChanged, watchPublished, watchWithdrawn } from '../fixtures/events.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { publicBrand } from '../../shared/brand.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { FIRST_GENERATION, type Filter, type FindOptions, type ReadStore, type Sort, type StoredDoc } from '../../shared/ports/read-store.ts';
import { projectBatch } from '../../shared/read-model/projections/batch.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { catalogueOperation } from '../../shared/read-model/public-api/operations/catalogue.operation.ts';
import { collectionsOperation } from '../../shared/read-model/public-api/operations/collections.operation.ts';
import { optionsOperation } from '../../shared/read-model/public-api/operations/options.operation.ts';
import type { OperationEnv, PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { watchDetailOperation } from '../../shared/read-model/public-api/operations/watch-detail.operation.ts';
import { compileRequestValidator, type RawRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import type { ReadCollection } from '../../shared/read-model/documents/documents.ts';
import { LOOKUP_FIELDS, READ_INDEXES } from '../../shared/read-model/documents/indexes.ts';
import { loadFixtureCatalogue } from '../api/support/catalogue-fixture.ts';
import { servingIndex } from '../support/index-rule.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { event, positioned } from '../unit/projections/support/projection-spec.ts';

interface RecordedQuery { collection: ReadCollection; filter: Filter; sort?: Sort; limit?: number; kind: 'find' | 'count'; by: string }

/** Catalogue requests covering each filter, each order, short and long search terms, and their combinations. */
const CATALOGUE_REQUESTS: RawRequest['query'][] = [
  {}, { sort: 'price_asc' }, { sort: 'price_desc', lang: 'fr' }, { sort: 'collection', offset: '2' },
  { collection: 'REGATE' }, { collection: 'regate', sort: 'price_desc' },
  { search: 'edition' }, { search: 'Régate chrono', sort: 'price_asc' }, { search: 'or' }, { search: 'é', sort: 'collection' },
  { search: '(a+)+$' }, { search: '$where' },
  { min_price: '10000', max_price: '30000' }, { min_price: '10000', sort: 'price_asc' }, { max_price: '20000', sort: 'price_desc' },
  { in_stock: 'true' }, { in_stock: 'true', sort: 'price_asc' },
  { collection: 'heritage', search: 'seconde', in_stock: 'true', min_price: '1000', sort: 'collection', lang: 'fr', offset: '1' },
];

const OTHER_REQUESTS: [PublicOperation, RawRequest][] = [
  [collectionsOperation, { query: { lang: 'fr' }, path: {} }],
  [watchDetailOperation, { query: {}, path: { reference: 'rg-100' } }],
  [optionsOperation, { query: {}, path: { collection: 'regate' } }],
  [verifyOperation, { query: {}, path: { serial: 'aur-0001' } }],
];

/** A history with every event that reaches documents other than by a known id: renames, price moves, withdrawals. */
const HISTORY = positioned([
  collectionDefined('tempo'), collectionDefined('aero'),
  watchPublished('TMP-1', 'tempo', { customizable: true }), watchPublished('TMP-2', 'tempo'), watchPublished('AER-1', 'aero'),
  serialRegistered('TMP-0001', { reference: 'TMP-1', collection: 'tempo' }),
  serialRegistered('AER-0001', { reference: 'AER-1', collection: 'aero' }),
  watchPriceChanged('TMP-1', 150_000, 100_000), watchPriceChanged('AER-1', 90_000, 100_000),
  event('CollectionRevised', { code: 'tempo', name: { en: 'Tempo II', fr: 'Tempo II' } }),
  event('WatchRevised', { reference: 'TMP-1', name: { en: 'One', fr: 'Un' }, customizable: false }),
  event('ConfiguratorOptionOffered', { collection: 'tempo', category: 'dial', code: 'blue', label: { en: 'Blue', fr: 'Bleu' }, price_cents: 0 }),
  watchWithdrawn('TMP-2'),
]);

/** A store that records every query, with the name of what made it. */
function recording(inner: ReadStore, queries: RecordedQuery[], by: () => string): ReadStore {
  const byId = (collection: ReadCollection, ids: string[]) =>
    queries.push({ collection, filter: { _id: ids.length === 1 ? ids[0] : { $in: ids } }, kind: 'find', by: by() });
  return {
    ...inner,
    find: <D extends StoredDoc>(collection: ReadCollection, filter: Filter, options: FindOptions = {}) => {
      queries.push({ collection, filter, sort: options.sort, limit: options.limit, kind: 'find', by: by() });
      return inner.find<D>(collection, filter, options);
    },
    count: (collection, filter) => {
      queries.push({ collection, filter, kind: 'count', by: by() });
      return inner.count(collection, filter);
    },
    get: <D extends StoredDoc>(collection: ReadCollection, id: string) => {
      byId(collection, [id]);
      return inner.get<D>(collection, id);
    },
    getMany: <D extends StoredDoc>(collection: ReadCollection, ids: string[]) => {
      byId(collection, ids);
      return inner.getMany<D>(collection, ids);
    },
    // What the projector and the rebuild read: a generation's documents and tombstones by id, and by filter.
    generation: (collection, number) => {
      const generation = inner.generation(collection, number);
      return {
        ...generation,
        collection,
        generation: number,
        getStored: (ids) => {
          byId(collection, ids);
          return generation.getStored(ids);
        },
        find: <D extends StoredDoc>(filter: Filter, options: FindOptions = {}) => {
          queries.push({ collection, filter, sort: options.sort, limit: options.limit, kind: 'find', by: by() });
          return generation.find<D>(filter, options);
        },
      };
    },
  };
}

function operationEnv(readStore: ReadStore): OperationEnv {
  const config = loadConfig({});
  return {
    readStore, config, operations: publicOperations, brand: publicBrand(config),
    clock: { current: () => 0, updatedAt: null, projections: () => [] }, health: () => 'ok', now: new Date(),
  };
}

async function recordedQueries(): Promise<RecordedQuery[]> {
  const queries: RecordedQuery[] = [];
  let by = '';
  const api = createMemoryReadStore();
  await loadFixtureCatalogue(api);
  const env = operationEnv(recording(api, queries, () => by));
  const requests: [PublicOperation, RawRequest][] = [
    ...CATALOGUE_REQUESTS.map((query): [PublicOperation, RawRequest] => [catalogueOperation, { query, path: {} }]),
    ...OTHER_REQUESTS,
  ];
  for (const [operation, request] of requests) {
    by = `${operation.spec.id} ${JSON.stringify(request.query)} ${JSON.stringify(request.path)}`;
    const answer = await operation.handle(compileRequestValidator(operation.spec)(request), env);
    expect(answer.status, by).to.equal(200);
  }
  const store = recording(createMemoryReadStore(), queries, () => by);
  for (const projection of PROJECTIONS) {
    by = `${projection.name} projection`;
    // One batch per event, and the whole history as one batch: the runner and the rebuild load both ways.
    for (const batch of [...HISTORY.map((one) => [one]), HISTORY]) {
      const ops = await projectBatch(projection, batch, store.generation(projection.collection, FIRST_GENERATION));
      if (batch.length === 1) await store.write(projection.collection, ops);
    }
  }
  return queries;
}

const describeQuery = (query: RecordedQuery) =>
  `${query.kind} ${query.collection} ${JSON.stringify(query.filter)}${query.sort ? ` sort ${JSON.stringify(query.sort)}` : ''} (${query.by})`;

describe('read indexes: every query of the read API and the projections is served by a declared index', () => {
  let queries: RecordedQuery[];
  before(async () => { queries = await recordedQueries(); });

  it('records the queries of the search, a collection rename, a watch rename and the collections figures', () => {
    const fields = new Set(queries.flatMap((query) => Object.keys(query.filter).map((field) => `${query.collection}.${field}`)));
    for (const field of ['watches.search_grams', 'watches.collection.code', 'serials.reference', 'collections.member_of']) {
      expect([...fields], 'fields queried').to.include(field);
    }
  });

  it('has the in-memory store look documents up by fields the declared indexes lead with', () => {
    for (const [collection, fields] of Object.entries(LOOKUP_FIELDS) as [ReadCollection, readonly string[]][]) {
      const indexed = READ_INDEXES[collection].flatMap((index) => Object.keys(index.key));
      for (const field of fields) expect(indexed, `${collection}.${field}`).to.include(field);
    }
  });

  it('finds for each query an index whose key is its equalities, then its sort, then a range (ESR)', () => {
    const unserved = queries.filter((query) => !servingIndex(READ_INDEXES[query.collection], query)).map(describeQuery);
    expect(unserved, 'queries no declared index serves').to.deep.equal([]);
  });
});

describeMongo('read indexes on MongoDB', 'the explain of every query against the MongoDB leg', (leg) => {
  it('answers every query of the read API as the in-memory store does (search by grams included)', async function () {
    this.timeout(60_000);
    const queries = (await recordedQueries()).filter((query) => query.by.startsWith('get'));
    const memory = createMemoryReadStore();
    const mongo = await createMongoReadStore(leg.url, leg.database('alike'));
    try {
      await loadFixtureCatalogue(memory);
      await loadFixtureCatalogue(mongo);
      for (const query of queries) {
        const answer = async (store: ReadStore) => (query.kind === 'count'
          ? store.count(query.collection, query.filter)
          : (await store.find(query.collection, query.filter, { sort: query.sort, limit: query.limit })).map((doc) => doc._id));
        expect(await answer(mongo), describeQuery(query)).to.deep.equal(await answer(memory));
      }
    } finally {
      await mongo.close();
      await memory.close();
    }
  });

  it('runs every query through an index (MongoDB: explain; FerretDB: the engine accepts each and holds every index)', async function () {
    this.timeout(120_000);
    const database = leg.database('indexes');
    const queries = await recordedQueries();
    const store = await createMongoReadStore(leg.url, database);
    const client = await MongoClient.connect(leg.url, { serverSelectionTimeoutMS: 5_000 });
    try {
      await loadFixtureCatalogue(store);
      const db = client.db(database);
      const engine = await leg.engine();
      const collectionNames = (await db.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name);
      // The live collection of a logical name (a generation-named one where the adapter names them so).
      const physical = (name: ReadCollection) => collectionNames.find((candidate) => candidate === name)
        ?? collectionNames.filter((candidate) => candidate.startsWith(`${name}_`)).sort().at(-1) ?? name;
      const plans: string[] = [];
      for (const query of queries) {
        const collection = db.collection(physical(query.collection));
        const explained: Document = query.kind === 'count'
          ? await db.command({ explain: { count: collection.collectionName, query: query.filter }, verbosity: 'queryPlanner' })
          : await collection.find(query.filter, { sort: query.sort, limit: query.limit }).explain('queryPlanner');
        expect(explained['ok'], describeQuery(query)).to.equal(1);
        if (engine.name === 'MongoDB') {
          const plan = JSON.stringify(explained['queryPlanner']?.['winningPlan']);
          expect(plan, describeQuery(query)).to.not.include('"COLLSCAN"');
        } else {
          plans.push(`${JSON.stringify(explained['queryPlanner'])} pushdown ${String(explained['filterPushdown'])}`);
        }
      }
      if (engine.name === 'MongoDB') {
        console.log(`      explain check ran on MongoDB ${engine.version}: ${queries.length} queries, none scans a collection`);
        return;
      }
      for (const name of Object.keys(READ_INDEXES) as ReadCollection[]) {
        const held = (await db.collection(physical(name)).listIndexes().toArray()).map((index) => JSON.stringify(index['key']));
        for (const { key } of READ_INDEXES[name]) expect(held, `indexes of ${name}`).to.include(JSON.stringify(key));
      }
      console.log(`      on FerretDB ${engine.version} explain cannot show index use (${new Set(plans).size} distinct answers, e.g. `
        + `${plans[0]}): checked that it accepts all ${queries.length} queries and holds every declared index; the ESR rule is the proof`);
    } finally {
      await client.close();
      await store.close();
    }
  });
});
