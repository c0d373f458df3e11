/**
 * The control documents of the MongoDB read store, changed by compare-and-set atomically on every engine. A
 * conditional update is not atomic across processes on FerretDB 1.x (it reads, then writes: two processes racing
 * for one expired lease both won it), but an insert under a unique `_id` is. So each control document is stored as
 * versions, `{_id: "KEY#V", _key, _rev: V, ...}`, and the highest version of a key is the document: a write reads
 * it, evaluates its condition here (as the in-memory store does) and inserts version V+1, which exactly one writer
 * can do. The two latest versions are kept, so a writer that read a version just replaced collides on its insert.
 *
 * A writer paused past two later writes may still fill a gap (insert a version already pruned): each version
 * names its own random `_w` and its predecessor's (`_after`), so a writer checks after its insert that its version
 * is the latest or the one the next version was built on, and takes it back otherwise; a version that is not the
 * highest is never read, so readers never see one.
 *
 * A writer starts from the version of the key it last wrote or read itself, when it has one, instead of reading the
 * latest again: the owner of a lease or a checkpoint is most often its only writer, and that read was a quarter of
 * the round trips of each checkpoint (issue 29). A version it remembers that is no longer the latest fails the
 * insert or the check after it, like any stale read, and the write is tried again from the stored latest version.
 *
 * A control document written before versions (`{_id: KEY}`, by an earlier release) counts as version 0 of its key,
 * so a store upgraded in place keeps its pointer, leases and checkpoints; it goes once two versions follow it.
 */
import { randomUUID } from 'node:crypto';
import { MongoServerError, type Collection } from 'mongodb';
import type { ControlDoc, Filter } from '../ports/read-store.ts';
import { compileFilter } from '../read-model/query/compile-filter.ts';

export const DUPLICATE_KEY = 11000;

/** One stored version of a control document. */
interface Version {
  _id: string;
  _key: string;
  _rev: number;
  /** This version's writer, and the one it was built on (null: the first version of its key). */
  _w: string;
  _after: string | null;
  [field: string]: unknown;
}

interface ControlDocs {
  /** Every control document: the latest version of each key. */
  readAll(): Promise<ControlDoc[]>;
  read(id: string): Promise<ControlDoc | null>;
  /** The latest version of each of `ids` that has one, by id, in one query. */
  readSome(ids: readonly string[]): Promise<Map<string, ControlDoc>>;
  /** `onWritten`: called once the version is inserted, before the check that it stands (see `ReadStore.setControl`). */
  set(doc: ControlDoc, condition: Filter, insertIfAbsent: boolean, onWritten?: () => void): Promise<boolean>;
  remove(id: string): Promise<void>;
}

const asDoc = ({ _key, _rev, _w, _after, _id, ...fields }: Version): ControlDoc => ({ _id: _key, ...fields });

/** A stored document as a version: one written before versions is version 0 of its `_id`. */
const asVersion = (stored: Version): Version => (typeof stored._key === 'string' ? stored : { ...stored, _key: stored._id, _rev: 0 });
/** The versions of `key`, the one written before versions included. */
const ofKey = (key: string) => ({ $or: [{ _key: key }, { _id: key }] });

export async function controlDocs(collection: Collection<ControlDoc>): Promise<ControlDocs> {
  const versions = collection as unknown as Collection<Version>;
  await versions.createIndexes([{ key: { _key: 1, _rev: -1 } }]);
  /** The version of each key this process last wrote or read: where its next write of that key starts. */
  const remembered = new Map<string, Version>();
  /** Deletes the versions of `key` below `rev` (and the one written before versions). */
  const prune = async (key: string, rev: number): Promise<void> => {
    await versions.deleteMany({ $or: [{ _key: key, _rev: { $lt: rev } }, { _id: key }] });
  };
  const latest = async (key: string): Promise<Version | null> => {
    const [stored] = await versions.find(ofKey(key)).sort({ _rev: -1 }).limit(1).toArray();
    const version = stored ? asVersion(stored) : null;
    if (version) remembered.set(key, version);
    else remembered.delete(key);
    return version;
  };

  /**
   * Whether version `rev` (by `_w`, built on `after`) is part of the key's history: the latest with its predecessor
   * still there, or the one the next version was built on. Otherwise it filled a gap below newer versions, or
   * revived a removed key, and it is taken back.
   */
  const stands = async (key: string, rev: number, _w: string, after: string | null): Promise<boolean> => {
    const around = await versions.find({ _key: key, _rev: { $gte: rev - 1 } }).toArray();
    const next = around.find((version) => version._rev === rev + 1);
    const latestHere = !around.some((version) => version._rev > rev);
    const predecessorKept = after === null || around.some((version) => version._rev === rev - 1 && version._w === after);
    if ((latestHere && predecessorKept) || next?._after === _w) return true;
    await versions.deleteOne({ _id: `${key}#${rev}`, _w });
    return false;
  };

  /** The highest version of each key among those `filter` finds. */
  const highestOf = async (filter: object): Promise<Version[]> => {
    const highest = new Map<string, Version>();
    for (const version of (await versions.find(filter).toArray()).map(asVersion)) {
      if ((highest.get(version._key)?._rev ?? -1) < version._rev) highest.set(version._key, version);
    }
    return [...highest.values()];
  };

  return {
    readAll: async () => (await highestOf({})).map(asDoc),
    readSome: async (ids) => new Map((await highestOf({ $or: ids.flatMap((id) => ofKey(id).$or) })).map((version) => [version._key, asDoc(version)])),
    read: async (id) => {
      const version = await latest(id);
      return version && asDoc(version);
    },
    set: async (doc, condition, insertIfAbsent, onWritten) => {
      const matches = compileFilter(condition);
      const { _id: key, ...fields } = doc;
      let guess = remembered.get(key);
      for (;;) {
        // A remembered version is only a guess at the latest: what it refuses, or what fails on it, is tried again
        // on the stored latest version.
        const retryOnLatest = guess !== undefined;
        const stored = guess ?? await latest(key);
        guess = undefined;
        if (stored ? !matches(asDoc(stored)) : !insertIfAbsent) {
          if (retryOnLatest) continue;
          return false;
        }
        const rev = (stored?._rev ?? 0) + 1;
        const version: Version = { ...fields, _id: `${key}#${rev}`, _key: key, _rev: rev, _w: randomUUID(), _after: stored?._w ?? null };
        try {
          await versions.insertOne(version);
        } catch (error) {
          // Another writer took version `rev` first: the condition is judged again on what it wrote.
          if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) continue;
          throw error;
        }
        // Readers see the highest version of each key: this one, unless it filled a gap below newer ones (then they
        // never see it). So readers may be told now, a round trip before the check (issue 44).
        onWritten?.();
        // The versions older than the one this is built on go beside the check, a round trip sooner than after it
        // (issue 44), but only once this version is stored: pruned before, the version this is built on would lack
        // its predecessor with no later version yet, and its writer, checking then, would take back a write that
        // stands (test/contract/mongodb-control-docs.test.ts). The check reads only versions from `rev - 1` on.
        const [standing] = await Promise.all([stands(key, rev, version._w, version._after), rev > 1 ? prune(key, rev - 1) : undefined]);
        if (!standing) {
          if (retryOnLatest) continue;
          return false;
        }
        remembered.set(key, version);
        return true;
      }
    },
    remove: async (id) => {
      // The older versions first: a reader meanwhile sees the document or nothing, never an older state of it.
      const stored = await latest(id);
      remembered.delete(id);
      if (!stored) return;
      await prune(id, stored._rev);
      await versions.deleteMany(ofKey(id));
    },
  };
}
