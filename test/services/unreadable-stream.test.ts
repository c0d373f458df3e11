/**
 * A command on a stream that holds an event this version cannot read (a newer writer's) is refused, naming the
 * event, and appends nothing: its decider would otherwise decide on a state that leaves part of the history out.
 * The same holds when the stream is only read as context (a serial registration reads its watch's stream).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { CollectionDefined, WatchPublished } from '../../shared/events/index.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { collectionDefined, eventMetadata, watchPublished } from '../fixtures/events.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';

describe('commands on a stream holding an event this version cannot read', () => {
  let dir: string;
  let store: EventStore;
  let commands: CommandService;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-unreadable-stream-'));
    const file = join(dir, 'events.sqlite3');
    store = openSqliteEventStore(file);
    commands = createCommandService(store);
    await commands.defineCollection(collectionDefined('tempo').data as CollectionDefined);
    await commands.publishWatch(watchPublished('TMP-1', 'tempo', { price_cents: 100_000 }).data as WatchPublished);
    // Loaded once before the newer event, so the loader's cache holds the watch's state: the refusal must not rest on a fresh read.
    await commands.changeWatchPrice('TMP-1', 110_000);
    appendAsNewerVersion(file, 'watch-TMP-1', [{ type: 'WatchCertified', data: { reference: 'TMP-1', certificate: 'COSC' }, metadata: eventMetadata() }]);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (command: Promise<unknown>) => command.then(() => undefined, (error: unknown) => error);
  const expected = 'watch-TMP-1 holds an event this version cannot read (WatchCertified at revision 2: unknown event type); '
    + 'run this command with the version that wrote it';

  it('refuses a command on that stream as a conflict naming the event, and appends nothing', async () => {
    const head = await store.headPosition();
    const error = await refusal(commands.changeWatchPrice('TMP-1', 120_000));
    expect(error).to.be.instanceOf(DomainError).and.to.include({ kind: 'conflict', message: expected });
    expect(await store.headPosition()).to.equal(head);
  });

  it('refuses a command that reads that stream as context', async () => {
    const error = await refusal(commands.registerSerial('TMP-0001', 'TMP-1', 2024));
    expect(error).to.be.instanceOf(DomainError).and.to.include({ kind: 'conflict', message: expected });
  });
});
