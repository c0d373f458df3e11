/**
 * The history as an export writes it: every stored event with its hashes and the links it follows. From the SQLite
 * file the hashes are the stored ones. A store that keeps no hashes (EventStoreDB, which is append-only by design)
 * gets them computed here with the same functions, so its export can be checked later, though only from then on.
 */
import type { EventStore } from '../../shared/ports/event-store.ts';
import { EntryUnavailableError, reserialisedTexts } from '../../shared/read-model/transparency/log-entry.ts';
import type { AuditRecord, ClaimedLinks } from './audit-record.ts';
import { ChainLinks } from './chain-links.ts';
import type { SqliteAuditHistory } from './sqlite-audit-reader.ts';

export interface LinkedRecord { record: AuditRecord; links: ClaimedLinks }

/** The stored events after `after` with their stored hashes and links. */
export function* sqliteLinkedRecords(history: SqliteAuditHistory, after: number): Generator<LinkedRecord> {
  let previousChain = history.chainHashAt(after);
  for (const record of history.records(after)) {
    const links = {
      previous_stream_hash: history.previousStreamHash(record.stream, record.revision),
      previous_chain_hash: previousChain,
    };
    yield { record, links };
    previousChain = record.chain_hash;
  }
}

const BATCH = 1_000;

/**
 * The events after `after` of any store, hashed on the fly from the start of the history (earlier events are read
 * to build the links, not yielded). Data is re-serialised with `JSON.stringify`, as the SQLite store writes it.
 */
export async function* recomputedLinkedRecords(store: EventStore, after: number): AsyncGenerator<LinkedRecord> {
  const chain = new ChainLinks();
  for (let from = 0; ;) {
    const batch = await reserialisedTexts(store, from, BATCH).catch((error: unknown) => {
      // Its stored bytes are not at hand here, and a hash of anything else would be a false entry.
      throw error instanceof EntryUnavailableError ? new Error(`cannot export ${error.message}`) : error;
    });
    for (const event of batch) {
      const { stream_hash, chain_hash, previous_stream_hash, previous_chain_hash } = chain.next(event);
      if (event.position > after) {
        const { position, stream, revision, id, type, data, metadata } = event;
        yield {
          record: { position, stream, revision, id, type, data, metadata, stream_hash, chain_hash },
          links: { previous_stream_hash, previous_chain_hash },
        };
      }
    }
    const last = batch.at(-1);
    if (!last || batch.length < BATCH) return;
    from = last.position;
  }
}
