import { openEventStoreDbEventStore } from '../../shared/adapters/eventstoredb-event-store.ts';
import { eventStoreContract } from './event-store.contract.ts';

const url = process.env.EVENTSTORE_URL;

describe('EventStoreDB event store', function () {
  before(function () {
    if (!url) {
      console.log('    EventStoreDB leg skipped: EVENTSTORE_URL is not set (no EventStoreDB server on this machine)');
      this.skip();
    }
  });

  // Every test uses fresh streams, so one shared server serves them all.
  eventStoreContract('EventStoreDB', async () => {
    const store = await openEventStoreDbEventStore(url!);
    // A second client on the same server, as another process would hold.
    return { store, openAnotherHandle: () => openEventStoreDbEventStore(url!), dispose: () => store.close() };
  });
});
