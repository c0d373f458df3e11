/**
 * A Merkle tree log held in memory as its stored subtree hashes, one growable byte array per level (32 bytes a
 * hash, no object per hash: a million leaves hold 64 MB of hashes, in arrays up to twice that). Appending costs
 * O(log n) hashes at worst.
 */
import { completedSubtrees, consistencyProof, HASH_SIZE, inclusionProof, leafHash, ProofRangeError, treeRoot, type Hash, type SubtreeHashes } from './merkle.ts';

class Level {
  private bytes = new Uint8Array(HASH_SIZE * 1024);
  count = 0;

  get(index: number): Hash {
    if (index >= this.count) throw new RangeError(`no stored hash at index ${index}`);
    return this.bytes.subarray(index * HASH_SIZE, (index + 1) * HASH_SIZE);
  }

  push(hash: Hash): void {
    if ((this.count + 1) * HASH_SIZE > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(hash, this.count * HASH_SIZE);
    this.count += 1;
  }
}

export class MemoryTree implements SubtreeHashes {
  private readonly levels: Level[] = [];

  get size(): number {
    return this.levels[0]?.count ?? 0;
  }

  get(level: number, index: number): Hash {
    const stored = this.levels[level];
    if (!stored) throw new RangeError(`no stored hash at level ${level}`);
    return stored.get(index);
  }

  /** Appends the next entry (bytes, or text hashed as UTF-8); returns its leaf index. */
  append(entry: Uint8Array | string): number {
    return this.appendLeafHash(leafHash(entry));
  }

  appendLeafHash(hash: Hash): number {
    const index = this.size;
    for (const stored of completedSubtrees(this, index, hash)) (this.levels[stored.level] ??= new Level()).push(stored.hash);
    return index;
  }

  root(size = this.size): Hash {
    if (size > this.size) throw new ProofRangeError(`the log holds ${this.size} leaves, not ${size}`);
    return treeRoot(this, size);
  }

  inclusion(index: number, size: number): Hash[] {
    if (size > this.size) throw new ProofRangeError(`the log holds ${this.size} leaves, not ${size}`);
    return inclusionProof(this, index, size);
  }

  consistency(first: number, second: number): Hash[] {
    if (second > this.size) throw new ProofRangeError(`the log holds ${this.size} leaves, not ${second}`);
    return consistencyProof(this, first, second);
  }
}
