/**
 * `audit projections`: rebuilds every projection from the history into a shadow in-memory store, each up to the
 * position its live checkpoint says it reflects, and compares the shadow with the live read models document by
 * document. A healthy system shows no difference. Live models that move during the comparison (a running
 * projector) are compared again once; if they still move, the result says so.
 *
 * The shadow is this version's reading of the history, as the live models are: an event of a type it does not know
 * (a newer writer's) is skipped by every projection but in a serial's stream, where it marks the serial. Both sides
 * agree on that, so no difference shows it; the audit names each such event it passed over (`unreadable`), so that
 * "the read models match the history" is never said of a history they do not wholly reflect.
 */
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { isUnreadable, type EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../shared/read-model/documents/documents.ts';
import { readProjectionStates, type ProjectionState } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild, type RebuildProgress } from '../../shared/read-model/projections/rebuild.ts';
import type { Projection } from '../../shared/read-model/projections/projection.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { compareReadModels, fieldDifferences, type Difference } from './compare-read-models.ts';
import { historyCut } from './history-cut.ts';

interface ProjectionsAuditOptions {
  eventStore: EventStore;
  live: ReadStore;
  /** Defaults to every projection. */
  projections?: readonly Projection[];
  onProgress?: (progress: RebuildProgress) => void;
  /** Events per rebuild batch (see `rebuild`); smaller batches give the event loop more turns. */
  batchSize?: number;
}

interface ProjectionsAudit {
  /** Per projection, the live checkpoint position the comparison was made at. */
  positions: Record<string, number>;
  /** Live projections parked on an event they cannot apply. */
  failed: string[];
  differences: Difference[];
  /** The live checkpoints moved while comparing, twice: differences may only show work in progress. */
  moved: boolean;
  /** The events up to the positions compared that this version cannot read, in position order. */
  unreadable: UnreadableSeen[];
  /** Live documents past their checkpoint that the history at their own position produces: not differences. */
  ahead: AheadOfCheckpoint[];
}

/**
 * A live document whose own `position` is past its projection's checkpoint, as the history at that position has it:
 * a projector writes a batch's documents before its checkpoint (projector/catch-up-agent.ts), so one that stopped
 * between the two leaves them ahead until a projector runs again. That is late, not wrong.
 */
export interface AheadOfCheckpoint {
  collection: ReadCollection;
  id: string;
  position: number;
  checkpoint: number;
}

/** An event of the history this version cannot read: where it is, and why. */
export interface UnreadableSeen {
  position: number;
  type: string;
  stream: string;
  unreadable: string;
}

/** `store`, noting in `seen` (by position: each group's rebuild reads the history again) every unreadable event read. */
function noting(store: EventStore, seen: Map<number, UnreadableSeen>): EventStore {
  return {
    ...store,
    readAll: async (options) => {
      const batch = await store.readAll(options);
      for (const event of batch) {
        if (isUnreadable(event)) seen.set(event.position, { position: event.position, type: event.type, stream: event.stream, unreadable: event.unreadable });
      }
      return batch;
    },
  };
}

async function liveCheckpoints(live: ReadStore, projections: readonly Projection[]): Promise<Map<string, ProjectionState | null>> {
  const byName = new Map((await readProjectionStates(live)).map((state) => [state.name, state]));
  return new Map(projections.map((p) => [p.name, byName.get(p.name) ?? null]));
}

const positionsOf = (checkpoints: Map<string, ProjectionState | null>) =>
  Object.fromEntries([...checkpoints].map(([name, doc]) => [name, doc?.position ?? 0]));

const samePositions = (a: Record<string, number>, b: Record<string, number>) =>
  Object.keys(a).every((name) => a[name] === b[name]);

/** Projects each projection up to its own live position into `shadow` (one history read per distinct position). */
async function project(
  options: ProjectionsAuditOptions, projections: readonly Projection[], positions: Record<string, number>, shadow: ReadStore, seen: Map<number, UnreadableSeen>,
) {
  const groups = new Map<number, Projection[]>();
  for (const projection of projections) {
    const position = positions[projection.name] ?? 0;
    groups.set(position, [...(groups.get(position) ?? []), projection]);
  }
  for (const [position, group] of groups) {
    await rebuild({
      eventStore: noting(historyCut(options.eventStore, { position }), seen), readStore: shadow, projections: group,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    });
  }
}

/**
 * Settles each difference whose live document is past its checkpoint against the history at the document's own
 * position: ahead when it matches there, a difference (as it differs there) otherwise. A shadow per round, each
 * projection at the furthest own position left: it settles every document no event touched between its own position
 * and that one (the shadow's document then carries the same position, or an earlier one when the live one is wrong),
 * and at least those at that position, so the rounds end; usually one, a stopped batch leaving its documents whole.
 */
async function settleAhead(
  options: ProjectionsAuditOptions, projections: readonly Projection[], positions: Record<string, number>, differences: Difference[],
  seen: Map<number, UnreadableSeen>,
): Promise<{ differences: Difference[]; ahead: AheadOfCheckpoint[] }> {
  const pending = new Map<Difference, { doc: StoredDoc; projection: Projection }>();
  for (const difference of differences) {
    const projection = projections.find((p) => p.collection === difference.collection);
    if (!projection || difference.kind === 'missing_in_live') continue;
    const doc = await options.live.get<StoredDoc>(difference.collection, difference.id);
    if (doc && doc.position > (positions[projection.name] ?? 0)) pending.set(difference, { doc, projection });
  }
  /** What each pending difference became at its document's own position. */
  const settled = new Map<Difference, { difference: Difference } | { ahead: AheadOfCheckpoint }>();
  while (pending.size > 0) {
    const reach: Record<string, number> = {};
    for (const { doc, projection } of pending.values()) reach[projection.name] = Math.max(reach[projection.name] ?? 0, doc.position);
    const shadow = createMemoryReadStore();
    try {
      await project(options, projections.filter((p) => p.name in reach), reach, shadow, seen);
      for (const [difference, { doc, projection }] of pending) {
        const expected = await shadow.get<StoredDoc>(difference.collection, difference.id);
        const atReach = doc.position === reach[projection.name];
        if (!atReach && (!expected || expected.position > doc.position)) continue;
        const { collection, id } = difference;
        const fields = expected ? fieldDifferences(doc, expected) : [];
        settled.set(difference, !expected ? { difference: { collection, id, kind: 'only_in_live' } }
          : fields.length > 0 ? { difference: { collection, id, kind: 'different', fields } }
          : { ahead: { collection, id, position: doc.position, checkpoint: positions[projection.name] ?? 0 } });
        pending.delete(difference);
      }
    } finally {
      await shadow.close();
    }
  }
  const ahead: AheadOfCheckpoint[] = [];
  const remaining: Difference[] = [];
  for (const difference of differences) {
    const outcome = settled.get(difference) ?? { difference };
    if ('ahead' in outcome) ahead.push(outcome.ahead);
    else remaining.push(outcome.difference);
  }
  return { differences: remaining, ahead };
}

export async function auditProjections(options: ProjectionsAuditOptions): Promise<ProjectionsAudit> {
  const projections = options.projections ?? PROJECTIONS;
  const collections = [...new Set(projections.map((p) => p.collection))];
  for (let attempt = 1; ; attempt += 1) {
    const checkpoints = await liveCheckpoints(options.live, projections);
    const positions = positionsOf(checkpoints);
    const shadow = createMemoryReadStore();
    const seen = new Map<number, UnreadableSeen>();
    try {
      await project(options, projections, positions, shadow, seen);
      const compared = await compareReadModels(options.live, shadow, collections);
      const { differences, ahead } = await settleAhead(options, projections, positions, compared, seen);
      const moved = !samePositions(positions, positionsOf(await liveCheckpoints(options.live, projections)));
      if (!moved || attempt === 2) {
        const failed = [...checkpoints.values()].filter((state) => state?.status === 'parked').map((state) => state!.name);
        const unreadable = [...seen.values()].sort((a, b) => a.position - b.position);
        return { positions, failed, differences, moved, unreadable, ahead };
      }
    } finally {
      await shadow.close();
    }
  }
}
