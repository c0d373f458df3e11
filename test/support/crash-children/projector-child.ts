/**
 * A child process for the projector crash test: the real projector (runner, in-process queue) over a SQLite event
 * store and a journaled read store that survives the process, running every projection to the head in small
 * batches, then printing DONE. With KILL_AT_WRITE > 0 it SIGKILLs itself right after that many read-store writes.
 * Usage: node --import tsx projector-child.ts EVENTS_FILE JOURNAL_FILE BATCH_SIZE [KILL_AT_WRITE]
 */
import { pino } from 'pino';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createInlineJobQueue } from '../../../shared/adapters/inline-job-queue.ts';
import { createProjector } from '../../../projector/runner.ts';
import { openJournaledReadStore } from '../journaled-read-store.ts';

const [eventsFile, journal, batchSize, killAtWrite] = process.argv.slice(2);
if (!eventsFile || !journal || !batchSize) throw new Error('usage: projector-child.ts EVENTS_FILE JOURNAL_FILE BATCH_SIZE');

const eventStore = openSqliteEventStore(eventsFile);
const readStore = await openJournaledReadStore(journal, Number(killAtWrite ?? 0));
const projector = createProjector({
  eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 10 }), logger: pino({ level: 'warn' }, process.stderr),
  batchSize: Number(batchSize),
});
process.stdout.write(`READY ${readStore.replayed}\n`);
await projector.catchUp();
const failed = projector.status().filter((status) => status.status === 'failed');
process.stdout.write(failed.length === 0 ? 'DONE\n' : `FAILED ${JSON.stringify(failed)}\n`);
await eventStore.close();
