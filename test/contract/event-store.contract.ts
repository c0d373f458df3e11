/**
 * The one behaviour every EventStore adapter answers to. Each adapter's spec file calls `eventStoreContract` with
 * a factory. Tests only assume the store may already hold other events (a shared EventStoreDB), so they use
 * fresh streams and read the history from the head they found.
 */
import { expect } from 'chai';
import { InvalidEventError } from '../../shared/events/codec.ts';
import { ConcurrencyError, streams, type EventStore, type NewEvent } from '../../shared/ports/event-store.ts';
import {
  eventMetadata, invalidSerialReportedStolen, randomSerial, serialRecovered, serialRegistered, serialReportedStolen,
} from '../fixtures/events.ts';
import { rejectionOf } from '../support/rejection.ts';
import { readable } from '../support/readable-events.ts';

export interface EventStoreUnderTest {
  store: EventStore;
  /** Opens another handle on the same storage, as another process would (adapters that can). */
  openAnotherHandle?: () => Promise<EventStore> | EventStore;
  dispose(): Promise<void>;
}

/** A fresh serial stream and a builder of valid events for it. */
function freshSerialStream() {
  const serial = randomSerial();
  return { stream: streams.serial(serial), serial, registered: () => serialRegistered(serial), stolen: () => serialReportedStolen(serial) };
}

export async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export function eventStoreContract(name: string, makeStore: () => Promise<EventStoreUnderTest>): void {
  describe(`EventStore contract: ${name}`, function () {
    let subject: EventStoreUnderTest;
    let store: EventStore;

    beforeEach(async function () {
      subject = await makeStore();
      store = subject.store;
    });
    afterEach(async function () {
      await subject?.dispose();
    });

    describe('appending and reading one stream', function () {
      it('reads back appended events in revision order with their ids, data, metadata and rising positions', async function () {
        const { stream, registered, stolen, serial } = freshSerialStream();
        const appended = [registered(), stolen(), serialRecovered(serial)];
        const result = await store.append(stream, appended, 'no_stream');
        const read = readable(await store.readStream(stream));
        expect(read.map((e) => [e.id, e.type, e.data, e.metadata, e.stream, e.revision])).to.deep.equal(
          appended.map((e, i) => [e.id, e.type, e.data, e.metadata, stream, i]),
        );
        expect(read.map((e) => e.position)).to.deep.equal([...read.map((e) => e.position)].sort((a, b) => a - b));
        expect(new Set(read.map((e) => e.position)).size).to.equal(3);
        expect(result).to.deep.equal({ nextRevision: 2, position: read[2]!.position });
      });

      it('reads an unknown stream as empty', async function () {
        expect(await store.readStream(freshSerialStream().stream)).to.deep.equal([]);
      });

      it('with after, reads only the events past that revision, and none past the last one or of an unknown stream', async function () {
        const { stream, registered, stolen, serial } = freshSerialStream();
        const appended = [registered(), stolen(), serialRecovered(serial)];
        await store.append(stream, appended, 'no_stream');
        const after = async (revision: number, name = stream) => (await store.readStream(name, { after: revision })).map((e) => [e.id, e.revision]);
        expect(await after(-1)).to.deep.equal(appended.map((e, i) => [e.id, i]));
        expect(await after(0)).to.deep.equal([[appended[1]!.id, 1], [appended[2]!.id, 2]]);
        expect(await after(2)).to.deep.equal([]);
        expect(await after(7)).to.deep.equal([]);
        expect(await after(0, freshSerialStream().stream)).to.deep.equal([]);
      });
    });

    describe('expected revision', function () {
      it('no_stream accepts a new stream and refuses an existing one, naming its revision', async function () {
        const { stream, registered, stolen } = freshSerialStream();
        await store.append(stream, [registered()], 'no_stream');
        const error = await rejectionOf(store.append(stream, [stolen()], 'no_stream'));
        expect(error).to.be.instanceOf(ConcurrencyError);
        expect(error).to.include({ stream, expected: 'no_stream', actual: 0 });
      });

      it('an exact revision appends after that revision and answers the next one', async function () {
        const { stream, registered, stolen, serial } = freshSerialStream();
        await store.append(stream, [registered()], 'no_stream');
        expect((await store.append(stream, [stolen()], 0)).nextRevision).to.equal(1);
        expect((await store.append(stream, [serialRecovered(serial)], 1)).nextRevision).to.equal(2);
      });

      it('any appends to a new stream and to an existing one', async function () {
        const { stream, registered, stolen } = freshSerialStream();
        expect((await store.append(stream, [registered()], 'any')).nextRevision).to.equal(0);
        expect((await store.append(stream, [stolen()], 'any')).nextRevision).to.equal(1);
      });

      it('appending no events writes nothing, answers the stream revision (-1 when missing) and the head, and still checks the expectation', async function () {
        const { stream, registered } = freshSerialStream();
        const head = await store.headPosition();
        expect(await store.append(stream, [], 'any')).to.deep.equal({ nextRevision: -1, position: head });
        expect(await store.append(stream, [], 'no_stream')).to.deep.equal({ nextRevision: -1, position: head });
        expect(await rejectionOf(store.append(stream, [], 0))).to.be.instanceOf(ConcurrencyError);
        const { position } = await store.append(stream, [registered()], 'no_stream');
        expect(await store.append(stream, [], 0)).to.deep.equal({ nextRevision: 0, position });
        expect(await store.append(stream, [], 'any')).to.deep.equal({ nextRevision: 0, position });
        const error = await rejectionOf(store.append(stream, [], 'no_stream'));
        expect(error).to.be.instanceOf(ConcurrencyError);
        expect(error).to.include({ expected: 'no_stream', actual: 0 });
        expect(await store.readStream(stream)).to.have.length(1);
      });

      it('a stale revision is a ConcurrencyError and writes nothing', async function () {
        const { stream, registered, stolen, serial } = freshSerialStream();
        await store.append(stream, [registered(), stolen()], 'no_stream');
        const head = await store.headPosition();
        const error = await rejectionOf(store.append(stream, [serialRecovered(serial)], 0));
        expect(error).to.be.instanceOf(ConcurrencyError);
        expect(error).to.include({ expected: 0, actual: 1 });
        expect(await store.readStream(stream)).to.have.length(2);
        expect(await store.headPosition()).to.equal(head);
      });

      it('an exact revision on a missing stream is a ConcurrencyError naming no_stream', async function () {
        const { stream, registered } = freshSerialStream();
        const error = await rejectionOf(store.append(stream, [registered()], 0));
        expect(error).to.be.instanceOf(ConcurrencyError);
        expect(error).to.include({ actual: 'no_stream' });
        expect(await store.readStream(stream)).to.deep.equal([]);
      });
    });

    describe('atomicity and validation', function () {
      it('an invalid event in the middle of an append writes none of its events', async function () {
        const { stream, registered, serial } = freshSerialStream();
        const head = await store.headPosition();
        const error = await rejectionOf(store.append(stream, [registered(), invalidSerialReportedStolen(), serialRecovered(serial)], 'any'));
        expect(error).to.be.instanceOf(InvalidEventError);
        expect(await store.readStream(stream)).to.deep.equal([]);
        expect(await store.headPosition()).to.equal(head);
      });

      it('rejects metadata that breaks its schema', async function () {
        const { stream, registered } = freshSerialStream();
        const event = { ...registered(), metadata: { ...eventMetadata(), actor: '' } };
        expect(await rejectionOf(store.append(stream, [event], 'any'))).to.be.instanceOf(InvalidEventError);
        expect(await store.readStream(stream)).to.deep.equal([]);
      });

      it('rejects an unknown event type', async function () {
        const { stream, registered } = freshSerialStream();
        const event = { ...registered(), type: 'SerialMelted' } as unknown as NewEvent;
        expect(await rejectionOf(store.append(stream, [event], 'any'))).to.be.instanceOf(InvalidEventError);
      });
    });

    describe('concurrent writers', function () {
      it('of twenty writers expecting the same revision, exactly one wins', async function () {
        const { stream, registered, serial } = freshSerialStream();
        await store.append(stream, [registered()], 'no_stream');
        const outcomes = await Promise.allSettled(
          Array.from({ length: 20 }, () => store.append(stream, [serialReportedStolen(serial)], 0)),
        );
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).to.have.length(1);
        expect(lost.every((o) => o.reason instanceof ConcurrencyError)).to.equal(true);
        expect(await store.readStream(stream)).to.have.length(2);
      });

      it('twenty writers retrying on conflict each win exactly one revision', async function () {
        const { stream, registered, serial } = freshSerialStream();
        await store.append(stream, [registered()], 'no_stream');
        const writer = async (name: string) => {
          for (;;) {
            const revision = (await store.readStream(stream)).length - 1;
            try {
              return await store.append(stream, [serialReportedStolen(serial, { actor: name })], revision);
            } catch (error) {
              if (!(error instanceof ConcurrencyError)) throw error;
            }
          }
        };
        const names = Array.from({ length: 20 }, (_, i) => `writer-${i}`);
        await Promise.all(names.map(writer));
        const read = readable(await store.readStream(stream));
        expect(read.map((e) => e.revision)).to.deep.equal(Array.from({ length: 21 }, (_, i) => i));
        expect(read.slice(1).map((e) => e.metadata.actor).sort()).to.deep.equal([...names].sort());
      });
    });

    describe('the global history', function () {
      it('orders events across streams in the order they were appended', async function () {
        const start = await store.headPosition();
        const a = freshSerialStream();
        const b = freshSerialStream();
        const appended = [a.registered(), b.registered(), a.stolen(), b.stolen()];
        await store.append(a.stream, [appended[0]!], 'no_stream');
        await store.append(b.stream, [appended[1]!], 'no_stream');
        await store.append(a.stream, [appended[2]!], 0);
        await store.append(b.stream, [appended[3]!], 0);
        const ours = new Set(appended.map((e) => e.id));
        const all = (await store.readAll({ after: start, limit: 1_000 })).filter((e) => ours.has(e.id));
        expect(all.map((e) => e.id)).to.deep.equal(appended.map((e) => e.id));
        expect(all.map((e) => e.stream)).to.deep.equal([a.stream, b.stream, a.stream, b.stream]);
        const positions = all.map((e) => e.position);
        positions.slice(1).forEach((p, i) => expect(p).to.be.greaterThan(positions[i]!));
      });

      it('reads the history in batches with after/limit, covering every event exactly once', async function () {
        const start = await store.headPosition();
        const ids: string[] = [];
        // Appends of 2, 2, 3 and 1 events read 3 at a time: batches end inside an append (after its first event, then
        // its second), where an engine giving one position to a whole append would skip the rest of it.
        for (const size of [2, 2, 3, 1]) {
          const s = freshSerialStream();
          const events = [s.registered(), s.stolen(), serialRecovered(s.serial)].slice(0, size);
          ids.push(...events.map((e) => e.id));
          await store.append(s.stream, events, 'no_stream');
        }
        const seen: string[] = [];
        let after = start;
        for (let batches = 0; batches < 100; batches += 1) {
          const batch = await store.readAll({ after, limit: 3 });
          if (batch.length === 0) break;
          expect(batch.length).to.be.at.most(3);
          expect(batch[0]!.position).to.be.greaterThan(after);
          seen.push(...batch.map((e) => e.id));
          after = batch[batch.length - 1]!.position;
        }
        const ours = new Set(ids);
        expect(seen.filter((id) => ours.has(id))).to.deep.equal(ids);
        expect(new Set(seen).size).to.equal(seen.length);
      });

      it('headPosition is the position of the newest event', async function () {
        const { stream, registered, stolen } = freshSerialStream();
        const result = await store.append(stream, [registered(), stolen()], 'no_stream');
        expect(await store.headPosition()).to.equal(result.position);
        const read = await store.readStream(stream);
        expect(result.position).to.equal(read[1]!.position);
      });
    });

    describe('idempotent retries', function () {
      it('appending the same events again writes nothing and answers the original result', async function () {
        const { stream, registered, stolen } = freshSerialStream();
        const events = [registered(), stolen()];
        const first = await store.append(stream, events, 'no_stream');
        const head = await store.headPosition();
        const again = await store.append(stream, events, 'no_stream');
        expect(again).to.deep.equal(first);
        expect((await store.readStream(stream)).map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
        expect(await store.headPosition()).to.equal(head);
      });
    });

    describe('the append feed', function () {
      it('signals an append made through this handle', async function () {
        let calls = 0;
        const stop = store.onAppended(() => { calls += 1; });
        try {
          const { stream, registered } = freshSerialStream();
          await store.append(stream, [registered()], 'no_stream');
          await waitFor(() => calls > 0);
        } finally {
          stop();
        }
      });

      it('stops signalling once stopped', async function () {
        let calls = 0;
        const stop = store.onAppended(() => { calls += 1; });
        stop();
        const { stream, registered } = freshSerialStream();
        await store.append(stream, [registered()], 'no_stream');
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(calls).to.equal(0);
      });

      it('signals an append made through another handle on the same storage, as by another process', async function () {
        if (!subject.openAnotherHandle) this.skip();
        const other = await subject.openAnotherHandle();
        let calls = 0;
        const stop = store.onAppended(() => { calls += 1; });
        try {
          const { stream, registered } = freshSerialStream();
          await other.append(stream, [registered()], 'no_stream');
          await waitFor(() => calls > 0);
          expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['SerialRegistered']);
        } finally {
          stop();
          await other.close();
        }
      });
    });
  });
}
