/** A read store holding the demo catalogue as `npm start` loads it: imported by the command service, then projected. */
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { seedDemo } from '../../services/import/seed-demo.ts';

export async function demoReadStore(): Promise<ReadStore> {
  const events = openSqliteEventStore(':memory:');
  try {
    await seedDemo(createCommandService(events));
    const store = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore: store });
    return store;
  } finally {
    events.close();
  }
}
