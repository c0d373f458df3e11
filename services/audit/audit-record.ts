/**
 * An event exactly as the audit chain sees it: the stored texts of `data` and `metadata` (the hashes cover those
 * bytes, not a re-serialisation) and both hashes. The live SQLite file and an export file both yield these.
 */
import { GENESIS_HASH } from '../../shared/adapters/sqlite/event-hash.ts';
import type { StoredEventText } from '../../shared/ports/event-store.ts';

export interface AuditRecord extends StoredEventText {
  stream_hash: Buffer;
  chain_hash: Buffer;
}

/**
 * The links a record claims to follow: the stream hash of the previous revision of its stream and the chain hash
 * of the previous event. An export carries them so that a file starting mid-history can still be checked: they
 * anchor the first record of the file and the first record of each stream seen in it.
 */
export interface ClaimedLinks {
  previous_stream_hash: Buffer;
  previous_chain_hash: Buffer;
}

export type AnchoredRecord = AuditRecord & Partial<ClaimedLinks>;

export const GENESIS: Buffer = GENESIS_HASH;

export const toHex = (hash: Uint8Array): string => Buffer.from(hash).toString('hex');
