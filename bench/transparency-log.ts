/**
 * What the transparency log costs (issue 32): `node --import tsx bench/transparency-log.ts [events] [rounds]`
 * (default 10^6 events, 3 rounds). Builds the log from synthetic events shaped like the registry's (a serial
 * registration, each its own stream: about 400 bytes of stored texts) as its projection does, in batches of 2,000
 * into the in-memory read store (tiles), and as the auditors' tool does, in an in-memory tree; and, as baselines over
 * the same texts, the audit hash chain as an export of a store without stored hashes computes it (`ChainLinks`, the
 * tip of each stream kept: the goal, `projection_to_export_chain`), and that chain's two digests alone, with no tips
 * (`projection_to_chain_digests`, a floor no export reaches). Times proofs at the full size, from the tree and from
 * the projection's tiles. Reading the event store is left out of all.
 *
 * Each build runs in a process of its own (`--run NAME`), over events built there: in one process, what one build
 * keeps (the export's tips of a million streams, the projection's tiles) weighs on the other's garbage collection,
 * which no real run pays (the projection built 143,000 leaves a second in turns with the chains in one process, and
 * 218,000 alone). Each round runs the builds one after the other, in an order that alternates from round to round, so
 * that a load on the machine that comes and goes weighs on each alike; each rate is the median of the rounds.
 */
import { randomUUID } from 'node:crypto';
import { ChainLinks } from '../services/audit/chain-links.ts';
import { chainHash, GENESIS_HASH, streamHash } from '../shared/adapters/sqlite/event-hash.ts';
import type { StoredEventText } from '../shared/ports/event-store.ts';
import { entryText } from '../shared/read-model/transparency/log-entry.ts';
import { MemoryTree } from '../shared/read-model/transparency/memory-tree.ts';
import { createMemoryReadStore } from '../shared/adapters/memory-read-store.ts';
import { withStoredTexts } from '../shared/ports/event-store.ts';
import { toStoredEvent } from '../shared/adapters/event-records.ts';
import { FIRST_GENERATION } from '../shared/ports/read-store.ts';
import { projectBatch } from '../shared/read-model/projections/batch.ts';
import type { PositionedRecord, Projection } from '../shared/read-model/projections/projection.ts';
import { transparencyLogProjection } from '../shared/read-model/projections/transparency-log.projection.ts';
import { TileLog } from '../shared/read-model/transparency/tile-log.ts';
import { runJsonChild } from './sections/child-json.ts';
import { median, round } from './report/stats.ts';

const BATCH = 2_000;

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

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
/** Microseconds each of `count` runs of `run`. */
async function microsEach(count: number, run: (i: number) => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i += 1) await run(i);
  return round((seconds(start) / count) * 1e6, 1);
}

type Figures = { seconds: number } & Record<string, unknown>;

/** The builds, each run alone in a child process over `events` events; each answers its seconds and any proof figures. */
const BUILDS: Record<string, (history: StoredEventText[]) => Promise<Figures>> = {
  async projection(history) {
    // Built as the SQLite store's read builds them (an object literal, then the texts attached), so they share one
    // hidden class. Copied by rest and spread from parsed objects, each had a map of its own: every read of an
    // event's field missed its inline cache, about 1 µs an event, a cost no store's events carry.
    const records = history.map(({ position, stream, revision, id, type, data, metadata }) =>
      withStoredTexts(toStoredEvent(position, stream, revision, id, type, JSON.parse(data), JSON.parse(metadata)), data, metadata));
    const store = createMemoryReadStore();
    const start = process.hrtime.bigint();
    for (let from = 0; from < records.length; from += BATCH) {
      const target = store.generation('tlog', FIRST_GENERATION);
      const ops = await projectBatch(transparencyLogProjection as unknown as Projection, records.slice(from, from + BATCH) as PositionedRecord[], target);
      await target.write(ops, { handOver: true });
    }
    const built = seconds(start);
    const n = history.length;
    const tiles = await TileLog.read(await store.snapshot());
    return {
      seconds: built,
      // Each proof from a snapshot read again, as a request reads one; tiles of the same content decoded once.
      inclusion_micros_each: await microsEach(1_000, async (i) => (await TileLog.read(await store.snapshot())).inclusion((i * 7919) % n, n)),
      consistency_micros_each: await microsEach(1_000, (i) => tiles.consistency(1 + ((i * 7919) % (n - 1)), n)),
    };
  },
  async export_chain(history) {
    const chain = new ChainLinks();
    const start = process.hrtime.bigint();
    for (const event of history) chain.next(event);
    return { seconds: seconds(start) };
  },
  async chain_digests(history) {
    let previous = GENESIS_HASH;
    const start = process.hrtime.bigint();
    for (const event of history) previous = chainHash(streamHash(event.type, event.data, event.metadata, GENESIS_HASH), previous);
    return { seconds: seconds(start) };
  },
  async tree(history) {
    const tree = new MemoryTree();
    const start = process.hrtime.bigint();
    for (const event of history) tree.append(entryText(event));
    const built = seconds(start);
    const n = history.length;
    let inclusion = 0;
    let consistency = 0;
    return {
      seconds: built,
      inclusion_micros_each: await microsEach(10_000, (i) => { inclusion = Math.max(inclusion, tree.inclusion((i * 7919) % n, n).length); }),
      consistency_micros_each: await microsEach(10_000, (i) => { consistency = Math.max(consistency, tree.consistency(1 + ((i * 7919) % (n - 1)), n).length); }),
      inclusion_max_hashes: inclusion,
      consistency_max_hashes: consistency,
    };
  },
};
const NAMES = Object.keys(BUILDS);

async function child(name: string, events: number): Promise<void> {
  const build = BUILDS[name];
  if (!build) throw new Error(`no build ${name}: one of ${NAMES.join(', ')}`);
  console.log(JSON.stringify(await build(Array.from({ length: events }, (_, i) => syntheticEvent(i)))));
}

async function main(events: number, rounds: number): Promise<void> {
  const runs = new Map<string, Figures[]>(NAMES.map((name) => [name, []]));
  for (let r = 0; r < rounds; r += 1) {
    for (const name of r % 2 === 0 ? NAMES : [...NAMES].reverse()) {
      runs.get(name)!.push(await runJsonChild<Figures>(new URL(import.meta.url), ['--run', name, String(events)]));
    }
  }
  const rate = (name: string) => Math.round(events / median(runs.get(name)!.map((run) => run.seconds)));
  const figure = (name: string, key: string) => median(runs.get(name)!.map((run) => run[key] as number));
  console.log(JSON.stringify({
    events,
    rounds,
    seconds: Object.fromEntries(NAMES.map((name) => [name, runs.get(name)!.map((run) => round(run.seconds, 2))])),
    projection_leaves_per_second: rate('projection'),
    log_leaves_per_second: rate('tree'),
    export_chain_events_per_second: rate('export_chain'),
    chain_digests_events_per_second: rate('chain_digests'),
    projection_to_export_chain: round(rate('projection') / rate('export_chain'), 2),
    projection_to_chain_digests: round(rate('projection') / rate('chain_digests'), 2),
    inclusion_proof: { max_hashes: figure('tree', 'inclusion_max_hashes'), log2_n: Math.ceil(Math.log2(events)), micros_each: figure('tree', 'inclusion_micros_each') },
    consistency_proof: { max_hashes: figure('tree', 'consistency_max_hashes'), micros_each: figure('tree', 'consistency_micros_each') },
    from_tiles: { inclusion_micros_each: figure('projection', 'inclusion_micros_each'), consistency_micros_each: figure('projection', 'consistency_micros_each') },
  }, null, 2));
}

const args = process.argv.slice(2);
if (args[0] === '--run') await child(args[1]!, Number(args[2]));
else await main(Number(args[0] ?? 1_000_000), Number(args[1] ?? 3));
