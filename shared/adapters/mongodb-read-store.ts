/**
 * The MongoDB read store (at scale, `MONGODB_URL`). Same behaviour as the in-memory store: the position rule is the
 * filter of every write (`{_id, position: {$lt: p}}`), so a replayed write matches nothing and changes nothing;
 * a `put` upserts, and the duplicate-key error it then meets when a newer document is stored is the rule holding,
 * not a failure. A rebuild writes to a fresh collection and `renameCollection` (atomic, `dropTarget`) swaps it in.
 */
import {
  MongoBulkWriteError, MongoClient, type AnyBulkWriteOperation, type Collection, type Db,
  type Filter as MongoFilter, type Sort as MongoSort,
} from 'mongodb';
import type { FindOptions, Filter, ReadStore, RebuildTarget, StoredDoc, WriteOp } from '../ports/read-store.ts';
import type { ReadCollection } from '../read-models/documents.ts';
import { READ_INDEXES } from '../read-models/indexes.ts';
import { assertSafeFilter } from '../query/filter-guard.ts';

const DUPLICATE_KEY = 11000;

export async function createMongoReadStore(url: string, dbName: string): Promise<ReadStore> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  await client.connect();
  const db = client.db(dbName);
  const live = (name: ReadCollection) => db.collection<StoredDoc>(name);
  await Promise.all((Object.keys(READ_INDEXES) as ReadCollection[]).map((name) => ensureIndexes(live(name), name)));

  return {
    find: <D extends StoredDoc>(name: ReadCollection, filter: Filter, options?: FindOptions) =>
      find<D>(live(name), filter, options),
    count: async (name, filter) => {
      assertSafeFilter(filter);
      return live(name).countDocuments(filter as MongoFilter<StoredDoc>);
    },
    get: <D extends StoredDoc>(name: ReadCollection, id: string) => get<D>(live(name), id),
    getMany: <D extends StoredDoc>(name: ReadCollection, ids: string[]) => getMany<D>(live(name), ids),
    write: (name, ops) => write(live(name), ops),
    beginRebuild: (name) => beginRebuild(db, name),
    ping: async () => {
      await db.command({ ping: 1 });
    },
    close: () => client.close(),
  };
}

/**
 * One `createIndexes` per index: the same for MongoDB (an index that exists is left as it is), and FerretDB 1.24
 * drops the connection when one command names several existing indexes of different lengths (every start after
 * the first).
 */
async function ensureIndexes(collection: Collection<StoredDoc>, name: ReadCollection): Promise<void> {
  for (const { key } of READ_INDEXES[name]) await collection.createIndexes([{ key }]);
}

async function find<D extends StoredDoc>(collection: Collection<StoredDoc>, filter: Filter, options: FindOptions = {}): Promise<D[]> {
  assertSafeFilter(filter);
  let cursor = collection.find(filter as MongoFilter<StoredDoc>);
  if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort as MongoSort);
  if (options.skip) cursor = cursor.skip(options.skip);
  if (options.limit) cursor = cursor.limit(options.limit);
  return (await cursor.toArray()) as D[];
}

async function get<D extends StoredDoc>(collection: Collection<StoredDoc>, id: string): Promise<D | null> {
  return (await collection.findOne({ _id: id })) as D | null;
}

/** In the order of `ids`, leaving out those not stored, as the in-memory store answers. */
async function getMany<D extends StoredDoc>(collection: Collection<StoredDoc>, ids: string[]): Promise<D[]> {
  if (ids.length === 0) return [];
  const docs = await collection.find({ _id: { $in: ids } }).toArray();
  const byId = new Map(docs.map((doc) => [doc._id, doc as D]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Writes per bulk command. Ordered bulks in a row apply exactly as one (an ordered bulk is not atomic either), and
 * FerretDB 1.24 stalls for minutes on one `update` command of about a hundred replacements of existing documents.
 */
const BULK_CHUNK = 25;

/**
 * Ordered, so that several writes to one document apply in order. An ordered bulk stops at its first error: a
 * duplicate key there is a skipped `put`, so the rest is sent again from the write after it.
 */
async function write(collection: Collection<StoredDoc>, ops: WriteOp[]): Promise<void> {
  const writes = ops.map(toBulkWrite);
  let start = 0;
  while (start < writes.length) {
    const chunk = writes.slice(start, start + BULK_CHUNK);
    try {
      await collection.bulkWrite(chunk, { ordered: true });
      start += chunk.length;
    } catch (error) {
      const failed = duplicateKeyIndex(error);
      if (failed === undefined) throw error;
      start += failed + 1;
    }
  }
}

function toBulkWrite(op: WriteOp): AnyBulkWriteOperation<StoredDoc> {
  if ('put' in op) {
    const { _id, position } = op.put;
    return { replaceOne: { filter: { _id, position: { $lt: position } }, replacement: op.put, upsert: true } };
  }
  const { _id, position } = op.delete;
  return { deleteOne: { filter: { _id, position: { $lt: position } } } };
}

/** The index in the bulk of the write that failed on a duplicate key, or undefined for any other error. */
function duplicateKeyIndex(error: unknown): number | undefined {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  const [first] = errors;
  if (errors.length !== 1 || !first || first.code !== DUPLICATE_KEY || error.err) return undefined;
  return first.index;
}

async function beginRebuild(db: Db, name: ReadCollection): Promise<RebuildTarget> {
  const generation = db.collection<StoredDoc>(`${name}__rebuild_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`);
  await db.createCollection(generation.collectionName);
  await ensureIndexes(generation, name);
  let open = true;
  const live = (): Collection<StoredDoc> => {
    if (!open) throw new Error('this rebuild generation was already switched to or abandoned');
    return generation;
  };
  return {
    write: (ops) => write(live(), ops),
    get: <D extends StoredDoc>(id: string) => get<D>(live(), id),
    getMany: <D extends StoredDoc>(ids: string[]) => getMany<D>(live(), ids),
    find: <D extends StoredDoc>(filter: Filter, options?: FindOptions) => find<D>(live(), filter, options),
    switchTo: async () => {
      await live().rename(name, { dropTarget: true });
      open = false;
    },
    abandon: async () => {
      if (!open) return;
      open = false;
      await generation.drop();
    },
  };
}
