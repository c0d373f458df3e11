/**
 * The rehearsal of appends (services/write/handler/rehearsal-store.ts) that an import runs its whole file through
 * before it appends anything: it reads the real store with what it was given on top, answers and refuses every append
 * as the real store would (a schema, an entry too large for the transparency log, a revision that is not the expected
 * one), reads of a real stream only what the check needs, signals nothing and writes nothing to the real store. A
 * service's rehearsal decides as the service does and counts no outcome.
 */
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { InvalidEventError } from '../../shared/events/codec.ts';
import {
  ConcurrencyError, streams, type AppendResult, type EventStore, type ExpectedRevision, type ReadStreamOptions,
} from '../../shared/ports/event-store.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { rehearsalStore } from '../../services/write/handler/rehearsal-store.ts';
import { collectionDefined, serialRecovered, serialRegistered, serialReportedStolen, watchPublished } from '../fixtures/events.ts';
import { readable } from '../support/readable-events.ts';
import { rejectionOf } from '../support/rejection.ts';
import { aCollection, aWatch } from '../unit/services/support/builders.ts';

describe('a rehearsal of appends', () => {
  let store: EventStore;
  beforeEach(() => {
    store = openSqliteEventStore(':memory:');
  });
  afterEach(() => store.close());

  it('reads the real store with what it was given on top, in revision and position order, and writes nothing to it', async () => {
    await store.append(streams.collection('lumiere'), [collectionDefined('lumiere')], 'no_stream');
    await store.append(streams.serial('S-0001'), [serialRegistered('S-0001')], 'no_stream');
    const head = await store.headPosition();
    const rehearsal = rehearsalStore(store);

    const stolen = serialReportedStolen('S-0001');
    const published = watchPublished('AUR-LU-001', 'lumiere');
    expect(await rehearsal.append(streams.serial('S-0001'), [stolen], 0)).to.deep.equal({ nextRevision: 1, position: head + 1 });
    expect(await rehearsal.append(streams.watch('AUR-LU-001'), [published], 'no_stream')).to.deep.equal({ nextRevision: 0, position: head + 2 });

    const serial = readable(await rehearsal.readStream(streams.serial('S-0001')));
    expect(serial.map((event) => [event.type, event.revision])).to.deep.equal([['SerialRegistered', 0], ['SerialReportedStolen', 1]]);
    expect(readable(await rehearsal.readStream(streams.serial('S-0001'), { after: 0 })).map((event) => event.id)).to.deep.equal([stolen.id]);
    expect((await rehearsal.readAll({ after: 0, limit: 100 })).map((event) => event.type))
      .to.deep.equal(['CollectionDefined', 'SerialRegistered', 'SerialReportedStolen', 'WatchPublished']);
    expect((await rehearsal.readAll({ after: head, limit: 1 })).map((event) => event.id)).to.deep.equal([stolen.id]);
    expect(await rehearsal.headPosition()).to.equal(head + 2);

    expect(await store.headPosition(), 'the real store').to.equal(head);
    expect(await store.readStream(streams.watch('AUR-LU-001'))).to.deep.equal([]);
  });

  it('refuses what the real store refuses: an invalid event, an entry too large for the log, an expectation that does not hold', async () => {
    await store.append(streams.serial('S-0001'), [serialRegistered('S-0001')], 'no_stream');
    const rehearsal = rehearsalStore(store);
    const stream = streams.watch('AUR-LU-001');

    const badReference = watchPublished('aur-lu-001', 'lumiere');
    for (const target of [store, rehearsal]) {
      expect(await rejectionOf(target.append(stream, [badReference], 'no_stream'))).to.be.instanceOf(InvalidEventError);
    }
    // 500 control characters are 3,000 bytes once written (`\u0001` each): 20 of them a language pass every field's bound.
    const escaped = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key_${String.fromCharCode(97 + i)}`, '\u0001'.repeat(500)]));
    const oversized = watchPublished('AUR-LU-001', 'lumiere', { specifications: { en: escaped, fr: escaped } });
    for (const target of [store, rehearsal]) {
      expect((await rejectionOf(target.append(stream, [oversized], 'no_stream')) as Error).message).to.match(/more than an entry holds/);
    }
    for (const target of [store, rehearsal]) {
      expect(await rejectionOf(target.append(streams.serial('S-0001'), [serialReportedStolen('S-0001')], 'no_stream'))).to.be.instanceOf(ConcurrencyError);
    }
    await rehearsal.append(stream, [watchPublished('AUR-LU-001', 'lumiere')], 'no_stream');
    expect(await rejectionOf(rehearsal.append(stream, [watchPublished('AUR-LU-001', 'lumiere')], 'no_stream'))).to.be.instanceOf(ConcurrencyError);
    expect(await store.headPosition(), 'the real store').to.equal(1);
  });

  it('lets a service rehearse its commands: decided as the service decides, told to no outcome counter, nothing written', async () => {
    const outcomes: string[] = [];
    const service = createCommandService(store, { onOutcome: (command, outcome) => outcomes.push(`${command} ${outcome}`) });
    await service.defineCollection(aCollection());
    const head = await store.headPosition();

    const rehearsal = service.rehearsal();
    await rehearsal.publishWatch(aWatch());
    expect((await rehearsal.watchState('AUR-LU-001')).status, 'the rehearsal holds what it was given').to.equal('published');
    expect((await rejectionOf(rehearsal.publishWatch(aWatch())) as Error).message).to.equal('watch AUR-LU-001 is already published');
    expect((await rejectionOf(rehearsal.publishWatch(aWatch({ reference: 'AUR-XX-001', collection: 'nowhere' }))) as Error).message)
      .to.equal('unknown collection nowhere');

    expect(await store.headPosition(), 'the real store').to.equal(head);
    expect((await service.watchState('AUR-LU-001')).status).to.equal('unpublished');
    expect(outcomes).to.deep.equal(['DefineCollection appended']);
  });
});

describe('a rehearsal judges as the real store would', () => {
  // Two stores given the same history: the reference takes each append for real, the rehearsal runs over its twin.
  // SQLite numbers positions one by one, as the rehearsal does after the real head, so every answer and every read,
  // event by event, must be equal.
  let reference: EventStore;
  let twin: EventStore;
  const history = [
    [streams.collection('lumiere'), [collectionDefined('lumiere')]],
    [streams.serial('S-0001'), [serialRegistered('S-0001'), serialReportedStolen('S-0001'), serialRecovered('S-0001')]],
  ] as const;
  beforeEach(async () => {
    [reference, twin] = [openSqliteEventStore(':memory:'), openSqliteEventStore(':memory:')];
    for (const target of [reference, twin]) {
      for (const [stream, events] of history) await target.append(stream, [...events], 'no_stream');
    }
  });
  afterEach(async () => {
    await reference.close();
    await twin.close();
  });

  /** An append's answer, or the refusal with what it names. */
  const outcomeOf = (append: Promise<AppendResult>) => append.then(
    (result) => ({ result }),
    (error: unknown) => (error instanceof ConcurrencyError
      ? { refused: { stream: error.stream, expected: error.expected, actual: error.actual } }
      : Promise.reject(error)),
  );

  it('answers or refuses every append as the real store does, and reads back what it would hold', async () => {
    const rehearsal = rehearsalStore(twin);
    const real = streams.serial('S-0001'); // revisions 0 to 2 in the real store
    const missing = streams.serial('S-0002');
    // [stream, events, expected]: on the real stream and a missing one, expectations below, at and above, no_stream
    // and any, with events and with none (the first one accepted has none); then the same once the rehearsal has
    // appended to them.
    const steps: Array<[string, number, ExpectedRevision]> = [
      [real, 1, 0], [real, 1, 1], [real, 1, 3], [real, 1, -1], [real, 1, 'no_stream'], [real, 0, 1],
      [real, 0, 2], [real, 0, 'any'], [missing, 0, 'any'], [missing, 1, 0], [missing, 0, 0],
      [real, 2, 2], [real, 1, 2], [real, 1, 3], [real, 0, 'no_stream'], [real, 1, 4], [real, 1, 'any'], [real, 0, 6],
      [missing, 1, 'no_stream'], [missing, 1, 'no_stream'], [missing, 1, 1], [missing, 1, 0],
      [streams.serial('S-0003'), 1, 'any'],
    ];
    expect(await rehearsal.headPosition(), 'before any append').to.equal(await reference.headPosition());
    for (const [stream, count, expected] of steps) {
      const events = Array.from({ length: count }, () => serialReportedStolen(stream.slice('serial-'.length)));
      const step = `${count} event(s) to ${stream} expecting ${expected}`;
      expect(await outcomeOf(rehearsal.append(stream, events, expected)), step).to.deep.equal(await outcomeOf(reference.append(stream, events, expected)));
      expect(await rehearsal.headPosition(), `the head after ${step}`).to.equal(await reference.headPosition());
    }

    for (const stream of [real, missing, streams.serial('S-0003'), streams.collection('lumiere'), streams.serial('S-0404')]) {
      expect(readable(await rehearsal.readStream(stream)), stream).to.deep.equal(readable(await reference.readStream(stream)));
      for (let after = -1; after <= 7; after += 1) {
        expect(readable(await rehearsal.readStream(stream, { after })), `${stream} after ${after}`)
          .to.deep.equal(readable(await reference.readStream(stream, { after })));
      }
    }
    const head = await reference.headPosition();
    for (let after = 0; after <= head; after += 1) {
      for (let limit = 1; limit <= head + 1; limit += 1) {
        expect(readable(await rehearsal.readAll({ after, limit })), `after ${after}, limit ${limit}`)
          .to.deep.equal(readable(await reference.readAll({ after, limit })));
      }
    }
    expect(await twin.headPosition(), 'the real store').to.equal(4);
    expect(readable(await twin.readAll({ after: 0, limit: 100 })).map((event) => event.id))
      .to.deep.equal(history.flatMap(([, events]) => events.map((event) => event.id)));
  });
});

describe('what a rehearsal reads of the real store and signals', () => {
  let store: EventStore;
  beforeEach(() => {
    store = openSqliteEventStore(':memory:');
  });
  afterEach(() => store.close());

  it('checks an exact revision reading the real stream only from that revision on, and a stream it appended to not at all', async () => {
    // An import's commands load a long stream's tail only (services/write/handler/state-cache.ts); checking each
    // rehearsed append against the whole real stream would make rehearsing a catalogue cost that again.
    const stream = streams.serial('S-0001');
    await store.append(stream, [serialRegistered('S-0001'), ...Array.from({ length: 4 }, () => serialReportedStolen('S-0001'))], 'no_stream');
    const revisionsRead: number[] = [];
    const spy = Object.assign(Object.create(store) as EventStore, {
      readStream: async (name: string, options?: ReadStreamOptions) => {
        const events = await store.readStream(name, options);
        revisionsRead.push(...events.map((event) => event.revision));
        return events;
      },
    });
    const rehearsal = rehearsalStore(spy);

    expect(await rehearsal.append(stream, [serialRecovered('S-0001')], 4)).to.include({ nextRevision: 5 });
    expect(revisionsRead, 'read to check revision 4').to.deep.equal([4]);
    revisionsRead.length = 0;
    expect(await rehearsal.append(stream, [serialReportedStolen('S-0001')], 5)).to.include({ nextRevision: 6 });
    expect(revisionsRead, 'read to check a rehearsed revision').to.deep.equal([]);
  });

  it('never signals an append, and hands back a stop that can be called', async () => {
    let calls = 0;
    const rehearsal = rehearsalStore(store);
    const stop = rehearsal.onAppended(() => { calls += 1; });
    await rehearsal.append(streams.serial('S-0001'), [serialRegistered('S-0001')], 'no_stream');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).to.equal(0);
    expect(stop).to.be.a('function');
    stop();
  });
});
