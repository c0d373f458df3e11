/**
 * A rehearsal of appends: an event store that reads through to a real one and keeps what is appended to it in memory,
 * so that commands sent to it are loaded, decided, stamped and checked (the schemas, the transparency log's entry
 * bound: event-records.ts) as the real store would have them, and nothing is written. A catalogue import rehearses its
 * whole file first (services/import/import-catalogue.ts), so a command the deciders refuse stops it before its first
 * append instead of halfway through the file.
 *
 * It answers for the real store as it was read: a writer that changes the real store meanwhile is met only by the
 * real run, whose appends check their expected revisions as always.
 */
import { assertValidBatch, expectationHolds } from '../../../shared/adapters/event-records.ts';
import {
  ConcurrencyError, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type ReadAllOptions,
  type ReadStreamOptions, type RecordedEvent, type StoredEvent,
} from '../../../shared/ports/event-store.ts';

export function rehearsalStore(store: EventStore): EventStore {
  const byStream = new Map<string, RecordedEvent[]>();
  const appended: RecordedEvent[] = [];
  // The real head when the rehearsal first appends: rehearsed events take the positions after it.
  let head: Promise<number> | undefined;

  /** The real stream's last revision, in one short read when it is the one expected. */
  async function realRevision(stream: string, expected: ExpectedRevision): Promise<number | 'no_stream'> {
    if (typeof expected === 'number') {
      const from = await store.readStream(stream, { after: expected - 1 });
      if (from.length > 0) return from.at(-1)!.revision;
    }
    return (await store.readStream(stream)).at(-1)?.revision ?? 'no_stream';
  }

  return {
    async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
      assertValidBatch(stream, events);
      // A stream the rehearsal appended to is at its last rehearsed revision; another one is where the real store has it.
      const rehearsed = () => byStream.get(stream)?.at(-1)?.revision;
      const real = rehearsed() === undefined ? await realRevision(stream, expected) : 'no_stream';
      const base = await (head ??= store.headPosition());
      // Asked again after the waits: another rehearsed append to this stream may have landed meanwhile.
      const current = rehearsed() ?? real;
      if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);
      const first = current === 'no_stream' ? 0 : current + 1;
      const recorded = events.map((event, i): RecordedEvent => ({
        ...structuredClone(event), stream, revision: first + i, position: base + appended.length + i + 1,
      }));
      if (recorded.length > 0) byStream.set(stream, [...(byStream.get(stream) ?? []), ...recorded]);
      appended.push(...recorded);
      return { nextRevision: first + events.length - 1, position: appended.at(-1)?.position ?? base };
    },
    async readStream(stream: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
      const after = options?.after ?? -1;
      const rehearsed = (byStream.get(stream) ?? []).filter((event) => event.revision > after);
      return [...await store.readStream(stream, options), ...rehearsed];
    },
    async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
      const real = await store.readAll({ after, limit });
      return [...real, ...appended.filter((event) => event.position > after).slice(0, limit - real.length)];
    },
    headPosition: async () => appended.at(-1)?.position ?? store.headPosition(),
    // Nothing is written, so there is nothing to signal; the real store is its owner's to close.
    onAppended: () => () => undefined,
    close: async () => undefined,
  };
}
