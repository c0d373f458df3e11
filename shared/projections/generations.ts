/**
 * The generation pointer: which generation of each projected collection readers read. A rebuild reserves the next
 * generation number (above every live or reserved one, so two rebuilds never build into one generation) and, once
 * that generation is at the head under the projections' leases, switches readers to it in one compare-and-set.
 *
 * A reservation holds while its rebuild renews it; a generation that is neither live nor held by a reservation
 * (a rebuild crashed before its switch, or after it but before dropping the generation it replaced) is left
 * behind, and the next rebuild drops it with its checkpoints.
 */
import { FIRST_GENERATION, GENERATIONS_ID, type ProjectedCollection, type ReadStore } from '../ports/read-store.ts';
import {
  LeaseLostError, checkpointPrefix, generationsOf, readControlDocs, type CheckpointState, type GenerationsDoc,
} from './control-docs.ts';

/** How long a rebuild's reservation holds unless renewed; after that its generation counts as left behind. */
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

/** A generation number no other rebuild has, above every live one, reserved until `wallNow + RESERVATION_TTL_MS`. */
export async function reserveGeneration(store: ReadStore, wallNow = Date.now()): Promise<number> {
  const next = await changePointer(store, (current) => {
    const reserved = Math.max(current.reserved, ...Object.values(current.live)) + 1;
    return { ...current, reserved, reservations: { ...current.reservations, [reserved]: wallNow + RESERVATION_TTL_MS } };
  });
  return next.reserved;
}

/** Keeps the reservation of a rebuild still at work; refused once it lapsed and was taken back. */
export async function renewReservation(store: ReadStore, generation: number, wallNow: number): Promise<void> {
  await changePointer(store, (current) => {
    heldReservation(current, generation);
    return { ...current, reservations: { ...current.reservations, [generation]: wallNow + RESERVATION_TTL_MS } };
  });
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
 * projections' checkpoints in such generations, taking back the reservations that lapsed first (their rebuild's
 * next renewal or switch is refused). Only generations up to the highest reserved so far are looked at: one
 * reserved meanwhile belongs to a rebuild that just started.
 */
export async function dropLeftBehind(
  store: ReadStore, projections: readonly { name: string; collection: ProjectedCollection }[], wallNow: number,
): Promise<[ProjectedCollection, number][]> {
  const pointer = await changePointer(store, (current) => ({
    ...current,
    reservations: Object.fromEntries(Object.entries(current.reservations ?? {}).filter(([, until]) => until >= wallNow)),
  }));
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
