/**
 * What one API process serves of each projection, and the stamps of its answers (read-model-clock.ts polls the store
 * and keeps these): the (generation, position) served, which never goes back, and where the store stands while it is
 * behind that.
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
  /**
   * Set when a projection read is not built (never confirmed in the generation the store holds): an answer kept
   * while it was is not given again (answer-policy.ts), though its key may stand where it was.
   */
  readonly unbuilt?: true;
}

/** A projection's (generation, position) as this process serves it. */
interface ServedState {
  generation: number;
  position: number;
}

/**
 * The served state after reading `state`: the same generation only moves forward; a newer generation (a rebuild's
 * switch) is taken once it is not behind; an older one only past what was served. A generation a rebuild replaced
 * is fenced from then on, so it never goes past the switch, which its successor had reached: an older one past what
 * was served is a read store put back from a copy made before a rebuild, whose projector went on from there.
 */
export function nextServedState(served: ServedState | undefined, state: ProjectionState): ServedState {
  if (served === undefined) return { generation: state.generation, position: state.position };
  if (state.generation === served.generation) {
    return state.position > served.position ? { generation: served.generation, position: state.position } : served;
  }
  const taken = state.generation > served.generation ? state.position >= served.position : state.position > served.position;
  return taken ? { generation: state.generation, position: state.position } : served;
}

/** A projection as this process serves it: what it serves, where the store stands, and its last confirmation seen. */
export interface Projected {
  served: ServedState;
  /** The position the store holds while it is behind `served`, else null. */
  behindAt: number | null;
  /** The generation the store held at the last read: the one `confirmed` belongs to. */
  storeGeneration: number;
  /**
   * The head its owner last confirmed and when (as it wrote it: a marker, never read as a time here), and since when
   * (monotonic ms) this process knows it happened: null for the one already there at this process's first poll.
   */
  confirmed: Confirmation | null;
  /**
   * While `confirmed` is null in the same generation (its checkpoint reset unconfirmed, or gone from the store): the
   * last confirmation seen there, so that one put back below its head is still known for an older one.
   */
  lastConfirmed?: Confirmation;
}

/** A confirmation as this process saw it (see `Projected.confirmed`). */
export interface Confirmation {
  head: number;
  at: string;
  seenAt: number | null;
}

/** The stamp of `names` as `projected` holds them (see `ReadStamp`). */
export function stampOf(names: readonly string[], projected: ReadonlyMap<string, Projected>): ReadStamp {
  let position = Number.POSITIVE_INFINITY;
  let stored = Number.POSITIVE_INFINITY;
  let behind = false;
  let unbuilt = false;
  const parts: string[] = [];
  for (const name of names) {
    const p = projected.get(name);
    if (p === undefined) {
      parts.push('-');
      unbuilt = true;
      continue;
    }
    parts.push(`${p.served.generation}.${p.served.position}`);
    position = Math.min(position, p.served.position);
    stored = Math.min(stored, p.behindAt ?? p.served.position);
    if (p.behindAt !== null) behind = true;
    if (p.confirmed === null) unbuilt = true;
  }
  const built = unbuilt ? { unbuilt: true as const } : {};
  // Nothing projected yet: position 0, as the contract's status says before any event.
  if (position === Number.POSITIVE_INFINITY) return { key: parts.join(' '), position: 0, behindAt: null, ...built };
  return { key: parts.join(' '), position, behindAt: behind ? stored : null, ...built };
}

/** The same stamp: a view keeps its object, so that a cache hit compares one string with itself. */
export const sameStamp = (a: ReadStamp, b: ReadStamp) =>
  a.key === b.key && a.behindAt === b.behindAt && a.unbuilt === b.unbuilt;

/** The same projected state, object for object: nothing of it moved. */
export const sameProjected = (a: Projected | undefined, b: Projected) =>
  a !== undefined && a.served === b.served && a.behindAt === b.behindAt && a.storeGeneration === b.storeGeneration
  && a.confirmed === b.confirmed && a.lastConfirmed === b.lastConfirmed;
