/**
 * A plain store of kept answers by request key, for the answer caches: what may be kept, and when a kept answer may
 * be given again, is the answer policy's (shared/read-model/public-api/answer-policy.ts), which the caches ask. The store only
 * drops an entry once the policy says its projections no longer stand where it was read (it can never be given
 * again), and is bounded, least recently used entries leaving first, so arbitrary query strings cannot grow memory:
 * by entries, and by bytes, since every entry holds a whole answer and a key the client wrote (2000 of the demo
 * catalogue's largest pages held about 60 MB over HTTP and 125 MB over MCP: test/api/answer-cache-bytes.test.ts).
 */
import { DEFAULT_ANSWER_CACHE_MAX_BYTES } from '../../shared/config/config.ts';
import { type Kept, standsWhereRead } from '../../shared/read-model/public-api/answer-policy.ts';

/** Every entry holds the stamp of the reading its answer came from, and the view of the projections it read. */
export type Stamped = Kept;

export interface CacheBounds<V> {
  /** The bytes `value` holds (its answer's); its key is counted apart. */
  bytesOf(value: V): number;
  /** Most entries kept (default 2000). */
  maxEntries?: number;
  /** Most bytes kept, values and keys (default: ANSWER_CACHE_MAX_BYTES's); 0 keeps nothing. */
  maxBytes?: number;
}

interface Entry<V> {
  value: V;
  bytes: number;
}

export class ResponseCache<V extends Stamped> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #bytesOf: (value: V) => number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  #bytes = 0;

  constructor({ bytesOf, maxEntries = 2000, maxBytes = DEFAULT_ANSWER_CACHE_MAX_BYTES }: CacheBounds<V>) {
    this.#bytesOf = bytesOf;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** The value cached for `key`, if the projections it read have not moved since. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (!standsWhereRead(entry.value)) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    // Re-inserting marks the entry as most recently used (a Map iterates in insertion order).
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.#delete(key);
    // A string holds at most two bytes a character: a key the client wrote (a URL, MCP params) is up to 16 KiB.
    const bytes = this.#bytesOf(value) + 2 * key.length;
    // Larger than the whole bound: kept, it would only push every other entry out before leaving itself.
    if (bytes > this.maxBytes) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    // Over a bound, the map holds at least one other key: its first is the least recently used.
    while (this.#entries.size > this.maxEntries || this.#bytes > this.maxBytes) this.#delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes the entries hold, as counted against `maxBytes`. */
  get bytes(): number {
    return this.#bytes;
  }

  #delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
