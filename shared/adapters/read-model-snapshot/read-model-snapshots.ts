/**
 * A snapshot of the embedded read models (the in-memory store) in DATA_DIR, so a start with existing data loads
 * it and replays only the events after it instead of the whole history. The events stay the only source of truth:
 * a snapshot is a cache, refused unless it matches this history and this code, and deleting it is always safe.
 *
 * It holds the generation pointer, each projection's lease (released) and live checkpoint, and every document and
 * tombstone of the live generations; its header says, per projection, the generation and position it reflects and
 * the id of the event at that position, and the version of the projections' code (snapshot-version.ts). At start a
 * snapshot is loaded only if the event store holds those same events at those positions and the code is the same;
 * otherwise one log line says why and the projector replays everything. Once loaded, the projector catches up from
 * the checkpoints through its usual leases and fencing, as after any restart.
 *
 * Written at a graceful stop and every `intervalMs` when a projection moved since the last one: the state is
 * taken in one step (documents are frozen, so shared, not copied) and written in chunks off the request path.
 */
import type { Logger } from '../../logging/logger.ts';
import type { EventStore } from '../../ports/event-store.ts';
import { GENERATIONS_ID, type ControlDoc, type ProjectedCollection, type StoredDoc } from '../../ports/read-store.ts';
import { checkpointId, leaseId, liveCheckpointOf } from '../../read-model/projections/control-docs.ts';
import { PROJECTIONS } from '../../read-model/projections/index.ts';
import type { Projection } from '../../read-model/projections/projection.ts';
import type { MemoryReadState, MemoryReadStore } from '../memory-read-store.ts';
import { readSnapshotFile, writeSnapshotFile, type SnapshotWriteOptions } from './snapshot-file.ts';
import { projectionsVersion } from './snapshot-version.ts';

/** Raised when the file's layout changes. */
const FORMAT = 1;

/** What a snapshot reflects of one projection. */
interface ProjectionMark {
  name: string;
  collection: ProjectedCollection;
  generation: number;
  position: number;
  /** The id of the event at `position` (null at 0): another history, or one cut or rewritten, has another. */
  event_id: string | null;
}

interface SnapshotHeader {
  format: number;
  version: string;
  written_at: string;
  projections: ProjectionMark[];
}

/** A record: a control document (`checkpoints`) or a document or tombstone of a collection's live generation. */
type SnapshotRecord = [where: string, doc: StoredDoc | ControlDoc];

export interface ReadModelSnapshotOptions {
  file: string;
  store: MemoryReadStore;
  eventStore: EventStore;
  logger: Logger;
  /** Period of the check for moved projections (a snapshot is written only then). */
  intervalMs: number;
  /** Defaults to every projection of the service. */
  projections?: readonly Projection[];
  /** Defaults to the hash of the projections' source (tests pass another to stand for changed code). */
  version?: string;
  write?: SnapshotWriteOptions;
}

export interface ReadModelSnapshots {
  /** Loads the snapshot into the (empty) store if it is valid for this history and code; true when it did. */
  load(): Promise<boolean>;
  /** Starts the periodic writes. */
  start(): void;
  /** Stops them and writes a last snapshot if a projection moved since the last one. */
  stop(): Promise<void>;
  /** Writes a snapshot now, if a projection moved since the last one (or none was written); true when it did. */
  write(): Promise<boolean>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readModelSnapshots(options: ReadModelSnapshotOptions): ReadModelSnapshots {
  const { file, store, eventStore, logger } = options;
  const projections = options.projections ?? PROJECTIONS;
  const collections = [...new Set(projections.map((projection) => projection.collection))];
  const version = options.version ?? projectionsVersion();
  /** Positions of the last snapshot written or loaded, to skip writing one that says nothing new. */
  let lastPositions: string | undefined;
  let writing: Promise<boolean> | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** Each projection's live generation and checkpoint position, as the control documents say. */
  function marksOf(control: readonly ControlDoc[]): Omit<ProjectionMark, 'event_id'>[] {
    const byId = new Map(control.map((doc) => [doc._id, doc]));
    return projections.map(({ name, collection }) => {
      const { generation, checkpoint } = liveCheckpointOf(byId, { name, collection });
      return { name, collection, generation, position: checkpoint?.position ?? 0 };
    });
  }

  async function eventIdAt(position: number): Promise<string | null> {
    if (position === 0) return null;
    const [event] = await eventStore.readAll({ after: position - 1, limit: 1 });
    return event?.position === position ? event.id : null;
  }

  /** Why a read snapshot cannot be used here, or undefined when it can. */
  async function refusal(header: unknown, records: readonly unknown[]): Promise<string | undefined> {
    if (!isObject(header) || header['format'] !== FORMAT) return 'another format';
    if (header['version'] !== version) return 'built by other projections code';
    const marks = header['projections'];
    if (!Array.isArray(marks)) return 'no projection positions';
    const control: ControlDoc[] = [];
    for (const record of records) {
      if (!Array.isArray(record) || record.length !== 2 || !isObject(record[1]) || typeof record[1]['_id'] !== 'string') return 'a malformed record';
      const [where, doc] = record as [unknown, ControlDoc];
      if (where === 'checkpoints') control.push(doc);
      else if (!collections.includes(where as ProjectedCollection) || typeof doc['position'] !== 'number') return 'a malformed record';
    }
    const actual = marksOf(control);
    for (const mark of actual) {
      const stated = (marks as unknown[]).find((candidate) => isObject(candidate) && candidate['name'] === mark.name) as ProjectionMark | undefined;
      if (!stated || stated.collection !== mark.collection || stated.generation !== mark.generation || stated.position !== mark.position) {
        return `projection ${mark.name} is not where the header says`;
      }
      if ((await eventIdAt(mark.position)) !== stated.event_id) return `the event store has another event at position ${mark.position}`;
    }
    return undefined;
  }

  function stateOf(records: readonly SnapshotRecord[], marks: readonly ProjectionMark[]): MemoryReadState {
    const stored = new Map(collections.map((collection) => [collection as string, [] as StoredDoc[]]));
    const control: ControlDoc[] = [];
    for (const [where, doc] of records) {
      if (where === 'checkpoints') control.push(doc as ControlDoc);
      else stored.get(where)?.push(doc as StoredDoc);
    }
    return {
      control,
      tables: collections.map((collection) => ({
        collection,
        generation: marks.find((mark) => mark.collection === collection)?.generation ?? 1,
        stored: stored.get(collection) ?? [],
      })),
    };
  }

  /** The control documents worth keeping: the pointer, released leases and the live checkpoints (not a rebuild's). */
  function keptControl(state: MemoryReadState): ControlDoc[] {
    const live = new Set(marksOf(state.control).map((mark) => checkpointId(mark.name, mark.generation)));
    const leases = new Set(projections.map((projection) => leaseId(projection.name)));
    return state.control.flatMap((doc) => {
      if (doc._id === GENERATIONS_ID || live.has(doc._id)) return [doc];
      return leases.has(doc._id) ? [{ ...doc, expires_at: 0 }] : [];
    });
  }

  async function writeNow(): Promise<boolean> {
    const state = store.exportState(collections);
    const control = keptControl(state);
    const current = marksOf(control);
    const positions = JSON.stringify(current);
    if (positions === lastPositions) return false;
    const marks = await Promise.all(current.map(async (mark) => ({ ...mark, event_id: await eventIdAt(mark.position) })));
    const header: SnapshotHeader = { format: FORMAT, version, written_at: new Date().toISOString(), projections: marks };
    const records: SnapshotRecord[] = [
      ...control.map((doc): SnapshotRecord => ['checkpoints', doc]),
      ...state.tables.flatMap(({ collection, stored }) => stored.map((doc): SnapshotRecord => [collection, doc])),
    ];
    await writeSnapshotFile(file, header, records, options.write);
    lastPositions = positions;
    return true;
  }

  function write(): Promise<boolean> {
    // One write at a time: a tick during a write waits for it and then finds nothing new, or writes what is.
    const previous = writing ?? Promise.resolve(false);
    const next = previous.catch(() => false).then(writeNow);
    writing = next;
    return next;
  }

  return {
    async load() {
      try {
        const read = await readSnapshotFile(file);
        const why = read.ok ? await refusal(read.header, read.records) : read.reason;
        if (why !== undefined || !read.ok) {
          if (why !== 'no snapshot') logger.warn({ file, reason: why }, 'read-model snapshot ignored: the read models are replayed from the events');
          return false;
        }
        const marks = (read.header as SnapshotHeader).projections;
        store.importState(stateOf(read.records as SnapshotRecord[], marks));
        lastPositions = JSON.stringify(marksOf(store.exportState([]).control));
        logger.info({ file, positions: Object.fromEntries(marks.map((mark) => [mark.name, mark.position])) }, 'read models loaded from a snapshot; catching up from there');
        return true;
      } catch (error) {
        logger.warn({ file, err: error }, 'read-model snapshot ignored: the read models are replayed from the events');
        return false;
      }
    },
    start() {
      timer ??= setInterval(() => {
        write().catch((error: unknown) => logger.warn({ file, err: error }, 'could not write the read-model snapshot; the next one is tried later'));
      }, options.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await write();
    },
    write,
  };
}
