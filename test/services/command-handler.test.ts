import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { ConcurrencyError, type EventStore, type ExpectedRevision } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { aCollection, aWatch } from '../unit/services/support/builders.ts';
import { readable } from '../support/readable-events.ts';

describe('command handler (SQLite event store)', () => {
  let store: EventStore;
  let service: CommandService;
  const now = new Date('2025-03-01T10:00:00.000Z');

  beforeEach(async () => {
    store = openSqliteEventStore(':memory:');
    service = createCommandService(store, { clock: () => now, actor: 'test' });
    await service.defineCollection(aCollection());
    await service.publishWatch(aWatch());
  });
  afterEach(() => store.close());

  it('stamps each event with a UUID v4 and the metadata, and answers its position', async () => {
    const result = await service.changeWatchPrice('aur-lu-001', 1_300_000, { actor: 'alice', correlationId: 'import-1', causationId: 'cmd-7' });
    const events = await store.readStream('watch-AUR-LU-001');
    const last = events.at(-1);
    expect(last?.type).to.equal('WatchPriceChanged');
    expect(last?.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(last?.metadata).to.deep.equal({
      actor: 'alice', correlation_id: 'import-1', causation_id: 'cmd-7', occurred_at: now.toISOString(), schema_version: 1,
    });
    expect(result).to.deep.equal({ position: last?.position, appended: 1 });
  });

  it('appends nothing for a command that repeats the current state, and answers the head', async () => {
    const head = await store.headPosition();
    const result = await service.changeWatchStock('AUR-LU-001', 'in_stock');
    expect(result).to.deep.equal({ position: head, appended: 0 });
    expect(await store.headPosition()).to.equal(head);
  });

  it('throws the decider refusal and writes nothing', async () => {
    const head = await store.headPosition();
    const refusal = await service.changeWatchPrice('FOO-1', 100).catch((error: unknown) => error);
    expect(refusal).to.be.instanceOf(DomainError);
    expect((refusal as DomainError).message).to.equal('unknown watch FOO-1');
    expect(await store.headPosition()).to.equal(head);
  });

  it('refuses data the event schema rejects, as an invalid command', async () => {
    const refusal = await service.publishWatch(aWatch({ reference: 'bad ref' })).catch((error: unknown) => error);
    expect(refusal).to.be.instanceOf(DomainError);
    expect((refusal as DomainError).kind).to.equal('invalid');
    expect((refusal as DomainError).message).to.match(/^refused: reference must match pattern/);
    expect((refusal as DomainError).message).not.to.include('WatchPublished');
  });

  it('applies 50 concurrent price changes on one watch exactly once each, with no lost update', async () => {
    const prices = Array.from({ length: 50 }, (_, i) => 2_000_000 + i * 100);
    const results = await Promise.all(prices.map((price) => service.changeWatchPrice('AUR-LU-001', price)));
    expect(results.every((r) => r.appended === 1)).to.equal(true);

    const changes = readable(await store.readStream('watch-AUR-LU-001')).filter((e) => e.type === 'WatchPriceChanged');
    expect(changes).to.have.length(50);
    const applied = changes.map((e) => (e.data as { price_cents: number }).price_cents);
    expect([...applied].sort()).to.deep.equal([...prices].sort());
    // No lost update: each change names, as its previous price, the price the one before it set.
    changes.forEach((change, i) => {
      const previous = i === 0 ? aWatch().price_cents : applied[i - 1];
      expect((change.data as { previous_price_cents: number }).previous_price_cents).to.equal(previous);
    });
  });

  it('appends at an exact revision with fresh ids on each attempt, relying on no engine\'s id idempotence', async () => {
    // The first attempt is refused as a concurrent writer would make it; the second goes through.
    const attempts: { expected: ExpectedRevision; ids: string[] }[] = [];
    const refusingOnce: EventStore = {
      readStream: (stream, options) => store.readStream(stream, options),
      readAll: (options) => store.readAll(options),
      headPosition: () => store.headPosition(),
      onAppended: (listener) => store.onAppended(listener),
      close: () => store.close(),
      append: async (stream, events, expected) => {
        attempts.push({ expected, ids: events.map((e) => e.id) });
        if (attempts.length === 1) throw new ConcurrencyError(stream, expected, 0);
        return store.append(stream, events, expected);
      },
    };
    await createCommandService(refusingOnce, { clock: () => now, actor: 'test' }).changeWatchPrice('AUR-LU-001', 1_300_000);
    expect(attempts.map((a) => a.expected)).to.deep.equal([0, 0]);
    expect(attempts[1]!.ids).to.have.length(1);
    expect(attempts[1]!.ids).not.to.include(attempts[0]!.ids[0]);
  });
});
