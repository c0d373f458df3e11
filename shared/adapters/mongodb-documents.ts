/**
 * How the MongoDB read store reads projected documents by id and writes bulks of them, per engine. FerretDB 1.24 (its
 * SQLite backend) hands a filter of `_id` alone down to SQLite (its `explain`: `filterPushdown`), and reads and
 * decodes every document of the collection itself for any other filter (`{_id, _deleted}`, `{_id: {$in}}`,
 * `{_id, position}`), in reads and in updates alike: on the demo catalogue a serial's verification, a stolen report's
 * read of its serial and its write each decoded the 2,100 serials, tens to hundreds of milliseconds apiece (issue
 * 44). SQLite does not use the `_id` index for it either (the index is on `->'_id'`, the pushdown asks for
 * `->'$._id'`), but it scans the rows' text some 50 times faster than FerretDB decodes them: a lookup by id took 6 ms
 * among 2,000 documents and 52 ms among 30,000 on a busy machine, so it still grows with the collection there. So on
 * FerretDB a lookup names `_id` alone (a batch of many ids is read at once: see `LOOKUPS_MAX`), and what the other
 * filters said (a tombstone is no answer; a write's position rule or compare-and-set) is judged here first; a
 * replacement still names the position it replaces, for FerretDB to judge too (see `storeOver`). MongoDB answers
 * every one of those filters from the `_id` index: there, one query or one bulk as before.
 */
import { MongoBulkWriteError, MongoServerError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import { WriteConflictError, type StoredDoc, type Tombstone, type WriteOp } from '../ports/read-store.ts';
import { DUPLICATE_KEY } from './mongodb-control-docs.ts';

export type Stored = StoredDoc | Tombstone;

export interface DocumentAccess {
  /** The document or tombstone stored under `id`, or null. */
  byId(collection: Collection<Stored>, id: string): Promise<Stored | null>;
  /** Documents and tombstones by id, in the order of `ids`, leaving out those not stored (as the in-memory store answers). */
  byIds(collection: Collection<Stored>, ids: string[]): Promise<Stored[]>;
  /**
   * Applies `ops` in order, as `WriteOp` says (read-store.ts), once `admit` resolved (it throws to refuse them all:
   * the generation and fence check); reads that decide nothing may run beside it.
   */
  write(collection: Collection<Stored>, ops: WriteOp[], admit: () => Promise<void>): Promise<void>;
}

/** The document a read answers: none for a tombstone. */
export const liveDoc = (doc: Stored | null): StoredDoc | null => (doc === null || '_deleted' in doc ? null : doc);

const byId = (collection: Collection<Stored>, id: string): Promise<Stored | null> => collection.findOne({ _id: id });

export const MONGODB_DOCUMENTS: DocumentAccess = {
  byId,
  async byIds(collection, ids) {
    if (ids.length === 0) return [];
    const docs = await collection.find({ _id: { $in: ids } }).toArray();
    const found = new Map(docs.map((doc) => [doc._id, doc]));
    return ids.flatMap((id) => found.get(id) ?? []);
  },
  async write(collection, ops, admit) {
    await admit();
    await writeInBulks(collection, ops);
  },
};

/**
 * Up to this many ids, FerretDB is asked for each by `_id` alone (an admin change touches one to three documents);
 * above, for all at once, decoding the whole collection once: a lookup scans it some 50 times faster than that
 * decoding, whatever its size (2,000 lookups took 14 s against one read of 2,100 documents in 0.3 s, on two busy
 * cores), so a catch-up's batch of thousands reads the collection once.
 */
const LOOKUPS_MAX = 16;

export const FERRETDB_DOCUMENTS: DocumentAccess = {
  byId,
  async byIds(collection, ids) {
    if (ids.length > LOOKUPS_MAX) return MONGODB_DOCUMENTS.byIds(collection, ids);
    const found = await Promise.all(ids.map((id) => byId(collection, id)));
    return found.filter((doc): doc is Stored => doc !== null);
  },
  write: writeOneByOne,
};

/**
 * Writes per bulk command. Ordered bulks in a row apply exactly as one (an ordered bulk is not atomic either), and
 * FerretDB 1.24 stalls for minutes on one `update` command of about a hundred replacements of existing documents.
 */
const BULK_CHUNK = 25;

/**
 * Ordered, so that several writes to one document apply in order. A compare-and-set write that matches nothing
 * does not stop an ordered bulk, so each bulk is checked by its counts: a bulk of compare-and-set writes must
 * match or insert every one of them (runs of the two kinds go in separate bulks). A position-rule upsert that
 * meets a duplicate key found a document stored meanwhile (another writer inserted it): it is sent again as a
 * plain replacement, which lands only if it is still the newer one.
 */
async function writeInBulks(collection: Collection<Stored>, ops: WriteOp[]): Promise<void> {
  let start = 0;
  while (start < ops.length) {
    const checked = ops[start]!.expected !== undefined;
    let end = start;
    while (end < ops.length && end - start < BULK_CHUNK && (ops[end]!.expected !== undefined) === checked) end += 1;
    const chunk = ops.slice(start, end);
    if (checked) await writeChecked(collection, chunk);
    else await writeByPosition(collection, chunk);
    start = end;
  }
}

async function writeChecked(collection: Collection<Stored>, ops: WriteOp[]): Promise<void> {
  let result;
  try {
    result = await collection.bulkWrite(ops.map(checkedWrite), { ordered: true });
  } catch (error) {
    const failed = duplicateKeyIndex(error);
    if (failed === undefined) throw error;
    throw new WriteConflictError(idOf(ops[failed]!), 'inserted by another writer');
  }
  if (result.matchedCount + result.insertedCount !== ops.length) {
    throw new WriteConflictError(ops.map(idOf).join(', '), 'another writer changed one of these documents');
  }
}

async function writeByPosition(collection: Collection<Stored>, ops: WriteOp[]): Promise<void> {
  let start = 0;
  while (start < ops.length) {
    const chunk = ops.slice(start);
    try {
      await collection.bulkWrite(chunk.map((op) => positionWrite(op, true)), { ordered: true });
      return;
    } catch (error) {
      const failed = duplicateKeyIndex(error);
      if (failed === undefined) throw error;
      await collection.bulkWrite([positionWrite(chunk[failed]!, false)]);
      start += failed + 1;
    }
  }
}

/**
 * FerretDB: the writes in order, each judged here first on what is stored: a compare-and-set lands only on the
 * position it expected (else the batch fails with a `WriteConflictError`, the writes before it applied, as in
 * bulks), a position-rule write only over an older state. A compare-and-set on a stored document reads it first by
 * `_id` alone (all of them at once, beside `admit`), then replaces it on the position read (`storeOver`), which
 * FerretDB judges again as it writes, so a read gone stale meanwhile (another writer, or this one frozen past its
 * lease) writes nothing; a run of such replacements, each of its own document, goes at once. A document expected
 * absent, or whose state is unknown (a position-rule write: a rebuild's, into a new generation), is inserted, a run
 * of them in one ordered bulk (a catch-up's new serials); a duplicate key says it is stored after all (another
 * writer's, for a compare-and-set: a conflict), and that one is read and judged. This process's writes to one collection run one at a time (the store's serializer); across
 * processes the lease and its fence keep one writer per projection, and the conditions above keep a fenced one
 * from landing a write its fence check let through before it was frozen.
 */
async function writeOneByOne(collection: Collection<Stored>, ops: WriteOp[], admit: () => Promise<void>): Promise<void> {
  /** What is stored under an id, as far as known: null for nothing; no entry while unknown. */
  const stored = new Map<string, Stored | null>();
  const compared = [...new Set(ops.filter((op) => typeof op.expected === 'number').map(idOf))];
  for (const id of compared) stored.set(id, null);
  const [, found] = await Promise.all([admit(), FERRETDB_DOCUMENTS.byIds(collection, compared)]);
  for (const doc of found) stored.set(doc._id, doc);
  const isStored = (op: WriteOp) => (stored.get(idOf(op)) ?? null) !== null;
  for (let at = 0; at < ops.length;) {
    const run = runAt(ops, at, (op) => typeof op.expected !== 'number' && !isStored(op));
    const inserted = run > 1 ? await insertRun(collection, ops.slice(at, at + run).map(replacementOf), stored) : 0;
    at += inserted;
    if (inserted === run && run > 1) continue;
    const replacements = runAt(ops, at, (op) => typeof op.expected === 'number' && isStored(op));
    if (replacements > 1) {
      await replaceAtOnce(collection, ops.slice(at, at + replacements), stored);
      at += replacements;
      continue;
    }
    const op = ops[at]!;
    const doc = replacementOf(op);
    const current = stored.get(doc._id) ?? null;
    stored.set(doc._id, op.expected === undefined ? await byPositionRule(collection, doc, current) : await compareAndSet(collection, doc, current, op.expected));
    at += 1;
  }
}

/** How many writes from `at` on are of the kind `fits` says, each of its own document (at most a bulk). */
function runAt(ops: WriteOp[], at: number, fits: (op: WriteOp) => boolean): number {
  const ids = new Set<string>();
  let end = at;
  while (end < ops.length && end - at < BULK_CHUNK) {
    const op = ops[end]!;
    const id = idOf(op);
    if (!fits(op) || ids.has(id)) break;
    ids.add(id);
    end += 1;
  }
  return end - at;
}

/**
 * Compare-and-set replacements of stored documents, each of its own (a price change: a watch in each language): their
 * order changes nothing, so they are sent at once rather than one round trip after another. A conflict on one leaves
 * the others written, as a conflict in a run leaves those before it (shared/ports/read-store.ts, `WriteOp`), and is
 * thrown once none is still in flight.
 */
async function replaceAtOnce(collection: Collection<Stored>, ops: WriteOp[], stored: Map<string, Stored | null>): Promise<void> {
  const outcomes = await Promise.allSettled(ops.map(async (op) => {
    const doc = replacementOf(op);
    stored.set(doc._id, await compareAndSet(collection, doc, stored.get(doc._id) ?? null, op.expected as number));
  }));
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Inserts `docs` in one ordered bulk; how many were inserted before one met a duplicate key (all, without one). */
async function insertRun(collection: Collection<Stored>, docs: Stored[], stored: Map<string, Stored | null>): Promise<number> {
  let inserted = docs.length;
  try {
    await collection.insertMany(docs, { ordered: true });
  } catch (error) {
    const failed = duplicateKeyIndex(error);
    if (failed === undefined) throw error;
    inserted = failed;
  }
  for (const doc of docs.slice(0, inserted)) stored.set(doc._id, doc);
  return inserted;
}

async function compareAndSet(collection: Collection<Stored>, doc: Stored, current: Stored | null, expected: number | null): Promise<Stored> {
  if ((current?.position ?? null) !== expected || !(await storeOver(collection, doc, current))) {
    throw new WriteConflictError(doc._id, 'another writer changed this document');
  }
  return doc;
}

/** What is stored once the rule was applied: `doc`, or what already reflected the same or a later position. */
async function byPositionRule(collection: Collection<Stored>, doc: Stored, current: Stored | null): Promise<Stored> {
  let seen = current;
  while (seen === null || seen.position < doc.position) {
    if (await storeOver(collection, doc, seen)) return doc;
    seen = await byId(collection, doc._id);
  }
  return seen;
}

/**
 * Inserts `doc` (nothing was stored) or replaces `current`; false when another writer got there first. The
 * replacement names the position it replaces, for FerretDB to judge when it writes: judged here alone, on a read
 * this process made earlier, a writer frozen between that read and its write (past its lease, SIGSTOP in
 * test/reliability/scale-topology.test.ts) replaced on resuming the newer documents of the worker that took over
 * with older ones. The price: FerretDB does not hand that filter down to SQLite, it decodes the collection up to the
 * document (all of it on a conflict), several times a replacement by `_id` alone for a document late in a large
 * collection (issue 44); a fenced writer writing nothing is not negotiable. FerretDB itself reads, then writes: a
 * replacement landing while another of the same document from the same position is on its way both match, and the
 * later stays (ARCHITECTURE.md, "Guarantees in detail").
 */
async function storeOver(collection: Collection<Stored>, doc: Stored, current: Stored | null): Promise<boolean> {
  if (current === null) {
    try {
      await collection.insertOne(doc);
      return true;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
      throw error;
    }
  }
  return (await collection.replaceOne({ _id: doc._id, position: current.position }, doc)).matchedCount === 1;
}

const idOf = (op: WriteOp): string => ('put' in op ? op.put._id : op.delete._id);

const replacementOf = (op: WriteOp): Stored =>
  'put' in op ? op.put : { _id: op.delete._id, position: op.delete.position, _deleted: true };

function checkedWrite(op: WriteOp): AnyBulkWriteOperation<Stored> {
  const replacement = replacementOf(op);
  if (op.expected === null || op.expected === undefined) return { insertOne: { document: replacement } };
  return { replaceOne: { filter: { _id: replacement._id, position: op.expected }, replacement } };
}

function positionWrite(op: WriteOp, upsert: boolean): AnyBulkWriteOperation<Stored> {
  const replacement = replacementOf(op);
  return { replaceOne: { filter: { _id: replacement._id, position: { $lt: replacement.position } }, replacement, upsert } };
}

/** The index in the bulk of the write that failed on a duplicate key, or undefined for any other error. */
function duplicateKeyIndex(error: unknown): number | undefined {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  const [first] = errors;
  if (errors.length !== 1 || !first || first.code !== DUPLICATE_KEY || error.err) return undefined;
  return first.index;
}
