/**
 * What the read API serves, per projection: the (generation, position) each one has reached, read in the
 * background from the projection states (projections/projection-states.ts) so that no request waits on a store
 * query for it. An answer is stamped with the projections it reads, taken before it reads them, and a cached answer
 * is served only while those projections stay where its stamp says: a projection that is stuck, parked or lagging
 * freezes nothing but its own answers.
 *
 * What one process serves never goes back: within a generation a projection's position only rises, and a new
 * generation is taken only once it has reached the position served (a rebuild switched to a generation still
 * behind, or a checkpoint reset, leaves the served state where it was until the store catches up).
 */
import type { ProjectionState } from '../projections/projection-states.ts';

export interface ReadStamp {
  /** What cached answers are keyed by: the generation and position served of every projection read. */
  readonly key: string;
  /** The lowest position served among the projections read: every event up to it is reflected. */
  readonly position: number;
  /**
   * Where the store stands for those projections (the lowest position) while one of them is behind what this
   * process served; null otherwise. An answer read then reflects only this, and is not cached.
   */
  readonly behindAt: number | null;
}

/** The current stamp of one set of projections; the same object until one of them moves. */
export type ReadView = () => ReadStamp;

export interface ParkedProjection {
  name: string;
  /** Position of the event it stopped on. */
  position: number;
  reason: string;
}

/** What an operation may ask of the clock: the position it reports. */
export interface ReadModelPosition {
  /** Lowest position served over every projection: the last event reflected in everything served; 0 before any. */
  current(): number;
  /** When a projection last stored its state (ISO 8601), `null` before any did. */
  readonly updatedAt: string | null;
}

export interface ReadModelClock extends ReadModelPosition {  /**
   * The stamp of the projections named (each projection is named after the read collection it writes); of none,
   * the stamp of what is served over all (its position is `current()`), for an answer that reports on them all.
   */
  view(projections: readonly string[]): ReadView;
}

export interface PolledReadModelClock extends ReadModelClock {
  /** Projections parked on an event they cannot apply, as last read. */
  readonly parked: readonly ParkedProjection[];
  /** The last poll reached the read store. */
  readonly reachable: boolean;
  /** Reads the projection states now (the timer does it every `intervalMs`). */
  refresh(): Promise<void>;
  stop(): void;
}

/** A projection's (generation, position) as this process serves it. */
export interface ServedState {
  generation: number;
  position: number;
}

/**
 * The served state after reading `state`: the same generation only moves forward; a newer generation is taken
 * once it is not behind; an older one is ignored.
 */
export function nextServedState(served: ServedState | undefined, state: ProjectionState): ServedState {
  if (served === undefined) return { generation: state.generation, position: state.position };
  if (state.generation === served.generation) {
    return state.position > served.position ? { generation: served.generation, position: state.position } : served;
  }
  if (state.generation > served.generation && state.position >= served.position) {
    return { generation: state.generation, position: state.position };
  }
  return served;
}

interface Projected {
  served: ServedState;
  /** The position the store holds while it is behind `served`, else null. */
  behindAt: number | null;
}

function stampOf(names: readonly string[], projected: ReadonlyMap<string, Projected>): ReadStamp {
  let position = Number.POSITIVE_INFINITY;
  let stored = Number.POSITIVE_INFINITY;
  let behind = false;
  const parts: string[] = [];
  for (const name of names) {
    const p = projected.get(name);
    if (p === undefined) {
      parts.push('-');
      continue;
    }
    parts.push(`${p.served.generation}.${p.served.position}`);
    position = Math.min(position, p.served.position);
    stored = Math.min(stored, p.behindAt ?? p.served.position);
    if (p.behindAt !== null) behind = true;
  }
  // Nothing projected yet: position 0, as the contract's status says before any event.
  if (position === Number.POSITIVE_INFINITY) return { key: parts.join(' '), position: 0, behindAt: null };
  return { key: parts.join(' '), position, behindAt: behind ? stored : null };
}

const sameProjected = (a: Projected | undefined, b: Projected) =>
  a !== undefined && a.served === b.served && a.behindAt === b.behindAt;

/** A clock polling `readStates`; a failed poll keeps what was served. */
export async function startReadModelClock(
  readStates: () => Promise<ProjectionState[]>, options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): Promise<PolledReadModelClock> {
  let projected = new Map<string, Projected>();
  let current = 0;
  let updatedAt: string | null = null;
  let parked: ParkedProjection[] = [];
  let reachable = true;
  const views: { names: readonly string[]; stamp: ReadStamp }[] = [];
  const readers = new Map<string, ReadView>();
  const viewStamp = (names: readonly string[]): ReadStamp =>
    (names.length > 0 ? stampOf(names, projected) : { key: String(current), position: current, behindAt: null });

  const apply = (states: ProjectionState[]) => {
    const next = new Map(projected);
    let moved = false;
    for (const state of states) {
      const before = projected.get(state.name);
      const served = nextServedState(before?.served, state);
      const behind = served.generation !== state.generation || served.position !== state.position;
      const after: Projected = { served, behindAt: behind ? Math.min(state.position, served.position) : null };
      if (sameProjected(before, after)) continue;
      next.set(state.name, after);
      moved = true;
      if (state.updated_at !== null && (updatedAt === null || state.updated_at > updatedAt)) updatedAt = state.updated_at;
    }
    parked = states.flatMap((s) => (s.status === 'parked' && s.parked ? [{ name: s.name, ...s.parked }] : []));
    if (!moved) return;
    projected = next;
    current = stampOf([...projected.keys()], projected).position;
    for (const view of views) {
      const stamp = viewStamp(view.names);
      // Kept as it was when its own projections did not move, so a cache hit compares one string with itself.
      if (stamp.key !== view.stamp.key || stamp.behindAt !== view.stamp.behindAt) view.stamp = stamp;
    }
  };

  const refresh = async () => {
    let states: ProjectionState[];
    try {
      states = await readStates();
    } catch (error) {
      reachable = false;
      throw error;
    }
    reachable = true;
    apply(states);
  };
  await refresh();
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    refresh().catch((error: unknown) => options.onError?.(error)).finally(() => { polling = false; });
  }, options.intervalMs ?? 100);
  timer.unref();
  return {
    current: () => current,
    get updatedAt() { return updatedAt; },
    view(names) {
      // One view per set of projections, however many routes and tools read that set: each is kept up to date.
      const key = names.join(',');
      let read = readers.get(key);
      if (!read) {
        const view = { names: [...names], stamp: viewStamp(names) };
        views.push(view);
        readers.set(key, (read = () => view.stamp));
      }
      return read;
    },
    get parked() { return parked; },
    get reachable() { return reachable; },
    refresh,
    stop: () => clearInterval(timer),
  };
}
