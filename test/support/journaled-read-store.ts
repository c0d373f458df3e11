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
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
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
    for (const line of readFileSync(journal, 'utf8').split('\n')) {
      if (line === '') continue;
      let entry: JournalLine;
      try {
        entry = JSON.parse(line) as JournalLine;
      } catch {
        break; // a line cut short by the kill: that write never happened
      }
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
