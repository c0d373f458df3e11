/**
 * A child process for the command crash test: sends commands through the command service to the SQLite event
 * store as fast as it can, forever, and prints `ACK <correlation> <position>` once each command is acknowledged.
 * Even commands register a new serial (a new stream), odd ones change the price of one watch that every worker
 * shares (a contended stream: writers race and retry). Usage: node --import tsx command-burst.ts FILE TAG REFERENCE
 */
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createCommandService } from '../../../services/write/command-service.ts';

const [file, tag, reference] = process.argv.slice(2);
if (!file || !tag || !reference) throw new Error('usage: command-burst.ts FILE TAG REFERENCE');

const service = createCommandService(openSqliteEventStore(file), { actor: `crash-test-${tag}` });
process.stdout.write('READY\n');
for (let i = 0; ; i += 1) {
  const correlationId = `${tag}-c${i}`;
  const result = i % 2 === 0
    ? await service.registerSerial(`${tag}-S${i}`, reference, 2024, { correlationId })
    // A price no other command uses, so the command is never a no-op.
    : await service.changeWatchPrice(reference, 1_000_000 + Number(tag.replace(/\D/g, '')) * 100_000 + i, { correlationId });
  process.stdout.write(`ACK ${correlationId} ${result.position}\n`);
}
