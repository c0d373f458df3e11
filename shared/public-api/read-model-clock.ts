/**
 * The position of the read model the API serves: the lowest checkpoint over all projections (what every
 * projection has reached), refreshed in the background so that no request waits on a store query for it. Cached
 * answers are keyed by this position: they stay valid exactly until it moves.
 */
import type { ReadStore } from '../ports/read-store.ts';
import { readProjectionStates, type ProjectionState } from '../projections/projection-states.ts';

export interface ReadModelClock {
  /** Position of the last event reflected in every read model; 0 before any projection ran. */
  current(): number;
  /** When a projection last stored its checkpoint (ISO 8601), `null` before any did. */
  readonly updatedAt: string | null;
}

export interface CheckpointClock extends ReadModelClock {
  /** Projections parked on an event they cannot apply. */
  readonly failed: string[];
  /** The last poll reached the read store. */
  readonly reachable: boolean;
  /** Reads the checkpoints now (the timer does it every `intervalMs`). */
  refresh(): Promise<void>;
  stop(): void;
}

export function readModelPosition(states: ProjectionState[]): { position: number; updatedAt: string | null } {
  if (states.length === 0) return { position: 0, updatedAt: null };
  let position = Number.POSITIVE_INFINITY;
  let updatedAt: string | null = null;
  for (const state of states) {
    position = Math.min(position, state.position);
    if (state.updated_at !== null && (updatedAt === null || state.updated_at > updatedAt)) updatedAt = state.updated_at;
  }
  return { position, updatedAt };
}

/** A clock polling the projections' states (one read of the control documents); a failed poll keeps the last known position. */
export async function startCheckpointClock(
  readStore: ReadStore, options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): Promise<CheckpointClock> {
  let state: { position: number; updatedAt: string | null } = { position: 0, updatedAt: null };
  let failed: string[] = [];
  let reachable = true;
  const refresh = async () => {
    let states: ProjectionState[];
    try {
      states = await readProjectionStates(readStore);
    } catch (error) {
      reachable = false;
      throw error;
    }
    reachable = true;
    state = readModelPosition(states);
    failed = states.filter((s) => s.status === 'parked').map((s) => s.name);
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
    current: () => state.position,
    get updatedAt() { return state.updatedAt; },
    get failed() { return failed; },
    get reachable() { return reachable; },
    refresh,
    stop: () => clearInterval(timer),
  };
}
