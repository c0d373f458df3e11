/**
 * The audit chain computed over a history read in store order, for a store that keeps no hashes: each event's stream
 * hash follows its stream's previous one (its tip, kept here per stream), its chain hash the previous event's. What
 * an export from such a store computes (linked-history.ts), and the baseline the transparency log's bench runs.
 */
import { chainHash, streamHash } from '../../shared/adapters/sqlite/event-hash.ts';
import type { StoredEventText } from '../../shared/ports/event-store.ts';
import { GENESIS, type ClaimedLinks } from './audit-record.ts';

interface ChainedEvent extends ClaimedLinks {
  stream_hash: Buffer;
  chain_hash: Buffer;
}

export class ChainLinks {
  readonly #tips = new Map<string, Buffer>();
  #previousChain: Buffer = GENESIS;

  /** The hashes of the next event of the history, and the links they follow. */
  next({ stream, type, data, metadata }: Pick<StoredEventText, 'stream' | 'type' | 'data' | 'metadata'>): ChainedEvent {
    const previous_stream_hash = this.#tips.get(stream) ?? GENESIS;
    const previous_chain_hash = this.#previousChain;
    const stream_hash = streamHash(type, data, metadata, previous_stream_hash);
    const chain_hash = chainHash(stream_hash, previous_chain_hash);
    this.#tips.set(stream, stream_hash);
    this.#previousChain = chain_hash;
    return { stream_hash, chain_hash, previous_stream_hash, previous_chain_hash };
  }
}
