/**
 * The transparency log as a projection (docs/api.md, "Transparency log"): leaf i is the i-th stored event, its
 * entry the event's stored texts (log-entry.ts), and the read collection `tlog` holds the tree as C2SP tlog-tiles
 * hash tiles of height 8 (TileDoc). Appending a leaf adds its hash to the level-0 tile still filling (`edge:0`);
 * when a tile fills it is stored whole under its own id (`tile:L/N`, never changed again) and its root goes into
 * the edge tile of the level above. An event thus touches the edge tiles only (one per level, O(log n) in all, a
 * few hashes each on average), and every root, proof and tile is read from these documents (tile-log.ts).
 *
 * Every stored event is a leaf, one this version cannot read included (`everyRecord`): its texts are what is
 * hashed. An event without its stored texts (EventStoreDB keeps none) is serialised again as the audit export does;
 * an unreadable one without texts cannot be a leaf, and parks the log like any event a projection cannot apply.
 *
 * The serial events also leave the serial index's changes beside the tiles (`SerialIndexChangeDoc`, `indexChangeId`),
 * so that the index after exactly the first N events is known to the log's signer, which reads only the read store
 * (ARCHITECTURE.md, "The serial index"). Written with the full tiles, before the edges: an edge recording an event
 * has its change stored. The level-0 edge says whether the changes go back to the first leaf (`index_from_start`):
 * a log projected in part before they existed lacks some, and its index is not built until the log's rebuild.
 *
 * Crash safety: a batch writes full tiles first, then the edges from the highest level down (`writeRank`), so an
 * edge that records an event has everything derived from it stored; a replayed event whose leaf an edge already
 * holds changes nothing from that level up.
 */
import { EVENT_TYPES, isEventType } from '../../events/index.ts';
import { isUnreadable, serialOfStream, storedTextsOf, type StoredEvent } from '../../ports/event-store.ts';
import type { SerialIndexChangeDoc, TileDoc } from '../documents/documents.ts';
import { entryText } from '../transparency/log-entry.ts';
import { leafHashBase64 } from '../transparency/merkle.ts';
import { edgeId, indexChangeId, tileId, tileRoot } from '../transparency/tile-docs.ts';
import { divergence } from '../transparency/log-divergence.ts';
import { signedCheckpointOf } from '../transparency/signed-checkpoints.ts';
import { TileLog } from '../transparency/tile-log.ts';
import { TILE_WIDTH } from '../transparency/tiles.ts';
import type { DocChange, PositionedEvent, Projection, Touches } from './projection.ts';

/** Levels of edge tiles an event may reach: 256^5 = 2^40 leaves. */
const LEVELS = 5;
const EDGE_IDS = Array.from({ length: LEVELS }, (_, level) => edgeId(level));

/** The entry of a stored event: its stored texts where the store handed them, else the export's re-serialisation. */
function logEntry(record: StoredEvent): string {
  const { stream, revision, id, type } = record;
  const texts = storedTextsOf(record);
  // Named, not spread: a spread copies through a slower path, about 3% of the projection (A/B, 200,000 events).
  if (texts) return entryText({ stream, revision, id, type, data: texts.data, metadata: texts.metadata });
  if (isUnreadable(record)) throw new Error(`this version cannot read it and the store keeps no text of it: ${record.unreadable}`);
  return entryText({ stream, revision, id, type, data: JSON.stringify(record.data), metadata: JSON.stringify(record.metadata) });
}

/** `fromStart`: level 0's `index_from_start`, true only for the generation's first leaf or after an edge holding it. */
const emptyEdge = (level: number, index: number, position: number, fromStart: boolean): TileDoc =>
  ({ _id: EDGE_IDS[level]!, level, index, width: 0, hashes: '', ...(level === 0 ? { positions: '', index_from_start: fromStart } : {}), position });

/**
 * `edge` with one more hash (base64) recorded at `position`, its fields in the order they always had; written
 * field by field, as spreading the edge costs more.
 */
function grow(edge: TileDoc, hash: string, position: number, indexed: boolean): TileDoc {
  const { _id, level, index, width, hashes } = edge;
  return level === 0
    ? {
      _id, level, index, width: width + 1, hashes: hashes + hash, positions: `${edge.positions ?? ''}${position},`, position,
      first_position: edge.first_position ?? position, index_from_start: edge.index_from_start === true && indexed,
    }
    : { _id, level, index, width: width + 1, hashes: hashes + hash, position };
}

/**
 * `text` (digits and commas) copied in one piece. A filled tile keeps its positions for good: left as the rope of
 * three strings a leaf that `grow` makes, they outlive the young generation and every scavenge copies them (about
 * 88 bytes a leaf promoted, two fifths of the projection's, and a third of its scavenge time; bench, 200,000 events).
 */
const flat = (text: string) => Buffer.from(text, 'latin1').toString('latin1');

type LogDoc = TileDoc | SerialIndexChangeDoc;

const INDEX_STATUS = { SerialRegistered: 'AUTHENTIC', SerialReportedStolen: 'STOLEN', SerialRecovered: 'AUTHENTIC' } as const;

/**
 * The serial index's change an event brings: none for an event of no serial's status, `lost` for a serial's event this
 * version cannot read (a newer writer's shape, a damaged record, or a type it does not know in a serial's stream:
 * a change of that serial, a theft as well as anything else), whose change the index can never hold.
 */
function indexChange(record: StoredEvent): SerialIndexChangeDoc | 'lost' | undefined {
  if (isUnreadable(record)) {
    const ofSerial = Object.hasOwn(INDEX_STATUS, record.type) || (!isEventType(record.type) && serialOfStream(record.stream) !== undefined);
    return ofSerial ? 'lost' : undefined;
  }
  if (!Object.hasOwn(INDEX_STATUS, record.type)) return undefined;
  const type = record.type as keyof typeof INDEX_STATUS;
  const { serial } = record.data as { serial: string };
  return { _id: indexChangeId(record.position), serial, index_status: INDEX_STATUS[type], registered: type === 'SerialRegistered', position: record.position };
}

function apply(event: PositionedEvent, docs: ReadonlyMap<string, LogDoc>): DocChange<LogDoc>[] {
  // Every projection is handed stored events (the runner's and the rebuild's reads); this one reads their texts.
  const record = event as unknown as StoredEvent;
  const { position } = record;
  // A replay (the level-0 edge holds the event already) brings no change: stored with the full tiles, before the edges.
  const edge0 = docs.get(EDGE_IDS[0]!) as TileDoc | undefined;
  const change = edge0 && edge0.position >= position ? undefined : indexChange(record);
  const changes: DocChange<LogDoc>[] = change && change !== 'lost' ? [{ put: change }] : [];
  // From a serial's event whose change is lost on, the log no longer holds every serial's change from its first leaf:
  // its checkpoints commit no index (an index lacking a theft would prove the serial clean) until a version that
  // reads the event rebuilds the log (read-api/transparency/log-publisher.ts).
  const indexed = change !== 'lost';
  let carry = leafHashBase64(logEntry(record));
  for (let level = 0; level < LEVELS; level += 1) {
    const edge = docs.get(EDGE_IDS[level]!) as TileDoc | undefined;
    // This level, and those above (written before it), already hold what this event brings: a replay.
    if (edge && edge.position >= position) break;
    // No level-0 edge: the generation's first leaf, whose index change, and every one after it, this version writes.
    const grown = grow(edge ?? emptyEdge(level, 0, position, true), carry, position, indexed);
    if (grown.width < TILE_WIDTH) {
      changes.push({ put: grown });
      break;
    }
    const full = level === 0 ? { ...grown, positions: flat(grown.positions ?? '') } : grown;
    changes.push({ put: { ...full, _id: tileId(level, grown.index) } }, { put: emptyEdge(level, grown.index + 1, position, grown.index_from_start === true) });
    carry = Buffer.from(tileRoot(grown)).toString('base64');
  }
  return changes;
}

/** What every event touches: the edge tiles. */
const TOUCHES: Touches = { ids: EDGE_IDS };

export const transparencyLogProjection: Projection<LogDoc> = {
  name: 'transparency-log',
  collection: 'tlog',
  handles: new Set(EVENT_TYPES),
  everyRecord: true,
  afterSignalMs: 100,
  touches: () => TOUCHES,
  apply,
  // Full tiles first, then the edges from the highest level down.
  writeRank: (id) => (id.startsWith('edge:') ? LEVELS - Number(id.slice(5)) : 0),
  // A rebuild reaching the head must give the root signed last for its size.
  checkBeforeSwitch: async (generation, control) => divergence(await TileLog.ofGeneration(generation), signedCheckpointOf(control), true),
};

