/**
 * A projector's own look at the store, on its own timer (issue 40): one read of the control documents shows it
 * every projection's position and parked state (for its board, since several projectors share the work) and every
 * lease as it stands, so that it judges their expiry by its own clock (shared/read-model/projections/lease-watch.ts). A
 * projection whose lease it has seen lapse (its owner dead or frozen past it), or that nobody holds, it runs at once,
 * taking the lease: takeover does not wait for a queued job, so a dead worker's projections are taken even while the
 * queue (Redis) is down. It watches the rebuilds' reservations the same way, and takes back one it has seen lapse
 * (its rebuild crashed), so that the next rebuild drops the generation left behind (generations.ts). One small read
 * per period per projector, the control documents only.
 */
import type { ReadStore } from '../shared/ports/read-store.ts';
import { generationsOf, readControlDocs } from '../shared/read-model/projections/control-docs.ts';
import { lapsedReservations, takeBackLapsed } from '../shared/read-model/projections/generations.ts';
import { leasesOf, ownerlessProjections } from '../shared/read-model/projections/lease-ownership.ts';
import type { LeaseWatch } from '../shared/read-model/projections/lease-watch.ts';
import { projectionStatesOf } from '../shared/read-model/projections/projection-states.ts';
import type { ProgressBoard } from './progress-board.ts';

interface LeasePollOptions {
  readStore: ReadStore;
  watch: LeaseWatch;
  board: ProgressBoard;
  /** The projections this projector runs. */
  names: readonly string[];
  ttlMs: number;
  monotonic: () => number;
  /** Whether this worker keeps the lease of a projection (it renews it itself). */
  holds: (name: string) => boolean;
  /** Runs a projection in this process, taking its lease (at most one run asked for at a time). */
  takeOver: (name: string) => void;
  /** Told of the projections a poll finds without a live owner for a whole lease that the poll before did not. */
  onOwnerless?: (names: string[]) => void;
}

export interface LeasePoll {
  /** Reads the store once: refreshes the board, watches the leases, takes over the lapsed ones. */
  poll(): Promise<void>;
  /** The projections seen without a live owner for a whole lease at the last poll. */
  ownerless(): string[];
}

export function leasePoll(options: LeasePollOptions): LeasePoll {
  const { readStore, watch, board, names, ttlMs, monotonic } = options;
  let ownerless: string[] = [];
  return {
    async poll() {
      const docs = await readControlDocs(readStore);
      const parked = new Set<string>();
      for (const state of projectionStatesOf(docs)) {
        if (!names.includes(state.name)) continue;
        board.advance(state.name, state.position);
        if (state.status === 'parked' && state.parked) {
          board.park(state.name, state.parked);
          parked.add(state.name);
        } else board.resume(state.name);
      }
      const leases = leasesOf(docs.values(), names);
      const now = monotonic();
      const before = new Set(ownerless);
      ownerless = ownerlessProjections(watch, leases, now, ttlMs);
      const lapsed = ownerless.filter((name) => !before.has(name));
      if (lapsed.length > 0) options.onOwnerless?.(lapsed);
      for (const [name, lease] of leases) {
        // A parked projection waits for `watchcat projections resume`, whoever looks.
        if (parked.has(name) || options.holds(name)) continue;
        if (!lease || watch.remaining(name, lease, now, ttlMs) === 0) options.takeOver(name);
      }
      if (lapsedReservations(watch, generationsOf(docs), now).length > 0) await takeBackLapsed(readStore, watch, now);
    },
    ownerless: () => ownerless,
  };
}
