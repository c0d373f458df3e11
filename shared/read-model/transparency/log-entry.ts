/**
 * Leaf i of the transparency log is the i-th event in event-store order; its entry is the event's canonical bytes:
 * the JSON object `{"stream","revision","id","type","data","metadata"}` with `data` and `metadata` the stored
 * texts. It is the audit export's line without its position and hashes, so an auditor rebuilds every leaf from an
 * export (whose `data` and `metadata` re-serialise to the stored texts). The position is left out because it is
 * the engine's own numbering (EventStoreDB's are log offsets); the random event id is kept, so that no leaf hash
 * lets anyone test a guessed serial.
 */
import { isUnreadable, type EventStore, type StoredEventText } from '../../ports/event-store.ts';
import { jsonString } from '../../text/json-string.ts';

export type EntryFields = Omit<StoredEventText, 'position'>;

/** An entry bundle (C2SP tlog-tiles) writes each entry's length as a big-endian uint16: no entry may be longer. */
export const MAX_ENTRY_BYTES = 0xffff;

/** The entry as text; its bytes are its UTF-8 encoding. */
export function entryText({ stream, revision, id, type, data, metadata }: EntryFields): string {
  // The stored texts go in as they are: re-serialising them could only differ from what was hashed at append.
  return `{"stream":${jsonString(stream)},"revision":${revision},"id":${jsonString(id)},"type":${jsonString(type)},`
    + `"data":${data},"metadata":${metadata}}`;
}


/**
 * Thrown for an event whose texts are not at hand and that this version cannot decode: its message names the event
 * (`<type> at position <p> (<stream> revision <r>): this version cannot read it: <why>`); readers stop there rather
 * than hold a false entry.
 */
export class EntryUnavailableError extends Error {}

/** The next batch of the history as stored texts, or re-serialised where the store keeps none (see the port). */
export async function readEntryTexts(store: EventStore, after: number, limit: number): Promise<StoredEventText[]> {
  return store.readStoredTexts ? store.readStoredTexts({ after, limit }) : reserialisedTexts(store, after, limit);
}

/** The next batch read through the codec and serialised again with `JSON.stringify`, as the SQLite store writes. */
export async function reserialisedTexts(store: EventStore, after: number, limit: number): Promise<StoredEventText[]> {
  return (await store.readAll({ after, limit })).map((event) => {
    if (isUnreadable(event)) {
      throw new EntryUnavailableError(`${event.type} at position ${event.position} (${event.stream} revision ${event.revision}): this version cannot read it: ${event.unreadable}`);
    }
    const { position, stream, revision, id, type } = event;
    return { position, stream, revision, id, type, data: JSON.stringify(event.data), metadata: JSON.stringify(event.metadata) };
  });
}
