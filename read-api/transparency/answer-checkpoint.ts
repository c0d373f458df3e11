/**
 * The transparency log's tree a signed answer pins (`Watchcat-Checkpoint`, read-api/signing/sign-answers.ts): one that
 * holds no event after the position its data was read at (`X-Read-Model-Position`, stamped from the same snapshot as
 * the data), so that a receipt's own proof never holds an event its answer had not seen (issue 40: a theft in the
 * pinned tree of an AUTHENTIC answer). Positions are the event store's, not leaf counts: they are mapped through the
 * positions of the log's leaves.
 * - The latest signed checkpoint when its last leaf is at or before the position (the log has not passed the data).
 * - Otherwise the tree of the leaves at positions up to it: a prefix of the latest signed checkpoint, its root computed
 *   from the log's tiles; the public consistency proof from it to the latest checkpoint shows that one extends it.
 * Never a tree larger than the latest signed checkpoint. A log that is parked, has no checkpoint yet, or whose tiles
 * are behind its checkpoint (a read store being filled again) pins nothing: the answer goes out without the header.
 *
 * Cheap (bench/signing-overhead.ts): the position of the latest checkpoint's last leaf is read once per checkpoint,
 * and an answer read at or past it pins that checkpoint without a read; a prefix is read once per position and kept,
 * since the log only grows past it.
 */
import type { Hash } from '../../shared/read-model/transparency/merkle.ts';
import { lastLeafPositions, remembered, tilesHolding } from './leaf-positions.ts';
import type { PublishedCheckpoint, TransparencyLog } from './log-publisher.ts';

/** A tree of the log as a signed answer states it. */
interface PinnedTree {
  size: number;
  root: Hash;
}

/** The tree an answer read at `position` pins, or undefined where it pins none. */
export type AnswerCheckpoint = (position: number) => Promise<PinnedTree | undefined>;

export function answerCheckpoint(log: Pick<TransparencyLog, 'checkpoint' | 'parked' | 'read'>): AnswerCheckpoint {
  /** The position of the latest checkpoint's last leaf, by the checkpoint's size (only the latest is asked). */
  const lastLeafOf = lastLeafPositions(log);
  /** Prefixes kept: the positions answers lag behind the log at, recent ones first to go last. */
  const prefixes = new Map<number, Promise<PinnedTree | undefined>>();
  const prefixAt = (position: number, latest: PublishedCheckpoint) => remembered(prefixes, position, async () => {
    const tiles = await tilesHolding(log, latest.size);
    if (!tiles) return undefined;
    const size = await tiles.leavesThrough(position);
    return { size, root: await tiles.root(size) };
  });

  return async (position) => {
    const latest = log.parked() === undefined ? log.checkpoint() : undefined;
    if (!latest || latest.size === 0) return latest;
    const last = await lastLeafOf(latest.size);
    if (last === undefined) return undefined;
    if (last <= position) return latest;
    // The latest tree holds an event after `position`: the prefix up to it, which the log has passed for good.
    return prefixAt(position, latest);
  };
}
