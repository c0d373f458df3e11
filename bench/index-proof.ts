/**
 * `node --import tsx bench/index-proof.ts [--quick]`: what a verification with its serial index proof
 * (`?proof=index`, issue 45) costs against the plain one. The read API runs in this process over an in-memory store
 * holding a registry of SERIALS serials (every projection, and the transparency log signed by its publisher, whose
 * first look builds the index); the load comes from autocannon in its own process (load/load-runner.ts), 10
 * keep-alive connections, each variant's requests going through SERIALS serials in turn, more than the answer cache
 * keeps, so that it gives none again: plain answers; proofs of registered serials, warm (each one's VRF proof computed
 * once before the rounds, timed apart, as a serial's first proof is); proofs of serials the index does not hold,
 * each asked for the first time (new serials every round: a VRF proof computed at every request); and proofs of
 * serials the index does not hold asked again (SERIALS of them, asked once before the rounds: their evaluations kept
 * among the ASKED_KEPT last asked, serial-index.ts). Variants take turns in rounds; medians of answers per second and
 * of this process's CPU time per answer (the load generator's apart). Also the time of the index's build at the
 * start. One JSON line.
 */
import { generateKeyPairSync } from 'node:crypto';
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { discoveryRoutes } from '../read-api/discovery/discovery-routes.ts';
import { startReadApi } from '../read-api/server.ts';
import { indexProofs, startTransparencyLog } from '../read-api/transparency/log-publisher.ts';
import { createMemoryReadStore } from '../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../shared/adapters/sqlite-event-store.ts';
import { publicBrand } from '../shared/brand.ts';
import { loadConfig } from '../shared/config/config.ts';
import { PROJECTIONS } from '../shared/read-model/projections/index.ts';
import { rebuild } from '../shared/read-model/projections/rebuild.ts';
import { publicOperations } from '../shared/read-model/public-api/operations/index.ts';
import { ASKED_KEPT } from '../shared/read-model/transparency/serial-index.ts';
import { serialRegistered } from '../test/fixtures/events.ts';
import { confirmAgain } from '../test/support/confirm-again.ts';
import { testSigningKeys } from '../test/support/signing-keys.ts';
import { startLoadClient } from './load/load-client.ts';
import { median, round } from './report/stats.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 5;
const SECONDS = quick ? 1 : 3;
/** More serials than the answer cache keeps (2,000 per URL), so that going through them in turn it gives none again. */
const SERIALS = quick ? 2_500 : 5_000;

const serial = (i: number) => `BX-${String(i).padStart(5, '0')}`;
const registered = Array.from({ length: SERIALS }, (_, i) => `/api/public/verify/${serial(i)}`);
const notFound = (prefix: string) => Array.from({ length: SERIALS }, (_, i) => `/api/public/verify/${prefix}-${String(i).padStart(5, '0')}?proof=index`);
/** Never asked before the round: more of them than a round asks, under a prefix of the round's own. */
const neverAsked = (round_: number) => Array.from({ length: 3 }, (_, part) => notFound(`N${round_}${'ABC'[part]!}`)).flat();
const VARIANTS: Record<string, (round_: number) => string[]> = {
  plain: () => registered,
  proof_registered: () => registered.map((path) => `${path}?proof=index`),
  proof_not_found_first: neverAsked,
  proof_not_found_again: () => notFound('NX'),
};
if (SERIALS > ASKED_KEPT) throw new Error('the serials asked again must be fewer than the index keeps');

const config = loadConfig({
  PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000000',
  VERIFY_MAX_LAG_SECONDS: '3600',
});
const logger = pino({ level: 'warn', name: 'bench-index-proof' }, pino.destination(2));
const events = openSqliteEventStore(':memory:');
for (let i = 0; i < SERIALS; i += 1) await events.append(`serial-BX-${i}`, [serialRegistered(serial(i))], 'no_stream');
const readStore = createMemoryReadStore();
await rebuild({ eventStore: events, readStore, projections: [...PROJECTIONS] });
const indexStarted = performance.now();
const log = await startTransparencyLog({ readStore, key: generateKeyPairSync('ed25519').privateKey, origin: 'bench.example/watchcat/events', logger });
const indexBuildMs = performance.now() - indexStarted;
const proofs = indexProofs(log);
const signingKeys = await testSigningKeys();
const api = await startReadApi({
  config, logger, readStore, brand: publicBrand(config), signingKeys, serialIndex: (wanted) => proofs(wanted),
  extraRoutes: [discoveryRoutes({ operations: publicOperations, config, jwks: signingKeys.jwks })],
});
await confirmAgain(readStore);
await api.refreshReadModels();
const warming = performance.now();
for (let i = 0; i < SERIALS; i += 1) await proofs(serial(i));
const firstProofMs = (performance.now() - warming) / SERIALS;
const base = `http://127.0.0.1:${(api.server.address() as { port: number }).port}`;
for (const path of VARIANTS['proof_not_found_again']!(0)) {
  const answer = await fetch(`${base}${path}`);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
}
for (const [path] of Object.values(VARIANTS).map((paths) => paths(ROUNDS))) {
  const answer = await fetch(`${base}${path}`);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
}
const load = startLoadClient();

const samples: Record<string, { rps: number[]; cpu: number[]; errors: number; non2xx: number }> = {};
const loadAtStart = loadavg()[0];
for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
  for (const [name, paths] of Object.entries(VARIANTS)) {
    const cpuBefore = process.cpuUsage();
    const result = await load.run({ url: base, paths: paths(round_), method: 'GET', headers: {}, connections: 10, seconds: SECONDS });
    const cpu = process.cpuUsage(cpuBefore);
    const sample = (samples[name] ??= { rps: [], cpu: [], errors: 0, non2xx: 0 });
    sample.rps.push(result.rps);
    sample.cpu.push((cpu.user + cpu.system) / result.requests);
    sample.errors += result.errors;
    sample.non2xx += result.non2xx;
  }
}
await load.close();
await api.close();
await log.stop();
await events.close();
const rps = Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, round(median(s.rps))]));
process.stdout.write(`${JSON.stringify({
  serials: SERIALS,
  index_build_ms: round(indexBuildMs),
  first_proof_ms: round(firstProofMs, 2),
  answers_per_second: rps,
  proof_to_plain_throughput: Object.fromEntries(Object.keys(VARIANTS).filter((name) => name !== 'plain').map((name) => [name, round(rps[name]! / rps['plain']!, 3)])),
  server_cpu_us_per_answer: Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, round(median(s.cpu), 1)])),
  errors: Object.values(samples).reduce((sum, s) => sum + s.errors, 0),
  non_2xx: Object.values(samples).reduce((sum, s) => sum + s.non2xx, 0),
  rounds: ROUNDS, seconds_per_variant: SECONDS,
  load_average: [loadAtStart, loadavg()[0]].map((value) => round(value ?? 0, 2)),
})}\n`);
