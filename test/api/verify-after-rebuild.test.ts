/**
 * A rebuild confirms the head it read before its checks and its switch; the confirmation its switch makes live may
 * be old by the time it does (shared/read-model/public-api/read-model-clock.ts, docs/api.md "Honest answers"). A
 * theft appended meanwhile is in no read model yet: the registry must not answer AUTHENTIC for it as fresh. Before
 * this, the read-model clock took the new generation's confirmation as seen happen at the switch, and the real app
 * answered AUTHENTIC with `X-Data-Age: 1` for a serial stolen before the switch.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { createProjector } from '../../projector/runner.ts';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { appendAll, catalogueHistory } from '../projector/support/history.ts';
import { startReadApiUnderTest } from '../support/read-api-under-test.ts';

const SERIAL = 'REBUILD-2024-0001';

describe('verification after a rebuild\'s switch', function () {
  this.timeout(30_000);

  it('refuses a serial stolen after the rebuild read its head, until a projector confirms the new generation; then answers STOLEN', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const readStore = createMemoryReadStore();
    const logger = pino({ level: 'silent' });
    await appendAll(eventStore, [...catalogueHistory(3), serialRegistered(SERIAL)]);
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const projector = createProjector({ eventStore, readStore, queue, logger });
    await projector.catchUp();
    const api = await startReadApiUnderTest({ readStore });
    const url = `${api.url}/api/public/verify/${SERIAL}`;
    const verify = async () => {
      const response = await fetch(url);
      const body = await response.json() as { verification_status?: string };
      return { status: response.status, verification: body.verification_status, age: response.headers.get('x-data-age') };
    };
    try {
      expect(await verify()).to.deep.equal({ status: 200, verification: 'AUTHENTIC', age: '1' });
      await rebuild({
        eventStore, readStore,
        // After the rebuild read and confirmed its head, before its switch: the theft is reported.
        beforeSwitch: async () => { await appendAll(eventStore, [serialReportedStolen(SERIAL)]); },
      });
      await api.running.refreshReadModels();
      const switched = await verify();
      expect(switched.status, `answered ${JSON.stringify(switched)} from a registry that does not hold the theft`).to.equal(503);
      // A live projector catches the new generation up and confirms its head: the theft is served, and fresh.
      await projector.catchUp();
      await api.running.refreshReadModels();
      expect(await verify()).to.deep.equal({ status: 200, verification: 'STOLEN', age: '1' });
    } finally {
      await queue.close();
      await api.close();
      eventStore.close();
    }
  });
});
