/**
 * What the read API may serve, per projection: the (generation, position) each one has reached, whether its read
 * model is built and how fresh it is, all from one read of the store (a snapshot: its control documents and the
 * generations they name). Every answer is read through a snapshot and stamped from that very snapshot, so no
 * interleaving of polls, pointer reads and switches can put an older generation's answer under a newer stamp. The
 * latest snapshot is polled in the background and shared by the requests while it is young; a request that finds
 * it too old (a slow or failing poll) reads a new one itself, or is refused when the store cannot be reached.
 *
 * What one process serves never goes back: within a generation a projection's position only rises, and a new
 * generation is taken only once it has reached the position served (a rebuild switched to a generation still
 * behind, or a checkpoint reset, leaves the served state where it was until the store catches up).
 *
 * Freshness (docs/api.md, "Honest answers"): a projection's owner confirms in its checkpoint the event store head it
 * read and had applied, and when. This process never compares that time with its own clock (clocks of different
 * machines disagree): a confirmation is an opaque marker, and what counts is when this process saw it change, on its
 * own monotonic clock. A change seen by one poll happened after the poll before it began, so its lag counts from
 * then, less how long before writing it its owner read the head (`age_ms`, a duration the owner measured on its own
 * monotonic clock): never fresher than it is but for the write's own delay, which freshness tickets bound when the
 * deployment has them (own-tickets.ts). The confirmation already there at the first poll was not seen happen: a process
 * that has just started (a rolling deploy, a restart with a wrong clock) is not fresh until it sees a new one; nor is
 * the confirmation of a generation made live since the poll before (a rebuild's switch, which comes after its checks). A
 * projector idle and alive confirms again every second or so (projector/reconfirmation.ts), well within the bounds.
 */
import { ReadStoreUnavailableError, SNAPSHOT_TTL_MS } from '../../ports/read-store.ts';
import type { ProjectionState } from '../projections/projection-states.ts';
import type { FreshnessTickets } from '../../ports/freshness-tickets.ts';
import { takeOwnTickets } from './own-tickets.ts';
import type { HeardMove } from '../../ports/read-model-changes.ts';
import { sameProjected, sameStamp, stampOf, nextServedState, type Projected, type ReadStamp } from './served-state.ts';

import type { ParkedProjection, PolledReadModelClock, ReadView, Reading, Refusal, StoreReading } from './read-model-clock-view.ts';

export type { ReadStamp } from './served-state.ts';
export type {
  ParkedProjection, PolledReadModelClock, ProjectionFreshness, ReadModelClock, ReadModelPosition, ReadView, Reading, Refusal, StoreReading,
} from './read-model-clock-view.ts';

interface ReadModelClockOptions {
  /** Period of the background poll; default 100 ms. */
  intervalMs?: number;
  /**
   * How old the latest snapshot may be before the background poll reads another, asked at each period; default 0
   * (every period). Longer while the projectors' word of each move is heard (`refresh()` on it): the poll then only
   * covers a word lost, and its reads were most of the store's load at scale (issue 29).
   */
  pollAfterMs?: () => number;
  /**
   * How long a request waiting for the next reading (`nextReading`) waits for another's before it reads one itself;
   * default (undefined) 10 ms. Longer while the projectors' word of each move is heard: a refresh on it wakes the
   * waiters, and their own reads only cover a word lost (issue 44).
   */
  waitingPollMs?: () => number | undefined;
  /** How long ago this process may have seen a confirmation happen for its read model to count as fresh; default 30 s. */
  maxLagMs?: number;
  /** The same for an answer that needs its read models fresh (`refusal(…, true)`: the verification); default 5 s. */
  freshAnswerMaxLagMs?: number;
  onError?: (error: unknown) => void;
  /** Monotonic clock in milliseconds (a test's fake one); default `performance.now`. */
  monotonic?: () => number;
  /**
   * The deployment's freshness tickets (ports/freshness-tickets.ts), taken every `ticketEveryMs` (default 200): a
   * confirmation's age is then bounded by the ticket its owner read, whatever its write's delay.
   */
  tickets?: FreshnessTickets;
  ticketEveryMs?: number;
  /** How long without a ticket taken before none is vouched for (the counter away); default ten periods. */
  ticketsCurrentForMs?: number;
  /** Told when the tickets go away (false) and when they are back (true): the bound by tickets is off meanwhile. */
  onTicketsCurrent?: (current: boolean) => void;
}

/** How long a request waiting for the next reading waits for another's before it reads one itself, by default. */
const WAITING_POLL_MS = 10;

/** A snapshot is reused by requests up to half its life, so that their reads end well within it. */
const READING_REUSE_MS = SNAPSHOT_TTL_MS / 2;

/** A clock polling `read` (a store's snapshot and its projection states, see `readSnapshotStates`). */
export async function startReadModelClock(read: () => Promise<StoreReading>, options: ReadModelClockOptions = {}): Promise<PolledReadModelClock> {
  const monotonic = options.monotonic ?? (() => performance.now());
  const maxLagMs = options.maxLagMs ?? 30_000;
  const freshAnswerMaxLagMs = options.freshAnswerMaxLagMs ?? 5_000;
  // Kept past the longest bound, so that a lag within it is never unknown for want of a ticket let go.
  const ticketEveryMs = options.ticketEveryMs ?? 200;
  const ownTickets = options.tickets && takeOwnTickets(options.tickets, {
    everyMs: ticketEveryMs, keepMs: 2 * Math.max(maxLagMs, freshAnswerMaxLagMs), currentForMs: options.ticketsCurrentForMs ?? 10 * ticketEveryMs,
    monotonic, ...(options.onTicketsCurrent ? { onCurrent: options.onTicketsCurrent } : {}),
  });
  let projected = new Map<string, Projected>();
  let current = 0;
  let updatedAt: string | null = null;
  let parked: ParkedProjection[] = [];
  let reachable = true;
  let latest: { reading: Reading; sentAt: number } | undefined;
  let inFlight: Promise<Reading> | undefined;
  /** Per projection, the highest position an answer was given from ahead of its stamp (`answeredAhead`). */
  const ahead = new Map<string, number>();
  /** Those waiting for the next reading (`nextReading`). */
  const waiting = new Set<(reading: Reading) => void>();
  /** One view per set of projections (keyed by their names), however many routes and tools read that set. */
  const views = new Map<string, { names: readonly string[]; stamp: ReadStamp; read: ReadView }>();
  // Of none, every projection's: while the store stands behind what is served (a checkpoint reset, a switch to a
  // generation behind) the stamp says so, or a status asked `X-Min-Position` (`watchcat --wait`) would be answered
  // at the position served while every operation reads the store behind it.
  const stampIn = (names: readonly string[], at: ReadonlyMap<string, Projected>, position: number): ReadStamp => {
    if (names.length > 0) return stampOf(names, at);
    const all = stampOf([...at.keys()], at);
    return { key: String(position), position, behindAt: all.behindAt };
  };

  /** `since`: when the poll before this one began (a change it reads happened after), undefined at the first poll. */
  const confirmationOf = (before: Projected | undefined, state: ProjectionState, since: number | undefined): Projected['confirmed'] => {
    if (state.confirmed === null) return null;
    const { head, at, age_ms: ageMs = 0 } = state.confirmed;
    const sameGeneration = before?.storeGeneration === state.generation;
    const kept = before?.confirmed ?? before?.lastConfirmed;
    // The same confirmation keeps the time it was seen happen, and the same object (nothing moved).
    if (sameGeneration && kept && kept.at === at && kept.head === head) return kept;
    // A generation the poll before did not read was made live since (a rebuild's switch): its confirmation may have
    // been written long before the switch (the rebuild checks its tables first), so it was not seen happen, as one
    // there at the first poll: the next one its owner writes in that generation is. One seen happen counts from the
    // poll before, less how long before its write its owner read the head (a batch applied, a pause), as the owner
    // measured it; an age that is no duration makes it not seen.
    // Nor is one of a head below the one seen confirmed in this generation: heads confirmed there only rise, so it
    // is an older one put back (a read store restored from a copy), whose data is as old as the copy.
    const seen = sameGeneration && since !== undefined && Number.isFinite(ageMs) && ageMs >= 0 && !(kept && head < kept.head);
    if (!seen) return { head, at, seenAt: null };
    // With freshness tickets, no fresher than the ticket its owner read before the head (own-tickets.ts).
    return { head, at, seenAt: ownTickets ? ownTickets.bound(since - ageMs, state.confirmed.ticket) : since - ageMs };
  };

  const apply = (states: ProjectionState[], since: number | undefined) => {
    const next = new Map(projected);
    let moved = false;
    for (const state of states) {
      const before = projected.get(state.name);
      const served = nextServedState(before?.served, state);
      const behind = served.generation !== state.generation || served.position !== state.position;
      const confirmed = confirmationOf(before, state, since);
      const lastConfirmed = confirmed === null && before?.storeGeneration === state.generation ? before.confirmed ?? before.lastConfirmed : undefined;
      const after: Projected = {
        served, behindAt: behind ? Math.min(state.position, served.position) : null, storeGeneration: state.generation,
        confirmed, ...(lastConfirmed ? { lastConfirmed } : {}),
      };
      if (sameProjected(before, after)) continue;
      next.set(state.name, after);
      moved = true;
      if (state.updated_at !== null && (updatedAt === null || state.updated_at > updatedAt)) updatedAt = state.updated_at;
    }
    // One served here whose checkpoint the store holds no more (the read store emptied, or put back from a copy made
    // before it was built) is not built, as at a first poll, and the store holds nothing of it: no answer reads it as
    // it did (its documents may be gone too), none is kept. What is served stays where it was: it never goes back.
    const polled = new Set(states.map((state) => state.name));
    for (const [name, before] of projected) {
      if (polled.has(name)) continue;
      const lastConfirmed = before.confirmed ?? before.lastConfirmed;
      const gone: Projected = { served: before.served, behindAt: 0, storeGeneration: before.storeGeneration, confirmed: null, ...(lastConfirmed ? { lastConfirmed } : {}) };
      if (sameProjected(before, gone)) continue;
      next.set(name, gone);
      moved = true;
    }
    parked = states.flatMap((s) => (s.status === 'parked' && s.parked ? [{ name: s.name, ...s.parked }] : []));
    if (!moved) return;
    projected = next;
    current = stampOf([...projected.keys()], projected).position;
    for (const view of views.values()) {
      const stamp = stampIn(view.names, projected, current);
      // Kept as it was when its own projections did not move, so a cache hit compares one string with itself.
      if (!sameStamp(view.stamp, stamp)) view.stamp = stamp;
    }
  };

  /** Reads a snapshot and makes it the latest; one at a time, shared by whoever asks meanwhile. */
  const poll = (): Promise<Reading> => {
    inFlight ??= (async () => {
      const sentAt = monotonic();
      try {
        const { view, states } = await read().catch((error: unknown) => {
          throw error instanceof ReadStoreUnavailableError ? error : new ReadStoreUnavailableError(error);
        });
        reachable = true;
        apply(states, latest?.sentAt);
        // The stamps of this snapshot are the projections as applied from it; a view's stamp is reused when equal.
        const at = projected;
        const stopped = parked;
        const position = current;
        const stamps = new Map<string, ReadStamp>();
        const reading: Reading = {
          view,
          stamp(names) {
            const key = names.join(',');
            let stamp = stamps.get(key);
            if (stamp === undefined) {
              const fresh = stampIn(names, at, position);
              const shared = views.get(key)?.stamp;
              stamps.set(key, (stamp = shared !== undefined && sameStamp(shared, fresh) ? shared : fresh));
            }
            return stamp;
          },
          refusal: (names, fresh) => refusalIn(names, fresh, at, stopped, monotonic()),
          dataAge: (names) => dataAgeIn(names, at, monotonic()),
        };
        // Polls run one at a time, so the one that ends is always the newest.
        latest = { reading, sentAt };
        for (const wake of waiting) wake(reading);
        waiting.clear();
        return reading;
      } catch (error) {
        reachable = false;
        throw error;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  /** Whether `moved`'s checkpoint is served already: its generation or a later one, at or past its position, the store not behind. */
  const serves = ({ projection, generation, position }: HeardMove): boolean => {
    const p = projected.get(projection);
    if (p === undefined || generation === undefined || position === undefined || p.behindAt !== null) return false;
    return p.served.generation > generation || (p.served.generation === generation && p.served.position >= position);
  };

  const lagMsOf = (p: Projected | undefined, monoNow: number): number | null =>
    (p?.confirmed?.seenAt == null ? null : Math.max(0, monoNow - p.confirmed.seenAt));

  /** The oldest lag of `names` in `at`, in seconds rounded up (never fresher than it is); undefined when one is unknown. */
  const dataAgeIn = (names: readonly string[], at: ReadonlyMap<string, Projected>, monoNow: number): number | undefined => {
    let oldest = 0;
    for (const name of names) {
      const lag = lagMsOf(at.get(name), monoNow);
      if (lag === null) return undefined;
      oldest = Math.max(oldest, lag);
    }
    return Math.ceil(oldest / 1_000);
  };

  /**
   * Why `names` may not be answered from `at` now: never built, or (`fresh`) not seen confirmed within the bound, or
   * parked among `stopped`. A parked projection's projector stopped on an event it cannot apply, or on a history it
   * cannot vouch for, and confirms it no more: an answer that needs it fresh is refused at once, not only once its
   * last confirmation ages past the bound (a theft after the event it stopped on would be answered AUTHENTIC
   * meanwhile).
   */
  const refusalIn = (
    names: readonly string[], fresh: boolean, at: ReadonlyMap<string, Projected>, stopped: readonly ParkedProjection[], monoNow: number,
  ): Refusal | undefined => {
    let refusal: Refusal | undefined;
    for (const name of names) {
      const p = at.get(name);
      if (p === undefined || p.confirmed === null) return 'unbuilt';
      if (fresh && ((lagMsOf(p, monoNow) ?? Infinity) > freshAnswerMaxLagMs || stopped.some((s) => s.name === name))) refusal = 'stale';
    }
    return refusal;
  };

  await poll();
  let polling = false;
  const timer = setInterval(() => {
    if (polling || (latest !== undefined && monotonic() - latest.sentAt < (options.pollAfterMs?.() ?? 0))) return;
    polling = true;
    poll().catch((error: unknown) => options.onError?.(error)).finally(() => { polling = false; });
  }, options.intervalMs ?? 100);
  timer.unref();
  return {
    current: () => current,
    get updatedAt() { return updatedAt; },
    view(names) {
      const key = names.join(',');
      let view = views.get(key);
      if (!view) {
        const kept = { names: [...names], stamp: stampIn(names, projected, current), read: () => kept.stamp };
        views.set(key, (view = kept));
      }
      return view.read;
    },
    async reading(renew = false) {
      if (!renew && latest !== undefined && monotonic() - latest.sentAt <= READING_REUSE_MS) return latest.reading;
      return poll();
    },
    async nextReading(maxMs) {
      let wake: ((reading: Reading) => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      const read = new Promise<Reading>((resolve) => waiting.add((wake = resolve)));
      const waited = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), Math.min(maxMs, options.waitingPollMs?.() ?? WAITING_POLL_MS));
      });
      try {
        return (await Promise.race([read, waited])) ?? await poll();
      } finally {
        clearTimeout(timer);
        waiting.delete(wake!);
      }
    },
    refusal: (names, fresh) => refusalIn(names, fresh, projected, parked, monotonic()),
    dataAge: (names) => dataAgeIn(names, projected, monotonic()),
    answeredAhead(names, position) {
      for (const name of names) if (position > (ahead.get(name) ?? 0)) ahead.set(name, position);
    },
    // Asked at every kept answer given: nothing to look at until a document was ever read ahead of its stamp.
    aheadOf: (names) => (ahead.size === 0 ? 0 : Math.max(0, ...names.map((name) => ahead.get(name) ?? 0))),
    projections() {
      const monoNow = monotonic();
      return [...projected].map(([name, p]) => {
        const lag = lagMsOf(p, monoNow);
        return {
          name, position: p.served.position, built: p.confirmed !== null, fresh: lag !== null && lag <= maxLagMs,
          // Rounded up to the millisecond, so a lag just past the bound never reads as the bound itself: never fresher than it is.
          lag_seconds: lag === null ? null : Math.ceil(lag) / 1000,
        };
      });
    },
    get parked() { return parked; },
    parkedAmong: (names) => parked.some((p) => names.length === 0 || names.includes(p.name)),
    get reachable() { return reachable; },
    ticketsCurrent: () => ownTickets?.current(),
    refresh: async (moved) => {
      if (moved !== undefined && serves(moved)) return;
      // A poll under way may have read before the change this refresh is asked for.
      await inFlight?.catch(() => undefined);
      await poll();
    },
    stop: () => {
      clearInterval(timer);
      ownTickets?.stop();
    },
  };
}
