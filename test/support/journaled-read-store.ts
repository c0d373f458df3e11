/**
 * A test-only read store that survives its process: the in-memory store, plus a journal file where every bulk
 * write and every control-document change is appended (one line, one `write` system call) before it is applied.
 * Opening the store again replays the journal. Each write is journaled on its own, so a process killed between a
 * projection's bulk write and its checkpoint leaves exactly that state behind, as MongoDB would. Stands in for
 * MongoDB in the crash tests when no MongoDB server is reachable.
 *
 * `killAtWrite: n` SIGKILLs the process right after its n-th write is journaled: a crash at an exact point of the
 * replay, between a projection's bulk write and its checkpoint half of the time.
 */
import { appendFileSync, existsSync, readFileSync, truncateSync } from 'node:fs';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ControlDoc, Filter, ProjectedCollection, ReadStore, WriteOp } from '../../shared/ports/read-store.ts';

type JournalLine =
  | { collection: ProjectedCollection; generation?: number; ops: WriteOp[] }
  | { control: ControlDoc; condition: Filter; insertIfAbsent: boolean }
  | { removeControl: string };

export async function openJournaledReadStore(journal: string, killAtWrite = 0): Promise<ReadStore & { replayed: number }> {
  const memory = createMemoryReadStore();
  const apply = async (entry: JournalLine): Promise<unknown> => {
    if ('control' in entry) return memory.setControl(entry.control, entry.condition, entry.insertIfAbsent);
    if ('removeControl' in entry) return memory.removeControl(entry.removeControl);
    // A write refused when it was made (a conflict) is refused again: the journal keeps what was tried.
    const target = entry.generation === undefined ? undefined : memory.generation(entry.collection, entry.generation);
    return (target ? target.write(entry.ops) : memory.write(entry.collection, entry.ops));
  };
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
      await apply(JSON.parse(line) as JournalLine).catch(() => undefined);
      replayed += 1;
    }
  }
  let writes = 0;
  const journaled = async <T>(entry: JournalLine): Promise<T> => {
    appendFileSync(journal, `${JSON.stringify(entry)}\n`);
    writes += 1;
    if (writes === killAtWrite) process.kill(process.pid, 'SIGKILL');
    return apply(entry) as Promise<T>;
  };
  return {
    ...memory,
    replayed,
    write: (collection, ops) => journaled({ collection, ops }),
    generation: (collection, generation) => ({
      ...memory.generation(collection, generation),
      write: (ops) => journaled({ collection, generation, ops }),
    }),
    setControl: (control, condition, insertIfAbsent) => journaled({ control, condition, insertIfAbsent }),
    removeControl: (id) => journaled({ removeControl: id }),
  };
}
