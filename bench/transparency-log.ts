/**
 * What the transparency log costs (issue 32): `node --import tsx bench/transparency-log.ts [events]` (default
 * 10^6). Builds the log from synthetic events shaped like the registry's (a serial registration: about 400 bytes
 * of stored texts) twice: as its projection does, in batches of 2,000 into the in-memory read store (tiles),
 * taking turns batch by batch with recomputing the audit hash chain over the same texts (as an export of a store
 * without stored hashes does: the baseline, `projection_to_chain` the ratio), and as the auditors' tool does, in an
 * in-memory tree; then times proofs at the full size, from the tree and from the projection's tiles. Reading the
 * event store is left out of all.
 */
import { randomUUID } from 'node:crypto';
import { chainHash, GENESIS_HASH, streamHash } from '../shared/adapters/sqlite/event-hash.ts';
import type { StoredEventText } from '../shared/ports/event-store.ts';
import { entryText } from '../shared/transparency/log-entry.ts';
import { MemoryTree } from '../shared/transparency/memory-tree.ts';
import { createMemoryReadStore } from '../shared/adapters/memory-read-store.ts';
import { withStoredTexts } from '../shared/ports/event-store.ts';
import { toStoredEvent } from '../shared/adapters/event-records.ts';
import { FIRST_GENERATION } from '../shared/ports/read-store.ts';
import { projectBatch } from '../shared/projections/batch.ts';
import type { PositionedRecord, Projection } from '../shared/projections/projection.ts';
import { transparencyLogProjection } from '../shared/projections/transparency-log.projection.ts';
import { TileLog } from '../shared/transparency/tile-log.ts';

const events = Number(process.argv[2] ?? 1_000_000);

/**
 * Event i as a store's read gives it: decoded from text, so every string is flat. Left as template literals and
 * randomUUID build them, stream and id are ropes, and the first reader looking into them pays for flattening a
 * million of them in the old generation: the projection (its entries quote both), never the chain (it reads neither).
 */
function syntheticEvent(i: number): StoredEventText {
  const serial = `SN-${String(i).padStart(8, '0')}`;
  return JSON.parse(JSON.stringify({
    position: i + 1, stream: `serial-${serial}`, revision: 0, id: randomUUID(), type: 'SerialRegistered',
    data: JSON.stringify({ serial, reference: 'RG-1', collection: 'regate', model: { en: 'Regatta One', fr: 'Régate Un' }, manufacture_year: 2024 }),
    metadata: JSON.stringify({ correlation_id: randomUUID(), causation_id: randomUUID(), actor: 'admin-api', occurred_at: new Date(1_700_000_000_000 + i).toISOString(), schema_version: 1 }),
  })) as StoredEventText;
}

const history = Array.from({ length: events }, (_, i) => syntheticEvent(i));
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function main(): Promise<void> {
// Built as the SQLite store's read builds them (an object literal, then the texts attached), so they share one
// hidden class. Copied by rest and spread from parsed objects, each had a map of its own: every read of an event's
// field missed its inline cache, about 1 µs an event, a cost no store's events carry.
const records = history.map(({ position, stream, revision, id, type, data, metadata }) =>
  withStoredTexts(toStoredEvent(position, stream, revision, id, type, JSON.parse(data), JSON.parse(metadata)), data, metadata));
// The projection and the chain take turns, a batch of 2,000 events each: run one after the other, a load on the
// machine that comes and goes would slow one and not the other.
const store = createMemoryReadStore();
let projectionSeconds = 0;
let chainSeconds = 0;
let previous = GENESIS_HASH;
for (let from = 0; from < records.length; from += 2_000) {
  let start = process.hrtime.bigint();
  const target = store.generation('tlog', FIRST_GENERATION);
  const ops = await projectBatch(transparencyLogProjection as unknown as Projection, records.slice(from, from + 2_000) as PositionedRecord[], target);
  await target.write(ops, { handOver: true });
  projectionSeconds += seconds(start);
  start = process.hrtime.bigint();
  for (let i = from; i < Math.min(from + 2_000, events); i += 1) {
    const event = history[i]!;
    previous = chainHash(streamHash(event.type, event.data, event.metadata, GENESIS_HASH), previous);
  }
  chainSeconds += seconds(start);
}

let start = process.hrtime.bigint();
const tree = new MemoryTree();
for (const event of history) tree.append(entryText(event));
const logSeconds = seconds(start);

const sample = 10_000;
start = process.hrtime.bigint();
let inclusionLength = 0;
for (let i = 0; i < sample; i += 1) inclusionLength = Math.max(inclusionLength, tree.inclusion((i * 7919) % events, events).length);
const inclusionMicros = (seconds(start) / sample) * 1e6;
start = process.hrtime.bigint();
let consistencyLength = 0;
for (let i = 1; i <= sample; i += 1) consistencyLength = Math.max(consistencyLength, tree.consistency(1 + ((i * 7919) % (events - 1)), events).length);
const consistencyMicros = (seconds(start) / sample) * 1e6;

const tiles = await TileLog.read(await store.snapshot());
const proofs = 1_000;
start = process.hrtime.bigint();
for (let i = 0; i < proofs; i += 1) await tiles.inclusion((i * 7919) % events, events);
const tileInclusionMicros = (seconds(start) / proofs) * 1e6;
start = process.hrtime.bigint();
for (let i = 1; i <= proofs; i += 1) await tiles.consistency(1 + ((i * 7919) % (events - 1)), events);
const tileConsistencyMicros = (seconds(start) / proofs) * 1e6;

console.log(JSON.stringify({
  events,
  projection_leaves_per_second: Math.round(events / projectionSeconds),
  log_leaves_per_second: Math.round(events / logSeconds),
  chain_events_per_second: Math.round(events / chainSeconds),
  projection_to_chain: Math.round((chainSeconds / projectionSeconds) * 100) / 100,
  inclusion_proof: { max_hashes: inclusionLength, log2_n: Math.ceil(Math.log2(events)), micros_each: Math.round(inclusionMicros * 10) / 10 },
  consistency_proof: { max_hashes: consistencyLength, micros_each: Math.round(consistencyMicros * 10) / 10 },
  from_tiles: { inclusion_micros_each: Math.round(tileInclusionMicros), consistency_micros_each: Math.round(tileConsistencyMicros) },
}, null, 2));
}

void main();
