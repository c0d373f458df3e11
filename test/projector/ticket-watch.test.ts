/**
 * The ticket a projector names in its confirmations (projector/ticket-watch.ts): the latest it read, while it reads
 * them; none once it has read none for `currentForMs` (Redis away), so that its confirmations are judged by their
 * `age_ms` alone rather than by a ticket ever further behind, which would make every replica refuse verifications for
 * as long as Redis is away. On a fake monotonic clock.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { memoryFreshnessTickets } from '../../shared/adapters/memory-freshness-tickets.ts';
import type { FreshnessTickets } from '../../shared/ports/freshness-tickets.ts';
import { watchTickets } from '../../projector/ticket-watch.ts';

describe('the freshness ticket a projector knows', () => {
  it('is the latest read while reads succeed, and none once none succeeded for currentForMs', async () => {
    const counter = memoryFreshnessTickets();
    let away = false;
    const tickets: FreshnessTickets = { ...counter, latest: () => (away ? Promise.reject(new Error('away')) : counter.latest()) };
    const now = { ms: 0 };
    const watch = await watchTickets(tickets, { everyMs: 2, currentForMs: 500, monotonic: () => now.ms, onError: () => undefined });
    try {
      expect(watch.known(), 'none taken yet').to.equal(undefined);
      const taken = await counter.take();
      await sleep(20);
      expect(watch.known()).to.deep.equal(taken);
      away = true;
      const later = await counter.take();
      now.ms = 400;
      await sleep(20);
      expect(watch.known(), 'within currentForMs of the last read: the ticket it read').to.deep.equal(taken);
      now.ms = 600;
      expect(watch.known(), 'past it').to.equal(undefined);
      away = false;
      await sleep(20);
      expect(watch.known(), 'read again').to.deep.equal(later);
    } finally {
      watch.stop();
    }
  });
});
