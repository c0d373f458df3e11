/**
 * The generation pointer: which generation of each projected collection readers read. A rebuild reserves the next
 * generation number (above every live or reserved one, so two rebuilds never build into one generation) and, once
 * that generation is at the head under the projections' leases, switches readers to it in one compare-and-set.
 *
 * A reservation holds while its rebuild renews it: each renewal raises its count, and it lapses once a process has
 * seen the same count for RESERVATION_TTL_MS on its own monotonic clock (lease-watch.ts), never by a time another
 * process wrote (issue 40). Whoever watches long enough takes a lapsed reservation back: a rebuild as it goes, and
 * every projector at its lease poll (projector/lease-poll.ts). A generation that is neither live nor reserved (a
 * rebuild crashed before its switch, or after it but before dropping the generation it replaced) is left behind, and
 * the next rebuild drops it with its checkpoints.
 */
import { FIRST_GENERATION, GENERATIONS_ID, type ProjectedCollection, type ReadStore } from '../../ports/read-store.ts';
import type { LeaseWatch } from './lease-watch.ts';
import {
  LeaseLostError, checkpointPrefix, generationsOf, readControlDocs, type CheckpointState, type GenerationsDoc,
} from './control-docs.ts';

/** How long a rebuild's reservation holds unless renewed, by the watch of whoever looks at it. */
export const RESERVATION_TTL_MS = 5 * 60_000;

/** Applies `change` by compare-and-set, read again until it lands; a change that returns `current` writes nothing. */
async function changePointer(store: ReadStore, change: (current: GenerationsDoc) => GenerationsDoc): Promise<GenerationsDoc> {
  for (;;) {
    const stored = generationsOf(await readControlDocs(store));
    const current: GenerationsDoc = stored ?? { _id: GENERATIONS_ID, version: 0, live: {}, reserved: FIRST_GENERATION };
    const next = change(current);
    if (next === current) return current;
    if (await store.setControl({ ...next, version: current.version + 1 }, { version: current.version }, stored === undefined)) return next;
  }
}

const withoutReservation = (reservations: Record<string, number> | undefined, generation: number): Record<string, number> =>
  Object.fromEntries(Object.entries(reservations ?? {}).filter(([number]) => Number(number) !== generation));

/** The reservation of `generation`, which another rebuild may have found lapsed and dropped its generation. */
function heldReservation(current: GenerationsDoc, generation: number): void {
  if (current.reservations?.[generation] === undefined) {
    throw new Error(`the reservation of generation ${generation} lapsed: its generation was dropped as left behind`);
  }
}

/** A generation number no other rebuild has, above every live one, reserved (renewal count 0). */
export async function reserveGeneration(store: ReadStore): Promise<number> {
  const next = await changePointer(store, (current) => {
    const reserved = Math.max(current.reserved, ...Object.values(current.live)) + 1;
    return { ...current, reserved, reservations: { ...current.reservations, [reserved]: 0 } };
  });
  return next.reserved;
}

/** Keeps the reservation of a rebuild still at work (its count raised); refused once it lapsed and was taken back. */
export async function renewReservation(store: ReadStore, generation: number): Promise<void> {
  await changePointer(store, (current) => {
    heldReservation(current, generation);
    return { ...current, reservations: { ...current.reservations, [generation]: current.reservations![generation]! + 1 } };
  });
}

/**
 * The reservations of `pointer` that `watch` has now seen unchanged for RESERVATION_TTL_MS, as read at `now`
 * (monotonic ms); every one is recorded as seen. A count written before renewal counts were (an expiry time) is a
 * marker like any other.
 */
export function lapsedReservations(watch: LeaseWatch, pointer: GenerationsDoc | undefined, now: number): number[] {
  return Object.entries(pointer?.reservations ?? {}).flatMap(([generation, count]) =>
    (watch.seeMarker(`reservation:${generation}`, String(count), now) >= RESERVATION_TTL_MS ? [Number(generation)] : []));
}

/**
 * Takes back the reservations `watch` has seen lapse, as read at `now` (their rebuilds' next renewal or switch is
 * refused, and the next rebuild drops their generations); the generations taken back. Writes only when one lapsed.
 */
export async function takeBackLapsed(store: ReadStore, watch: LeaseWatch, now: number): Promise<number[]> {
  if (lapsedReservations(watch, generationsOf(await readControlDocs(store)), now).length === 0) return [];
  let taken: number[] = [];
  await changePointer(store, (current) => {
    // Judged again on the pointer about to be changed: a renewal that landed meanwhile keeps its reservation.
    taken = lapsedReservations(watch, current, now);
    return taken.length === 0 ? current : { ...current, reservations: taken.reduce(withoutReservation, current.reservations ?? {}) };
  });
  return taken;
}

/** Gives a reservation up (its rebuild failed and drops its generation itself). */
export async function releaseReservation(store: ReadStore, generation: number): Promise<void> {
  await changePointer(store, (current) => ({ ...current, reservations: withoutReservation(current.reservations, generation) }));
}

/**
 * Records `token` as the latest lease token of `projection` (a new owner's, before it writes anything); false when
 * a newer owner recorded a higher one already.
 */
export async function recordLeaseToken(store: ReadStore, projection: string, token: number): Promise<boolean> {
  const recorded = await changePointer(store, (current) =>
    (current.tokens?.[projection] ?? 0) < token ? { ...current, tokens: { ...current.tokens, [projection]: token } } : current);
  return recorded.tokens?.[projection] === token;
}

/**
 * Makes `generation` live for every collection named, in one step, provided every projection of `holding` still
 * has that lease token as its latest (the switch's maker still owns them: a pause between its last lease check and
 * this write cannot switch readers behind what a new owner applied); returns the generations they replace.
 */
export async function switchGenerations(
  store: ReadStore, collections: readonly ProjectedCollection[], generation: number, holding: Readonly<Record<string, number>>,
): Promise<Map<ProjectedCollection, number>> {
  const replaced = new Map<ProjectedCollection, number>();
  await changePointer(store, (current) => {
    replaced.clear();
    heldReservation(current, generation);
    for (const [projection, token] of Object.entries(holding)) {
      const latest = current.tokens?.[projection];
      if (latest !== token) throw new LeaseLostError(projection, `token ${latest} was taken after token ${token}, before the switch`);
    }
    const live = { ...current.live };
    for (const collection of collections) {
      const previous = live[collection] ?? FIRST_GENERATION;
      if (previous >= generation) throw new Error(`generation ${previous} of ${collection} is live: ${generation} would go back`);
      replaced.set(collection, previous);
      live[collection] = generation;
    }
    return { ...current, live, reservations: withoutReservation(current.reservations, generation) };
  });
  return replaced;
}

/**
 * Drops every generation of the projections' collections that is neither live nor held by a reservation, and the
 * projections' checkpoints in such generations (takeBackLapsed first, to count lapsed reservations out). Only
 * generations up to the highest reserved so far are looked at: one reserved meanwhile belongs to a rebuild that
 * just started.
 */
export async function dropLeftBehind(
  store: ReadStore, projections: readonly { name: string; collection: ProjectedCollection }[],
): Promise<[ProjectedCollection, number][]> {
  const pointer = generationsOf(await readControlDocs(store)) ?? { _id: GENERATIONS_ID, version: 0, live: {}, reserved: FIRST_GENERATION };
  const leftBehind = (collection: ProjectedCollection, generation: number): boolean =>
    generation !== (pointer.live[collection] ?? FIRST_GENERATION) && generation <= pointer.reserved && pointer.reservations?.[generation] === undefined;
  const left: [ProjectedCollection, number][] = [];
  for (const collection of new Set(projections.map((projection) => projection.collection))) {
    for (const generation of await store.storedGenerations(collection)) {
      if (leftBehind(collection, generation)) left.push([collection, generation]);
    }
  }
  const docs = await readControlDocs(store);
  const checkpoints = projections.flatMap(({ name, collection }) => [...docs.values()].flatMap((doc) => {
    const { generation } = doc as Partial<CheckpointState>;
    return doc._id.startsWith(checkpointPrefix(name)) && typeof generation === 'number' && leftBehind(collection, generation) ? [doc._id] : [];
  }));
  await Promise.all(left.map(([collection, generation]) => store.dropGeneration(collection, generation)));
  await Promise.all(checkpoints.map((id) => store.removeControl(id)));
  return left;
}
