/**
 * The EventStoreDB adapter's own logic, under a stand-in client (no server runs here): positions, skipped system
 * records, cancelled reads, the empty append and the resubscribing feed. The contract suite proves the rest
 * against a real server when EVENTSTORE_URL is set.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { END, type ResolvedEvent } from '@eventstore/db-client';
import { EventStoreDbEventStore } from '../../../shared/adapters/eventstoredb-event-store.ts';
import { resubscribeDelayMs } from '../../../shared/adapters/eventstoredb/append-feed.ts';
import { commitPositionOf, UnsupportedServerError } from '../../../shared/adapters/eventstoredb/records.ts';
import { ConcurrencyError, isUnreadable, streams } from '../../../shared/ports/event-store.ts';
import { waitFor } from '../../contract/event-store.contract.ts';
import { randomSerial, serialRegistered, serialReportedStolen } from '../../fixtures/events.ts';
import { FakeEventStoreDbClient, OLD_SERVER_NO_POSITION } from './support/fake-eventstoredb-client.ts';
import { rejectionOf } from '../../support/rejection.ts';

const FAST_BACKOFF = { firstMs: 5, maxMs: 20 };

function storeOn(client: FakeEventStoreDbClient): EventStoreDbEventStore {
  return new EventStoreDbEventStore(client, FAST_BACKOFF);
}

/** A serial stream with two valid events, recorded in the fake's log. */
function recordSerial(client: FakeEventStoreDbClient) {
  const serial = randomSerial();
  const stream = streams.serial(serial);
  return { stream, records: [client.record(stream, serialRegistered(serial)), client.record(stream, serialReportedStolen(serial))] };
}

describe('EventStoreDB adapter: positions', function () {
  const event = { position: { commit: 4_242n, prepare: 4_242n } } as ResolvedEvent['event'];

  it('takes the event\'s commit position when the server gives one', function () {
    expect(commitPositionOf({ event })).to.equal(4_242);
  });

  it('falls back to the read\'s commit position when the event carries the client\'s "0" default', function () {
    const unpositioned = { position: { commit: 0n, prepare: 0n } } as ResolvedEvent['event'];
    expect(commitPositionOf({ event: unpositioned, commitPosition: 977n })).to.equal(977);
  });

  it('refuses a server before 22.6, which sends ulong.MaxValue on stream reads and no read position', function () {
    const old = { position: { commit: OLD_SERVER_NO_POSITION, prepare: OLD_SERVER_NO_POSITION } } as ResolvedEvent['event'];
    expect(() => commitPositionOf({ event: old })).to.throw(UnsupportedServerError, /22\.6/);
  });

  it('refuses at start a server whose stream reads carry no position, and accepts one that gives them', async function () {
    const old = new FakeEventStoreDbClient();
    recordSerial(old);
    old.oldServer = true;
    expect(await rejectionOf(storeOn(old).assertPositionsOnStreamReads())).to.be.instanceOf(UnsupportedServerError);
    const current = new FakeEventStoreDbClient();
    recordSerial(current);
    await storeOn(current).assertPositionsOnStreamReads();
  });

  it('reads stream events with their $all positions, sparse as the log offsets are', async function () {
    const client = new FakeEventStoreDbClient();
    const { stream, records } = recordSerial(client);
    const read = await storeOn(client).readStream(stream);
    expect(read.map((e) => e.position)).to.deep.equal(records.map((r) => Number(r.position.commit)));
  });
});

describe('EventStoreDB adapter: system records in $all', function () {
  it('skips the $streamDeleted tombstone a hard-deleted stream of ours leaves under its own name', async function () {
    const client = new FakeEventStoreDbClient();
    const deleted = recordSerial(client);
    const tombstone = client.record(deleted.stream, { id: crypto.randomUUID(), type: '$streamDeleted', data: {}, metadata: undefined } as never);
    client.record('$stats-127.0.0.1:2113', { id: crypto.randomUUID(), type: '$statsCollected', data: {}, metadata: {} } as never);
    const after = recordSerial(client);
    const store = storeOn(client);
    const read = await store.readAll({ after: 0, limit: 100 });
    expect(read.map((e) => e.id)).to.deep.equal([...deleted.records, ...after.records].map((r) => r.id));
    expect(read.map((e) => e.id)).not.to.include(tombstone.id);
    expect(await store.headPosition()).to.equal(Number(after.records[1]!.position.commit));
  });

  it('answers a head that is our newest event even when a tombstone is newer', async function () {
    const client = new FakeEventStoreDbClient();
    const { stream, records } = recordSerial(client);
    client.record(stream, { id: crypto.randomUUID(), type: '$streamDeleted', data: {}, metadata: undefined } as never);
    expect(await storeOn(client).headPosition()).to.equal(Number(records[1]!.position.commit));
  });
});

describe('EventStoreDB adapter: reads end on the server', function () {
  it('cancels a read of $all that stops once the batch is full', async function () {
    const client = new FakeEventStoreDbClient();
    recordSerial(client);
    recordSerial(client);
    const read = await storeOn(client).readAll({ after: 0, limit: 3 });
    expect(read).to.have.length(3);
    expect(client.cancels).to.equal(client.readsOpened);
  });

  it('hands back an event that fails to decode as unreadable, in $all and in its stream, instead of failing the read', async function () {
    const client = new FakeEventStoreDbClient();
    const serial = randomSerial();
    const stream = streams.serial(serial);
    client.record(stream, { ...serialRegistered(serial), data: { serial, manufacture_year: 'soon' } } as never);
    const store = storeOn(client);
    for (const [event] of [await store.readAll({ after: 0, limit: 10 }), await store.readStream(stream)]) {
      expect(event).to.deep.include({ type: 'SerialRegistered', stream, revision: 0 });
      expect(event && isUnreadable(event) && event.unreadable).to.match(/manufacture_year must be integer/);
    }
    expect(client.cancels).to.equal(client.readsOpened);
  });

  it('cancels a stream read that fails midway (a server too old to give positions)', async function () {
    const client = new FakeEventStoreDbClient();
    const { stream } = recordSerial(client);
    client.oldServer = true;
    expect(await rejectionOf(storeOn(client).readStream(stream))).to.be.instanceOf(UnsupportedServerError);
    expect(client.readsOpened).to.equal(1);
    expect(client.cancels).to.equal(1);
  });

  it('keeps a read\'s answer, and its error, when the cancel after it fails', async function () {
    const client = new FakeEventStoreDbClient();
    const { stream, records } = recordSerial(client);
    client.cancelFails = true;
    const store = storeOn(client);
    expect((await store.readStream(stream)).map((e) => e.id)).to.deep.equal(records.map((r) => r.id));
    expect(await store.readStream(streams.serial(randomSerial()))).to.deep.equal([]);
    expect(client.cancels).to.equal(2);
  });

  it('reads a missing stream as empty', async function () {
    const client = new FakeEventStoreDbClient();
    expect(await storeOn(client).readStream(streams.serial(randomSerial()))).to.deep.equal([]);
  });
});

describe('EventStoreDB adapter: appending no events', function () {
  it('answers revision -1 and the head for a missing stream without asking the server to append', async function () {
    const client = new FakeEventStoreDbClient();
    const { records } = recordSerial(client);
    const store = storeOn(client);
    const head = Number(records[1]!.position.commit);
    const missing = streams.serial(randomSerial());
    expect(await store.append(missing, [], 'any')).to.deep.equal({ nextRevision: -1, position: head });
    expect(await store.append(missing, [], 'no_stream')).to.deep.equal({ nextRevision: -1, position: head });
    expect(client.appendCalls).to.equal(0);
  });

  it('answers an existing stream\'s revision, and refuses an expectation that does not hold', async function () {
    const client = new FakeEventStoreDbClient();
    const { stream, records } = recordSerial(client);
    const store = storeOn(client);
    expect(await store.append(stream, [], 1)).to.deep.equal({ nextRevision: 1, position: Number(records[1]!.position.commit) });
    const error = await rejectionOf(store.append(stream, [], 'no_stream'));
    expect(error).to.be.instanceOf(ConcurrencyError);
    expect(error).to.include({ expected: 'no_stream', actual: 1 });
    expect(await rejectionOf(store.append(streams.serial(randomSerial()), [], 0))).to.include({ actual: 'no_stream' });
  });
});

describe('EventStoreDB adapter: the append feed', function () {
  it('doubles the pause between attempts up to its ceiling', function () {
    expect([1, 2, 3, 4, 5, 9].map((attempt) => resubscribeDelayMs(attempt, { firstMs: 100, maxMs: 1_000 })))
      .to.deep.equal([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('subscribes again after an error, from the last position it saw, and signals appends again', async function () {
    const client = new FakeEventStoreDbClient();
    const store = storeOn(client);
    let signals = 0;
    const stop = store.onAppended(() => { signals += 1; });
    try {
      const [first] = client.subscriptions;
      expect(first!.fromPosition).to.equal(END);
      first!.confirm();
      expect(signals).to.equal(1);
      const seen = recordSerial(client).records[1]!;
      first!.deliver(seen);
      await waitFor(() => signals === 2);
      first!.fail('14 UNAVAILABLE: Connection dropped');
      await waitFor(() => client.subscriptions.length === 2);
      expect(first!.unsubscribed).to.equal(true);
      const second = client.subscriptions[1]!;
      expect(second.fromPosition).to.deep.equal(seen.position);
      second.confirm();
      second.deliver(recordSerial(client).records[0]!);
      // One signal for the gap (the server confirmed the new subscription), one for the delivered event.
      await waitFor(() => signals === 4);
    } finally {
      stop();
    }
  });

  it('subscribes again when the server ends the subscription, and signals once live again for what the gap hid', async function () {
    const client = new FakeEventStoreDbClient();
    let signals = 0;
    const stop = storeOn(client).onAppended(() => { signals += 1; });
    try {
      client.subscriptions[0]!.confirm();
      client.subscriptions[0]!.end();
      await waitFor(() => client.subscriptions.length === 2);
      expect(client.subscriptions[1]!.fromPosition).to.equal(END);
      expect(signals).to.equal(1);
      client.subscriptions[1]!.confirm();
      expect(signals).to.equal(2);
    } finally {
      stop();
    }
  });

  it('waits longer after each attempt the server does not confirm, and starts over once it does', function () {
    // Timers are faked and moved a millisecond at a time: the pauses are read exactly, whatever the machine's load.
    mock.timers.enable({ apis: ['setTimeout'] });
    const client = new FakeEventStoreDbClient();
    const stop = new EventStoreDbEventStore(client, { firstMs: 20, maxMs: 200 }).onAppended(() => undefined);
    /** Fails subscription `index` and counts the milliseconds until the feed subscribes again. */
    const pauseAfterFailure = (index: number): number => {
      client.subscriptions[index]!.fail('unavailable');
      let waited = 0;
      while (client.subscriptions.length === index + 1 && waited < 1_000) {
        mock.timers.tick(1);
        waited += 1;
      }
      return waited;
    };
    try {
      const pauses = [pauseAfterFailure(0), pauseAfterFailure(1), pauseAfterFailure(2)];
      client.subscriptions[3]!.confirm();
      pauses.push(pauseAfterFailure(3));
      // Doubling from 20 ms while unconfirmed; back to 20 ms after the confirmation, not the 160 ms it would be.
      expect(pauses).to.deep.equal([20, 40, 80, 20]);
    } finally {
      stop();
      mock.timers.reset();
    }
  });

  it('once stopped, neither signals again nor subscribes again', async function () {
    const client = new FakeEventStoreDbClient();
    let signals = 0;
    const stop = storeOn(client).onAppended(() => { signals += 1; });
    const [first] = client.subscriptions;
    first!.confirm();
    stop();
    expect(first!.unsubscribed).to.equal(true);
    first!.fail('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 3 * FAST_BACKOFF.maxMs));
    expect(client.subscriptions).to.have.length(1);
    expect(signals).to.equal(1);
  });
});
