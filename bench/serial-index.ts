/**
 * The serial index's costs (issue 45, item 5): `node --import tsx bench/serial-index.ts [serials] [rounds]`
 * (default 1,000,000 and 5; about a minute and 1 GB of heap at a million). A prefix tree
 * (shared/read-model/transparency/prefix-tree.ts) of `serials` random 32-byte keys (VRF outputs are uniform), each AUTHENTIC;
 * then, in each round, status changes of keys drawn at random (AUTHENTIC to STOLEN and back), timed per change with
 * the root computed after it: 100,000 changes and one root (as a projection's batch or a checkpoint's span of events
 * brings many), 10,000 changes each followed by its root (the worst case: a root per event), and 10,000 new keys
 * then a root (the goal: at most 20 µs a change at a million serials); then the encoded size of the proofs
 * of 10,000 present and 10,000 absent keys (the goal: at most 1.5 KB), and what the VRF costs a serial
 * (shared/read-model/transparency/vrf.ts: its output when a serial is registered, a proof and its check when an answer carries
 * one). Medians of rounds; one JSON line.
 */
import { createHash, hash, randomBytes } from 'node:crypto';
import { encodeProof, PrefixTree } from '../shared/read-model/transparency/prefix-tree.ts';
import { vrfKey, vrfVerify } from '../shared/read-model/transparency/vrf.ts';
import { median, round } from './report/stats.ts';

const [serialsArg = '1000000', roundsArg = '5'] = process.argv.slice(2);
const SERIALS = Number(serialsArg);
const ROUNDS = Number(roundsArg);
const CHANGES = 100_000;
const NEW_KEYS = 10_000;
const PROOFS = 10_000;

const status = (name: string) => createHash('sha256').update(name).digest();
const AUTHENTIC = status('AUTHENTIC');
const STOLEN = status('STOLEN');

/** What one 64-byte SHA-256 costs here and now (the tree's one-shot call), to read the rest against the machine's load. */
function hashPairUs(): number {
  const input = Buffer.alloc(64);
  const start = process.hrtime.bigint();
  for (let i = 0; i < 100_000; i += 1) hash('sha256', input, 'binary');
  return microseconds(start, 100_000);
}

const microseconds = (start: bigint, count: number) => Number(process.hrtime.bigint() - start) / 1000 / count;

const tree = new PrefixTree();
const keys: Buffer[] = [];
const buildStart = process.hrtime.bigint();
for (let i = 0; i < SERIALS; i += 1) {
  const key = randomBytes(32);
  keys.push(key);
  tree.set(key, AUTHENTIC);
}

tree.root();
const buildUs = microseconds(buildStart, SERIALS);
const heapMb = process.memoryUsage().heapUsed / 2 ** 20;

const pick = (count: number) => Array.from({ length: count }, () => keys[Math.floor(Math.random() * keys.length)]!);
const batchedUs: number[] = [];
const rootEachUs: number[] = [];
const insertUs: number[] = [];
for (let r = 0; r < ROUNDS; r += 1) {
  const value = r % 2 === 0 ? STOLEN : AUTHENTIC;
  let picked = pick(CHANGES);
  let start = process.hrtime.bigint();
  for (const key of picked) tree.set(key, value);
  tree.root();
  batchedUs.push(microseconds(start, CHANGES));
  picked = pick(NEW_KEYS);
  start = process.hrtime.bigint();
  for (const key of picked) {
    tree.set(key, value);
    tree.root();
  }
  rootEachUs.push(microseconds(start, NEW_KEYS));
  const fresh = Array.from({ length: NEW_KEYS }, () => randomBytes(32));
  start = process.hrtime.bigint();
  for (const key of fresh) tree.set(key, AUTHENTIC);
  tree.root();
  insertUs.push(microseconds(start, NEW_KEYS));
}

function sizes(drawn: Buffer[]): { mean: number; max: number; prove_us: number } {
  const start = process.hrtime.bigint();
  const lengths = drawn.map((key) => encodeProof(tree.prove(key).proof).length);
  return { mean: round(lengths.reduce((a, b) => a + b, 0) / lengths.length, 0), max: Math.max(...lengths), prove_us: round(microseconds(start, drawn.length), 2) };
}
const present = sizes(Array.from({ length: PROOFS }, () => keys[Math.floor(Math.random() * keys.length)]!));
const absent = sizes(Array.from({ length: PROOFS }, () => randomBytes(32)));

const vrf = vrfKey(randomBytes(32));
const serials = Array.from({ length: 50 }, (_, i) => Buffer.from(`RG-${100000 + i}`));
let start = process.hrtime.bigint();
for (const serial of serials) vrf.output(serial);
const outputMs = microseconds(start, serials.length) / 1000;
start = process.hrtime.bigint();
const proofs = serials.map((serial) => vrf.prove(serial));
const proveMs = microseconds(start, serials.length) / 1000;
start = process.hrtime.bigint();
serials.forEach((serial, i) => vrfVerify(vrf.publicKey, serial, proofs[i]!));
const verifyMs = microseconds(start, serials.length) / 1000;

process.stdout.write(`${JSON.stringify({
  serials: tree.size,
  build_us_per_serial: round(buildUs, 2),
  change_us: { batched: round(median(batchedUs), 2), root_each: round(median(rootEachUs), 2), new_serial: round(median(insertUs), 2) },
  change_us_rounds: { batched: batchedUs.map((us) => round(us, 2)), root_each: rootEachUs.map((us) => round(us, 2)) },
  heap_mb_after_build: round(heapMb, 0),
  proof_bytes: { present, absent, vrf: proofs[0]!.length },
  vrf_ms: { output: round(outputMs, 2), prove: round(proveMs, 2), verify: round(verifyMs, 2) },
  sha256_64_bytes_us: round(hashPairUs(), 2),
  load_average: (await import('node:os')).loadavg().map((load) => round(load, 1)),
})}\n`);
