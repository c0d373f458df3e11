/**
 * The documents of a table kept in one sort order as they are written, so a sorted page is a walk from the start
 * instead of a sort of every match. Ties on every sort key are broken by write sequence (last written last), as the
 * table's sorted answers break them.
 *
 * Held as a list of blocks of at most `2 * BLOCK` entries: an insert or a remove is a binary search over the blocks'
 * last entries, a binary search inside one block and a splice of that block, so a write costs O(log n + BLOCK)
 * instead of moving the whole order.
 */
import type { Sort, StoredDoc } from '../../ports/read-store.ts';
import { compareSortValues, sortKeys, sortValues, type SortKey } from './sort-order.ts';

const BLOCK = 256;

interface Entry { doc: StoredDoc; values: unknown[]; seq: number }

/** A document with its write sequence number: larger means written later. */
export interface Sequenced { doc: StoredDoc; seq: number }

export class MaintainedOrder {
  readonly #keys: SortKey[];
  #blocks: Entry[][] = [];
  readonly #entries = new Map<string, Entry>();

  constructor(sort: Sort, docs: Iterable<Sequenced>) {
    this.#keys = sortKeys(sort);
    const all: Entry[] = [];
    for (const { doc, seq } of docs) all.push(this.#entry(doc, seq));
    all.sort((left, right) => this.#compare(left, right));
    for (let start = 0; start < all.length; start += BLOCK) this.#blocks.push(all.slice(start, start + BLOCK));
  }

  insert(doc: StoredDoc, seq: number): void {
    const entry = this.#entry(doc, seq);
    if (this.#blocks.length === 0) {
      this.#blocks.push([entry]);
      return;
    }
    const blockIndex = Math.min(this.#blockFor(entry), this.#blocks.length - 1);
    const block = this.#blocks[blockIndex]!;
    block.splice(this.#indexIn(block, entry), 0, entry);
    if (block.length > 2 * BLOCK) this.#blocks.splice(blockIndex, 1, block.slice(0, BLOCK), block.slice(BLOCK));
  }

  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    const [blockIndex, index] = this.#locate(entry);
    const block = this.#blocks[blockIndex]!;
    block.splice(index, 1);
    if (block.length === 0) this.#blocks.splice(blockIndex, 1);
  }

  /** Every document, first to last. */
  *docs(): Generator<StoredDoc> {
    for (const block of this.#blocks) for (const entry of block) yield entry.doc;
  }

  #entry(doc: StoredDoc, seq: number): Entry {
    const entry = { doc, values: sortValues(doc, this.#keys), seq };
    this.#entries.set(doc._id, entry);
    return entry;
  }

  /** Where `entry` is: by binary search, or by a scan if a key the comparison cannot order (NaN) misled it. */
  #locate(entry: Entry): [number, number] {
    const blockIndex = this.#blockFor(entry);
    const block = this.#blocks[blockIndex];
    const index = block ? this.#indexIn(block, entry) : -1;
    if (block?.[index] === entry) return [blockIndex, index];
    const found = this.#blocks.findIndex((candidate) => candidate.includes(entry));
    return [found, this.#blocks[found]!.indexOf(entry)];
  }

  /** The first block whose last entry is not before `entry` (the block count when there is none). */
  #blockFor(entry: Entry): number {
    let low = 0;
    let high = this.#blocks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compare(this.#blocks[middle]!.at(-1)!, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The first index in `block` whose entry is not before `entry`: where it is, or where it goes. */
  #indexIn(block: Entry[], entry: Entry): number {
    let low = 0;
    let high = block.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compare(block[middle]!, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #compare(left: Entry, right: Entry): number {
    return compareSortValues(left.values, right.values, this.#keys) || left.seq - right.seq;
  }
}
