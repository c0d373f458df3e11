import { openEventStoreDbEventStore } from '../../shared/adapters/eventstoredb-event-store.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';
import { eventStoreContract } from './event-store.contract.ts';

const url = process.env.EVENTSTORE_URL;

describe('EventStoreDB event store', function () {
  registerLegSuite('EventStoreDB', this);
  // The one leg CI may skip: no EventStoreDB server can be had on its machine.
  before(function () {
    if (!url) cannotRun(this, 'EventStoreDB', 'EVENTSTORE_URL is not set (no EventStoreDB server on this machine)');
  });

  // Every test uses fresh streams, so one shared server serves them all.
  eventStoreContract('EventStoreDB', async () => {
    const store = await openEventStoreDbEventStore(url!);
    // A second client on the same server, as another process would hold.
    return { store, openAnotherHandle: () => openEventStoreDbEventStore(url!), dispose: () => store.close() };
  });
});
