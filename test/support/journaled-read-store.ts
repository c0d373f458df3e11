/**
 * A test-only read store that survives its process: the in-memory store, plus a journal file where every bulk
 * write is appended (one line, one `write` system call) before it is applied. Opening the store again replays the
 * journal. Each `write` call is journaled on its own, so a process killed between a projection's bulk write and its
 * checkpoint write leaves exactly that state behind, as MongoDB would. Stands in for MongoDB in the crash tests
 * when no MongoDB server is reachable. Rebuild generations are not journaled (the crash test does not rebuild).
 *
 * `killAtWrite: n` SIGKILLs the process right after its n-th write is journaled: a crash at an exact point of the
 * replay, between a projection's bulk write and its checkpoint half of the time.
 */
import { appendFileSync, existsSync, readFileSync, truncateSync } from 'node:fs';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ReadStore, WriteOp } from '../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../shared/read-models/documents.ts';

interface JournalLine {
  collection: ReadCollection;
  ops: WriteOp[];
}

export async function openJournaledReadStore(journal: string, killAtWrite = 0): Promise<ReadStore & { replayed: number }> {
  const memory = createMemoryReadStore();
  let replayed = 0;
  if (existsSync(journal)) {
    const bytes = readFileSync(journal);
    // A SIGKILL can cut a large write short (Linux stops copying pages once the signal is pending): that write
    // never happened. Its fragment is cut off before anything is appended, as a write-ahead log is recovered, or
    // the next run's first line would be glued to it and lost with everything after it.
    const complete = bytes.lastIndexOf(0x0a) + 1;
    if (complete < bytes.length) truncateSync(journal, complete);
    for (const line of bytes.subarray(0, complete).toString('utf8').split('\n')) {
      if (line === '') continue;
      const entry = JSON.parse(line) as JournalLine;
      await memory.write(entry.collection, entry.ops);
      replayed += 1;
    }
  }
  let writes = 0;
  return {
    ...memory,
    replayed,
    write: async (collection, ops) => {
      appendFileSync(journal, `${JSON.stringify({ collection, ops } satisfies JournalLine)}\n`);
      writes += 1;
      if (writes === killAtWrite) process.kill(process.pid, 'SIGKILL');
      await memory.write(collection, ops);
    },
  };
}
