/**
 * The event store restored from an older copy while the read store (MongoDB) stays: the projections' checkpoints
 * stand past the history's last event. New events then take positions the checkpoints already count, so a projector
 * that reads "after its checkpoint" never applies them, and one that confirms its own checkpoint as the head it
 * reached tells every API process that its read model is fresh: a theft reported after the restore would be answered
 * AUTHENTIC, and `X-Min-Position` with that theft's position would be met at once. The read model cannot vouch for
 * the history any more; it must not be confirmed as if it did.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialReportedStolen } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { createProjector } from '../../projector/runner.ts';
import { appendAll, catalogueHistory } from './support/history.ts';
import { capturingLogger } from '../support/signed-log.ts';

const logger = pino({ level: 'silent' });

describe('an event store restored from an older copy under read models that stay', () => {
  it('leaves no projection confirming a head the history does not hold, nor one past a new event it did not apply', async () => {
    const history = catalogueHistory(5);
    const readStore = createMemoryReadStore();
    const before = openSqliteEventStore(':memory:');
    const queue = createInlineJobQueue({ attempts: 3, backoffMs: 5 });
    let after: EventStore | undefined;
    try {
      await appendAll(before, history);
      const lost = await appendAll(before, [serialReportedStolen('TMP-00003'), serialReportedStolen('TMP-00004')]);
      await createProjector({ eventStore: before, readStore, queue, logger }).catchUp();
      const confirmedBefore = new Map((await readProjectionStates(readStore)).map((state) => [state.name, state.confirmed?.at]));

      // The copy: the same events up to the last theft but two; then a new theft, of another serial, takes the
      // first position the lost events held.
      after = openSqliteEventStore(':memory:');
      await appendAll(after, history);
      const theft = await appendAll(after, [serialReportedStolen('TMP-00000')]);
      expect(theft, 'the new theft takes a position the checkpoints count').to.be.at.most(lost);
      // A projector started on the restored store (the read store kept).
      const { logger: watched, lines } = capturingLogger<{ level: number; msg: string; alert?: string; projection?: string; head?: number; position?: number }>();
      const projector = createProjector({ eventStore: after, readStore, queue, logger: watched });
      await projector.catchUp();

      const states = await readProjectionStates(readStore);
      for (const state of states) {
        const confirmed = state.confirmed?.at !== confirmedBefore.get(state.name) ? state.confirmed : undefined;
        expect(confirmed?.head, `${state.name}: no new confirmation of a head it did not apply`).to.equal(undefined);
        expect(state.status, `${state.name}: parked, saying why`).to.equal('parked');
        expect(state.parked?.reason).to.include(`the event store's last event is at position ${theft}`);
        // The way out, named where an operator reads why (docs/api.md, "Recovery").
        expect(state.parked?.reason).to.include('`watchcat rebuild`');
      }
      // This process's own status (its health answer, its waiters) says the same, with the checkpoint's position.
      expect(projector.status().map(({ name, status, parked }) => ({ name, status, position: parked?.position, why: parked?.reason })))
        .to.have.deep.members(states.map((state) => ({ name: state.name, status: 'parked', position: lost, why: state.parked?.reason })));
      // One error line a projection, with the fields an alert or a log search keys on.
      const alerts = lines.filter((line) => line.alert === 'history behind the read models');
      expect(alerts.map(({ level, projection, head, position }) => ({ level, projection, head, position })))
        .to.have.deep.members(states.map((state) => ({ level: 50, projection: state.name, head: theft, position: lost })));
      expect(alerts.every((line) => line.msg.includes('watchcat rebuild'))).to.equal(true);
    } finally {
      await queue.close();
      await before.close();
      await after?.close();
    }
  });
});
