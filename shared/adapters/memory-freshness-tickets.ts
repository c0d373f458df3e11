/** Freshness tickets of one process (an API and a projector in one process: `npm start`), from a counter in memory. */
import { randomUUID } from 'node:crypto';
import type { FreshnessTickets } from '../ports/freshness-tickets.ts';

export function memoryFreshnessTickets(): FreshnessTickets {
  const epoch = randomUUID();
  let n = 0;
  return {
    take: async () => ({ epoch, n: (n += 1) }),
    latest: async () => (n === 0 ? undefined : { epoch, n }),
    close: async () => undefined,
  };
}
