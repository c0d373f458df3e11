/**
 * The MongoDB read store (at scale, `MONGODB_URL`). Same behaviour as the in-memory store. Each generation of a
 * projected collection is a collection of its own (`watches__g3`); readers follow the pointer document of
 * `checkpoints` to the live one, so a switch is one control-document write (no `renameCollection`, which FerretDB
 * lacks; control documents: mongodb-control-docs.ts). A write without `expected` follows the position rule, so a
 * replayed write changes nothing; a write with `expected` lands only on that exact position (or inserts, for none)
 * and a miss is a `WriteConflictError` (how each engine is asked: mongodb-documents.ts). A delete leaves a tombstone
 * (`_deleted: true`), which no read returns.
 */
import {
  MongoClient, MongoClientClosedError, MongoNetworkError, MongoNotConnectedError, MongoOperationTimeoutError, MongoServerError,
  MongoServerSelectionError, MongoTopologyClosedError, type Collection, type MongoClientOptions, type Filter as MongoFilter, type Sort as MongoSort,
} from 'mongodb';
import {
  GENERATION_DROP_DELAY_MS, GENERATIONS_ID, SNAPSHOT_TTL_MS, ReadStoreUnavailableError, SnapshotExpiredError, StaleGenerationError,
  checkFence, fenceIds, generationName, generationsAmong, liveGenerationOf,
  type ControlDoc, type FindOptions, type Filter, type GenerationStore, type ProjectedCollection, type ReadSnapshot, type ReadStore, type ReadView,
  type StoredDoc,
} from '../ports/read-store.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { ReadCollection } from '../read-model/documents/documents.ts';
import { READ_INDEXES } from '../read-model/documents/indexes.ts';
import { assertSafeFilter } from '../read-model/query/filter-guard.ts';
import { controlDocs } from './mongodb-control-docs.ts';
import { FERRETDB_DOCUMENTS, MONGODB_DOCUMENTS, liveDoc, type Stored } from './mongodb-documents.ts';

const NAMESPACE_NOT_FOUND = 26;
/** Readers reuse the pointer this long (well within a snapshot's life, SNAPSHOT_TTL_MS). */
const POINTER_TTL_MS = 50;
/** Added to every read: tombstones are for writers only. */
const LIVE_ONLY = { _deleted: { $exists: false } };

interface MongoReadStoreOptions {
  /** Milliseconds, for snapshot ages (a test's fake clock); default `performance.now`. */
  now?: () => number;
}

/**
 * The client's settings, over whatever `MONGODB_URL` asks. Every read goes to the primary, at its latest acknowledged
 * writes: the read-model clock takes a confirmation its previous poll did not see as written after that poll began
 * (shared/read-model/public-api/read-model-clock.ts), which a secondary's read (or an `available` one) breaks by its
 * replication lag, and a replica would then call fresh a registry older than its bound.
 */
export const READ_STORE_CLIENT_OPTIONS: MongoClientOptions = {
  serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000, readPreference: 'primary', readConcernLevel: 'local',
};

export async function createMongoReadStore(url: string, dbName: string, options: MongoReadStoreOptions = {}): Promise<ReadStore> {
  const now = options.now ?? (() => performance.now());
  const client = new MongoClient(url, READ_STORE_CLIENT_OPTIONS);
  await client.connect();
  const db = client.db(dbName);
  const ferretDb = await isFerretDb(db);
  const serialized = ferretDb ? (name: string) => serializer(`${url} ${dbName} ${name}`) : () => <T>(work: () => Promise<T>) => work();
  const documents = ferretDb ? FERRETDB_DOCUMENTS : MONGODB_DOCUMENTS;
  const control = db.collection<ControlDoc>('checkpoints');
  const controls = await controlDocs(control);
  const physical = (collection: ProjectedCollection, generation: number) => db.collection<Stored>(generationName(collection, generation));

  const readPointer = (): Promise<ControlDoc | null> => controls.read(GENERATIONS_ID);
  /**
   * The pointer the store's own reads share: one pointer read for up to `POINTER_TTL_MS`, one query in flight at
   * most. `sentAt` is when that read was sent: the generations it names are kept at least `GENERATION_DROP_DELAY_MS`
   * after it (a switch after it drops them that long after the switch).
   */
  let cached: { pointer: Promise<ControlDoc | null>; sentAt: number; live?: Promise<ReadView> } | undefined;
  const sharedPointer = (): NonNullable<typeof cached> => {
    const sentAt = now();
    if (!cached || sentAt - cached.sentAt > POINTER_TTL_MS) {
      const pointer = readPointer();
      cached = { pointer, sentAt };
      pointer.catch(() => { if (cached?.pointer === pointer) cached = undefined; });
    }
    return cached;
  };
  /**
   * Every control document in one read, and the generations its pointer names: reads that end within
   * `SNAPSHOT_TTL_MS` of it read those generations whole; a later read might meet a dropped (empty) collection, and
   * is checked (see `fresh` below). Never shared between callers: its control documents are this moment's.
   */
  const snapshot = async (): Promise<ReadSnapshot> => {
    const sentAt = now();
    const docs = await unreachableAsPortError(controls.readAll());
    const pointer = docs.find((doc) => doc._id === GENERATIONS_ID) ?? null;
    return { ...viewAt(pointer, sentAt, true), control: docs };
  };
  /**
   * The store's own reads (audits, tools): one read each, in the live generation of its moment, and never refused
   * for its length (a whole collection read may outlast a snapshot's life; nothing of it is mixed with another).
   */
  const live = (): Promise<ReadView> => {
    const entry = sharedPointer();
    return (entry.live ??= entry.pointer.then((pointer) => viewAt(pointer, entry.sentAt, false)));
  };
  const viewAt = (pointer: ControlDoc | null, sentAt: number, expires: boolean): ReadView => {
    const readable = (name: ReadCollection): Collection<Stored> =>
      name === 'checkpoints' ? (control as unknown as Collection<Stored>) : physical(name, liveGenerationOf(pointer, name));
    /**
     * What the read found. A read that ended more than `SNAPSHOT_TTL_MS` after the pointer read (a slow engine, a
     * busy machine) is checked by a pointer read sent after it: a generation still live then was never replaced
     * (generations only move forward), so it was whole all along. Only one replaced meanwhile refuses the read:
     * slowness alone never fails a request.
     */
    const fresh = async <T>(name: ReadCollection, read: Promise<T>): Promise<T> => {
      const found = await unreachableAsPortError(read);
      const age = now() - sentAt;
      if (!expires || age <= SNAPSHOT_TTL_MS || name === 'checkpoints') return found;
      if (liveGenerationOf(await readPointer(), name) !== liveGenerationOf(pointer, name)) throw new SnapshotExpiredError(age);
      return found;
    };
    return {
      find: <D extends StoredDoc>(name: ReadCollection, filter: Filter, options?: FindOptions) => fresh(name, find<D>(readable(name), filter, options)),
      count: async (name, filter) => {
        assertSafeFilter(filter);
        return fresh(name, readable(name).countDocuments({ ...filter, ...LIVE_ONLY } as MongoFilter<Stored>));
      },
      get: <D extends StoredDoc>(name: ReadCollection, id: string) => fresh<D | null>(name, documents.byId(readable(name), id).then((doc) => liveDoc(doc) as D | null)),
      getMany: <D extends StoredDoc>(name: ReadCollection, ids: string[]) =>
        fresh(name, documents.byIds(readable(name), ids).then((docs) => docs.filter((doc) => liveDoc(doc) !== null) as D[])),
    };
  };

  const pointer = await readPointer();
  for (const name of Object.keys(READ_INDEXES) as ReadCollection[]) {
    if (name !== 'checkpoints') await ensureIndexes(physical(name, liveGenerationOf(pointer, name)), name);
  }

  const generation = (collection: ProjectedCollection, number: number): GenerationStore => ({
    collection,
    generation: number,
    getStored: (ids) => documents.byIds(physical(collection, number), ids),
    find: <D extends StoredDoc>(filter: Filter, options?: FindOptions) => find<D>(physical(collection, number), filter, options),
    write: async (ops, options) => {
      // Checked before each bulk, the generation and the fence from one read of the pointer and the fence's
      // checkpoint (beside the bulk's own reads, before any write). A conditional update is not atomic across
      // processes here (FerretDB 1.x), so a writer paused between this read and its bulk may still land that one
      // bulk: in a generation nobody reads any more, or beyond the live checkpoint, which is refused to it (control
      // documents change by inserts under a unique key) and which bounds what the log signs.
      const admit = async () => {
        const control = await controls.readSome(fenceIds(options?.fence));
        const live = liveGenerationOf(control.get(GENERATIONS_ID) ?? null, collection);
        if (number < live) throw new StaleGenerationError(collection, number, live);
        checkFence((id) => control.get(id), options?.fence);
      };
      const name = generationName(collection, number);
      await serialized(name)(() => documents.write(physical(collection, number), ops, admit));
    },
  });
  const notLive = async (collection: ProjectedCollection, number: number): Promise<void> => {
    if (number === liveGenerationOf(await readPointer(), collection)) throw new Error(`generation ${number} of ${collection} is live`);
  };

  return {
    find: async <D extends StoredDoc>(name: ReadCollection, filter: Filter, options?: FindOptions) =>
      (await live()).find<D>(name, filter, options),
    count: async (name, filter) => (await live()).count(name, filter),
    get: async <D extends StoredDoc>(name: ReadCollection, id: string) => (await live()).get<D>(name, id),
    getMany: async <D extends StoredDoc>(name: ReadCollection, ids: string[]) => (await live()).getMany<D>(name, ids),
    snapshot,
    write: async (name, ops) => generation(name, liveGenerationOf(await readPointer(), name)).write(ops),
    generation,
    resetGeneration: async (collection, number) => {
      await notLive(collection, number);
      await dropIfExists(physical(collection, number));
      await db.createCollection(generationName(collection, number));
      await ensureIndexes(physical(collection, number), collection);
    },
    dropGeneration: async (collection, number) => {
      await notLive(collection, number);
      // Readers that read the pointer just before a switch may still be on this generation: their snapshots
      // expire (SNAPSHOT_TTL_MS) well before it goes.
      await delay(GENERATION_DROP_DELAY_MS);
      await dropIfExists(physical(collection, number));
    },
    storedGenerations: async (collection) =>
      generationsAmong(collection, (await db.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name)),
    readControl: () => controls.readAll(),
    setControl: async (doc, condition, insertIfAbsent, onWritten) => {
      // This process sees its own switch at once; others within POINTER_TTL_MS.
      if (doc._id === GENERATIONS_ID) cached = undefined;
      return controls.set(doc, condition, insertIfAbsent, onWritten);
    },
    removeControl: (id) => controls.remove(id),
    ping: async () => {
      await db.command({ ping: 1 });
    },
    close: () => client.close(),
  };
}

/** The driver's errors that say the engine could not be reached or did not answer, as the port's own error. */
async function unreachableAsPortError<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    const unreachable = error instanceof MongoNetworkError || error instanceof MongoServerSelectionError
      || error instanceof MongoNotConnectedError || error instanceof MongoTopologyClosedError
      || error instanceof MongoClientClosedError || error instanceof MongoOperationTimeoutError;
    throw unreachable ? new ReadStoreUnavailableError(error) : error;
  }
}

/**
 * FerretDB 1.24 applies an update as a read, then a write outside any transaction (FerretDB#3040): two conditional
 * writes racing on one document may both match. MongoDB updates one document atomically. On FerretDB this
 * process's conditional writes of projected documents to one collection therefore run one at a time (those to
 * different collections, of different projections, need not wait for one another: issue 44); across
 * processes the guarantee is MongoDB's only (ARCHITECTURE.md, "Guarantees in detail": the window it leaves to a
 * projector frozen past its lease). Control documents do not depend on it: they change by inserts under a unique
 * key (mongodb-control-docs.ts).
 */
async function isFerretDb(db: ReturnType<MongoClient['db']>): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return typeof info['ferretdbVersion'] === 'string';
}

const queues = new Map<string, Promise<unknown>>();

function serializer(key: string): <T>(work: () => Promise<T>) => Promise<T> {
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = (queues.get(key) ?? Promise.resolve()).then(work, work);
    const settled = run.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => { if (queues.get(key) === settled) queues.delete(key); });
    return run;
  };
}

/**
 * One `createIndexes` per index: the same for MongoDB (an index that exists is left as it is), and FerretDB 1.24
 * drops the connection when one command names several existing indexes of different lengths (every start after
 * the first).
 */
async function ensureIndexes(collection: Collection<Stored>, name: ReadCollection): Promise<void> {
  for (const { key } of READ_INDEXES[name]) await collection.createIndexes([{ key }]);
}

async function dropIfExists(collection: Collection<Stored>): Promise<void> {
  try {
    await collection.drop();
  } catch (error) {
    if (!(error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND)) throw error;
  }
}

async function find<D extends StoredDoc>(collection: Collection<Stored>, filter: Filter, options: FindOptions = {}): Promise<D[]> {
  assertSafeFilter(filter);
  let cursor = collection.find({ ...filter, ...LIVE_ONLY } as MongoFilter<Stored>);
  if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort as MongoSort);
  if (options.skip) cursor = cursor.skip(options.skip);
  if (options.limit) cursor = cursor.limit(options.limit);
  return (await cursor.toArray()) as D[];
}
