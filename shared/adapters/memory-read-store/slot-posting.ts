/**
 * The documents filed under one key of a lookup, as their slots (small integers the table gives its documents) in
 * a sorted typed array: 4 bytes a document, where a set of ids takes about ten times that. Adding a document
 * whose slot is the largest (a new one, the common case) appends; any other add or remove moves the tail once.
 */
export class SlotPosting implements Iterable<number> {
  #slots = new Int32Array(4);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(slot: number): void {
    const at = this.#indexOf(slot);
    if (at < this.#size && this.#slots[at] === slot) return;
    if (this.#size === this.#slots.length) {
      const grown = new Int32Array(this.#slots.length * 2);
      grown.set(this.#slots);
      this.#slots = grown;
    }
    this.#slots.copyWithin(at + 1, at, this.#size);
    this.#slots[at] = slot;
    this.#size += 1;
  }

  delete(slot: number): void {
    const at = this.#indexOf(slot);
    if (at >= this.#size || this.#slots[at] !== slot) return;
    this.#slots.copyWithin(at, at + 1, this.#size);
    this.#size -= 1;
  }

  *[Symbol.iterator](): Generator<number> {
    for (let i = 0; i < this.#size; i += 1) yield this.#slots[i]!;
  }

  /** The first index whose slot is not below `slot`. */
  #indexOf(slot: number): number {
    let low = 0;
    let high = this.#size;
    // New documents have the largest slot: check the end first.
    if (high > 0 && this.#slots[high - 1]! < slot) return high;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#slots[middle]! < slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
