/**
 * Where a tree of the transparency log ends in the event store: the position of its last leaf, read from the log's
 * tiles once per tree size. Positions are the event store's and leaves are counted from 0; a signed answer pins a tree
 * by it (answer-checkpoint.ts), and a proved status is judged against the registry by it (log-publisher.ts, `indexProofs`).
 */
import type { TileLog } from '../../shared/read-model/transparency/tile-log.ts';

/** What is read of the log here: one snapshot's tiles, and why it is not served (log-publisher.ts, `LogView`). */
interface TilesReader {
  read(): Promise<{ log: TileLog; parked: string | undefined }>;
}

/** Values kept per key at most (a few hundred bytes each). */
const KEPT = 4_096;

/** `compute` once per key while it succeeds with a value; a failure or undefined is asked again next time. */
export function remembered<K, V>(kept: Map<K, Promise<V | undefined>>, key: K, compute: () => Promise<V | undefined>): Promise<V | undefined> {
  const known = kept.get(key);
  if (known) return known;
  const value = compute();
  kept.set(key, value);
  const forget = () => { if (kept.get(key) === value) kept.delete(key); };
  value.then((result) => { if (result === undefined) forget(); }, forget);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value as K);
  return value;
}

/** The tiles of one snapshot, unless the log is parked or they are behind a tree of `size` leaves. */
export async function tilesHolding(log: TilesReader, size: number): Promise<TileLog | undefined> {
  const view = await log.read();
  return view.parked === undefined && view.log.size >= size ? view.log : undefined;
}

/**
 * The position of the last leaf of the tree of `size` leaves; undefined for the empty tree, or while the tiles cannot
 * tell (parked, or behind it). Kept for the size last asked: callers ask the latest checkpoint's, which only grows.
 */
export function lastLeafPositions(log: TilesReader): (size: number) => Promise<number | undefined> {
  const lastLeaves = new Map<number, Promise<number | undefined>>();
  return (size) => {
    if (!lastLeaves.has(size)) lastLeaves.clear();
    return remembered(lastLeaves, size, async () => (await tilesHolding(log, size))?.positionOf(size - 1));
  };
}
