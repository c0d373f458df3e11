/**
 * The read store port: MongoDB at scale, an in-memory store queried with mingo by default. Both evaluate the very
 * same MongoDB filter and sort documents, so the read API builds one query and either engine answers it alike.
 * The contract suite in test/contract proves the two behave the same.
 */
import type { ReadCollection } from '../read-models/documents.ts';

/** A MongoDB query filter. Built by this service's code only; never taken from a request as it is. */
export type Filter = Record<string, unknown>;
/** A MongoDB sort document, e.g. `{ sort_name: 1, reference: 1 }`. */
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
}

export interface StoredDoc {
  _id: string;
  position: number;
}

/**
 * One write of a bulk. `put` replaces (or inserts) the whole document unless the stored one already reflects
 * the same or a later position, so a replayed or duplicated write changes nothing. `delete` removes it under the
 * same rule (`position` is the position of the event that removed it).
 */
export type WriteOp<D extends StoredDoc = StoredDoc> =
  | { put: D }
  | { delete: { _id: string; position: number } };

export interface ReadStore {
  find<D extends StoredDoc>(collection: ReadCollection, filter: Filter, options?: FindOptions): Promise<D[]>;
  count(collection: ReadCollection, filter: Filter): Promise<number>;
  get<D extends StoredDoc>(collection: ReadCollection, id: string): Promise<D | null>;
  getMany<D extends StoredDoc>(collection: ReadCollection, ids: string[]): Promise<D[]>;
  /** Applies the writes in order as one bulk write. */
  write(collection: ReadCollection, ops: WriteOp[]): Promise<void>;
  /**
   * Opens an empty generation of `collection` that readers do not see; `switchTo` makes it current for every
   * reader at once (and drops the previous one). Used by rebuilds.
   */
  beginRebuild(collection: ReadCollection): Promise<RebuildTarget>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface RebuildTarget {
  /**
   * As `ReadStore.write`, but the documents are handed over: the writer must not change them afterwards (the
   * in-memory store keeps them frozen in place rather than copying them; an attempt to change one throws).
   */
  write(ops: WriteOp[]): Promise<void>;
  get<D extends StoredDoc>(id: string): Promise<D | null>;
  getMany<D extends StoredDoc>(ids: string[]): Promise<D[]>;
  find<D extends StoredDoc>(filter: Filter, options?: FindOptions): Promise<D[]>;
  switchTo(): Promise<void>;
  abandon(): Promise<void>;
}
