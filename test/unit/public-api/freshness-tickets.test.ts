/**
 * Freshness bounded by tickets (shared/ports/freshness-tickets.ts, shared/read-model/public-api/own-tickets.ts): a
 * projection's owner measures its head's age (`age_ms`) before it sends the checkpoint's write, so a write that lands
 * seconds later (stalled in the store or the network) was taken as seconds fresher than it is: the read-model clock
 * counts a confirmation it sees from its poll before, less `age_ms`. A confirmation now names the latest ticket its
 * owner read before the head; a replica that took that ticket knows the head was read after it asked for it, on its
 * own monotonic clock, and counts from then. Expected values are worked out here from that rule, on a fake
 * monotonic clock: no clock of another process is read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { memoryFreshnessTickets } from '../../../shared/adapters/memory-freshness-tickets.ts';
import type { FreshnessTicket, FreshnessTickets } from '../../../shared/ports/freshness-tickets.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';

const WALL = Date.parse('2026-01-01T00:00:00.000Z');
const TICKET_EVERY_MS = 2;

/** The serials projection at `position`, its head confirmed by its owner with `ticket` (absent: an owner without tickets). */
const serials = (position: number, at: number, ticket?: FreshnessTicket): ProjectionState => ({
  name: 'serials', generation: 1, position, status: 'running', parked: null, updated_at: null,
  confirmed: { head: position, at: new Date(at).toISOString(), age_ms: 0, ...(ticket !== undefined ? { ticket } : {}) },
});

describe('freshness bounded by the ticket a confirmation names, whatever its write\'s delay', () => {
  const clocks: PolledReadModelClock[] = [];
  afterEach(() => {
    for (const clock of clocks.splice(0)) clock.stop();
  });

  /** A clock over `states()`, polled when the test says, taking its tickets (if any) every 2 ms of real time. */
  async function clockOver(states: () => ProjectionState[], now: { ms: number }, tickets?: FreshnessTickets, told: boolean[] = []) {
    const clock = await startReadModelClock(async () => ({ view: createMemoryReadStore(), states: states() }), {
      // Tickets taken every 2 ms of real time, vouched for up to 5 s of the fake one without a new one taken.
      intervalMs: 3_600_000, monotonic: () => now.ms, ...(tickets ? { tickets, ticketEveryMs: TICKET_EVERY_MS, ticketsCurrentForMs: 5_000, onTicketsCurrent: (current: boolean) => told.push(current) } : {}),
    });
    clocks.push(clock);
    return clock;
  }
  /** Lets the clock take tickets at the fake time it is now. */
  const ticketsTaken = () => sleep(TICKET_EVERY_MS * 10);

  /** A clock over the serials at 5 taking `tickets`, polled at 9 s; `see` gives it the next states and polls at 9.1 s. */
  async function polledAtNine(tickets: FreshnessTickets) {
    const now = { ms: 0 };
    let states = [serials(5, WALL)];
    const clock = await clockOver(() => states, now, tickets);
    now.ms = 9_000;
    await ticketsTaken();
    await clock.refresh();
    const see = async (next: ProjectionState[]) => {
      states = next;
      now.ms = 9_100;
      await clock.refresh();
    };
    return { clock, now, see };
  }

  /**
   * The stall: the owner reads the head (and the latest ticket) at 1 s, its write lands at 9 s, just after a poll at
   * 9 s that did not see it; the next poll, at 9.1 s, does. Without tickets that is 0.1 s old; it is 8 s old or more.
   * `awayAfterRead`: the counter cannot be reached from then on (Redis down), so this process takes no ticket after 1 s.
   */
  async function stalled(tickets: FreshnessTickets | undefined, awayAfterRead = false, told: boolean[] = []) {
    let away = false;
    const reachable = tickets && { ...tickets, take: () => (away ? Promise.reject(new Error('away')) : tickets.take()) };
    const now = { ms: 0 };
    let states = [serials(5, WALL)];
    const clock = await clockOver(() => states, now, reachable, told);
    now.ms = 1_000;
    await ticketsTaken();
    const read = await tickets?.latest();
    away = awayAfterRead;
    now.ms = 9_000;
    await ticketsTaken();
    await clock.refresh();
    states = [serials(6, WALL + 1_000, read)];
    now.ms = 9_100;
    await clock.refresh();
    return clock;
  }

  it('counts a confirmation whose write landed late from the ticket its owner read before the head', async () => {
    const told: boolean[] = [];
    const clock = await stalled(memoryFreshnessTickets(), false, told);
    expect(clock.refusal(['serials'], true), 'a verification, bound 5 s').to.equal('stale');
    expect([clock.ticketsCurrent(), told.length]).to.deep.equal([true, 0]);
    // From 1 s, when this process asked for the last of its tickets up to the one the owner read: 8.1 s at 9.1 s.
    expect(clock.projections()[0]?.lag_seconds).to.equal(8.1);
    expect(clock.dataAge(['serials'])).to.equal(9);
  });

  it('still counts the owner\'s age when its ticket is younger than the poll before: no fresher than either bound', async () => {
    const tickets = memoryFreshnessTickets();
    const { clock, now, see } = await polledAtNine(tickets);
    // The owner reads a ticket asked for at 9.05 s, after the poll before began, and says it read the head 3 s
    // before its write: from the poll before (9 s) less 3 s, 6 s, the earlier of the two.
    now.ms = 9_050;
    await ticketsTaken();
    const confirmed = serials(6, WALL + 1_000, await tickets.latest());
    await see([{ ...confirmed, confirmed: { ...confirmed.confirmed!, age_ms: 3_000 } }]);
    expect(clock.projections()[0]?.lag_seconds).to.equal(3.1);
  });

  it('counts from when this process asked for its ticket, not from when the answer came back', async () => {
    // The counter gives the ticket at once, but its answer reaches this process 4 s later (a slow link): the owner
    // may read that ticket, and the head, in between. The ticket bounds the data's age from when it was asked for.
    const counter = memoryFreshnessTickets();
    let hold: Promise<void> | undefined;
    const tickets: FreshnessTickets = {
      ...counter,
      take: async () => {
        const ticket = await counter.take();
        await hold;
        return ticket;
      },
    };
    const now = { ms: 0 };
    let states = [serials(5, WALL)];
    const clock = await clockOver(() => states, now, tickets);
    await ticketsTaken();
    let answer!: () => void;
    hold = new Promise<void>((resolve) => (answer = resolve));
    now.ms = 1_000;
    await ticketsTaken();
    // The owner reads the ticket just given (its answer still on its way) and then the head; its write stalls.
    const read = await counter.latest();
    now.ms = 5_000;
    hold = undefined;
    answer();
    await ticketsTaken();
    now.ms = 9_000;
    await clock.refresh();
    states = [serials(6, WALL + 1_000, read)];
    now.ms = 9_100;
    await clock.refresh();
    expect(clock.projections()[0]?.lag_seconds).to.equal(8.1);
    expect(clock.refusal(['serials'], true)).to.equal('stale');
  });

  it('without tickets, takes the same confirmation as fresh: the owner\'s age alone misses the write\'s delay', async () => {
    const clock = await stalled(undefined);
    expect(clock.refusal(['serials'], true)).to.equal(undefined);
    expect(clock.ticketsCurrent(), 'no tickets: no metric').to.equal(undefined);
    expect(clock.projections()[0]?.lag_seconds).to.equal(0.1);
  });

  it('keeps a confirmation that landed at once as fresh as the poll before says', async () => {
    const tickets = memoryFreshnessTickets();
    const { clock, see } = await polledAtNine(tickets);
    await see([serials(6, WALL + 9_000, await tickets.latest())]);
    expect(clock.refusal(['serials'], true)).to.equal(undefined);
    expect(clock.projections()[0]?.lag_seconds).to.equal(0.1);
  });

  it('judges by the owner\'s age alone, as before tickets, while it can take none (Redis away): not every answer stale', async () => {
    // More than 5 s since the last ticket it took (at 1 s): none is vouched for, and it says so, once.
    const told: boolean[] = [];
    const clock = await stalled(memoryFreshnessTickets(), true, told);
    expect(clock.projections()[0]?.lag_seconds).to.equal(0.1);
    expect(clock.ticketsCurrent(), 'the metric read_model_freshness_tickets_current').to.equal(false);
    expect(told, 'the warning').to.deep.equal([false]);
  });

  it('takes a confirmation naming a ticket older than every ticket it kept as not seen, never judging it by its age alone', async () => {
    const counter = memoryFreshnessTickets();
    const now = { ms: 0 };
    let states = [serials(5, WALL)];
    // Tickets kept for twice the longest bound: 2 × 5 s here (freshAnswerMaxLagMs and maxLagMs both 5 s).
    const clock = await startReadModelClock(async () => ({ view: createMemoryReadStore(), states }), {
      intervalMs: 3_600_000, monotonic: () => now.ms, maxLagMs: 5_000, freshAnswerMaxLagMs: 5_000,
      tickets: counter, ticketEveryMs: TICKET_EVERY_MS, ticketsCurrentForMs: 60_000,
    });
    clocks.push(clock);
    await ticketsTaken();
    const first = (await counter.latest())!;
    now.ms = 30_000;
    await ticketsTaken();
    await clock.refresh();
    // The owner read the head (and the first ticket) before every ticket this process keeps: its write landed now.
    states = [serials(6, WALL + 1_000, first)];
    now.ms = 30_100;
    await clock.refresh();
    expect(clock.projections()[0]).to.include({ fresh: false, lag_seconds: null });
    expect(clock.refusal(['serials'], true)).to.equal('stale');
    // The first ticket taken at 30 s, the one whose taking let the older ones go, is kept: counted from 30 s.
    states = [serials(7, WALL + 2_000, { ...first, n: first.n + 1 })];
    now.ms = 30_200;
    await clock.refresh();
    expect(clock.projections()[0]?.lag_seconds).to.equal(0.2);
  });

  it('counts a confirmation naming the very first ticket it took from when it asked for it', async () => {
    const counter = memoryFreshnessTickets();
    const now = { ms: 500 };
    let states = [serials(5, WALL)];
    // Its first ticket (1) is asked for as it starts, at 500 ms; the next ones at 2 s.
    const clock = await clockOver(() => states, now, counter);
    now.ms = 2_000;
    await ticketsTaken();
    await clock.refresh();
    states = [serials(6, WALL + 1_000, { epoch: (await counter.latest())!.epoch, n: 1 })];
    now.ms = 2_100;
    await clock.refresh();
    expect(clock.projections()[0]?.lag_seconds).to.equal(1.6);
  });

  it('judges a ticket of a counter it never took from (another process counting its own) by the owner\'s age, as before', async () => {
    const now = { ms: 0 };
    let states = [serials(5, WALL)];
    const clock = await clockOver(() => states, now, memoryFreshnessTickets());
    await ticketsTaken();
    now.ms = 1_000;
    await clock.refresh();
    states = [serials(6, WALL + 1_000, { epoch: 'another counter', n: 1 })];
    now.ms = 1_100;
    await clock.refresh();
    expect(clock.projections()[0]?.lag_seconds).to.equal(0.1);
  });
});
