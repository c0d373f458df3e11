/**
 * A child process for the crash test: appends to the SQLite event store in a loop, forever, and prints
 * `ACK <correlation> <position>` once each append has been acknowledged. Each append carries `size` events whose
 * metadata names their append (`correlation_id`) and its size (`causation_id` = `of-<size>`), so a reader can tell
 * whether an append is whole. It loads its modules first and opens the file only on a `GO` line on stdin, so a test
 * can start several children ahead of time and run them one after the other without paying each start-up.
 * Usage: node --import tsx sqlite-appender.ts FILE ROUND
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { streams } from '../../../shared/ports/event-store.ts';
import { serialReportedStolen } from '../../fixtures/events.ts';

const [file, round] = process.argv.slice(2);
if (!file || !round) throw new Error('usage: sqlite-appender.ts FILE ROUND');

await once(createInterface({ input: process.stdin }), 'line');
const store = openSqliteEventStore(file);
for (let i = 0; ; i += 1) {
  const size = 1 + (i % 4);
  const serial = `CRASH-${i % 5}`;
  const correlation = `r${round}-a${i}`;
  const metadata = { correlation_id: correlation, causation_id: `of-${size}`, actor: 'crash-test' };
  const events = Array.from({ length: size }, () => serialReportedStolen(serial, metadata));
  const { position } = await store.append(streams.serial(serial), events, 'any');
  process.stdout.write(`ACK ${correlation} ${position}\n`);
}
