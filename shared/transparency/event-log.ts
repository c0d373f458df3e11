/**
 * The event history as a Merkle tree log, built from the event store and kept in memory by the process that
 * serves it (the read API): leaf i is the i-th event in event-store order (log-entry.ts). A start rebuilds it from
 * the whole history; each later event costs O(log n) hashes. Not a projection: projections see events decoded, and an entry must be the bytes
 * stored.
 */
import type { EventStore } from '../ports/event-store.ts';
import { entryText, readEntryTexts } from './log-entry.ts';
import { MemoryTree } from './memory-tree.ts';
import type { Hash } from './merkle.ts';
import { tileData, type Tile } from './tiles.ts';

const BATCH = 2_000;

export class EventLog {
  private readonly tree = new MemoryTree();
  /** Event position of each leaf, ascending (positions strictly increase), for lookups by position. */
  private positions = new Float64Array(1_024);
  private catching: Promise<number> | undefined;

  get size(): number {
    return this.tree.size;
  }

  /** Position of the newest event in the log, 0 when it is empty. */
  get lastPosition(): number {
    return this.size === 0 ? 0 : this.positions[this.size - 1]!;
  }

  /**
   * Appends every event stored after the last one in the log; answers the new size. Calls made while one runs wait
   * for it and then read again, so no event is appended twice and none appended after a call began is missed.
   */
  catchUp(store: EventStore): Promise<number> {
    const previous = this.catching ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.readNew(store));
    this.catching = next;
    return next;
  }

  private async readNew(store: EventStore): Promise<number> {
    for (;;) {
      const batch = await readEntryTexts(store, this.lastPosition, BATCH);
      for (const text of batch) this.append(text.position, entryText(text));
      if (batch.length < BATCH) return this.size;
    }
  }

  private append(position: number, entry: string): void {
    const index = this.tree.append(entry);
    if (index === this.positions.length) {
      const grown = new Float64Array(this.positions.length * 2);
      grown.set(this.positions);
      this.positions = grown;
    }
    this.positions[index] = position;
  }

  /** The leaf index of the event at `position`, or undefined when no event of the log has it. */
  indexOf(position: number): number | undefined {
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const found = this.positions[middle]!;
      if (found === position) return middle;
      if (found < position) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  leafHash(index: number): Hash {
    return this.tree.get(0, index);
  }

  root(size: number): Hash {
    return this.tree.root(size);
  }

  inclusion(index: number, size: number): Hash[] {
    return this.tree.inclusion(index, size);
  }

  consistency(first: number, second: number): Hash[] {
    return this.tree.consistency(first, second);
  }

  /** A hash tile of the tree of `size` leaves (at most the log's), or undefined when that tree does not hold it. */
  tile(tile: Tile, size: number): Uint8Array | undefined {
    return tileData(this.tree, Math.min(size, this.size), tile);
  }
}
